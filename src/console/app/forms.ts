/**
 * Small pieces of the console's write forms: labelled fields, input checks that mark what is
 * wrong instead of sending, the READ-only note, and one way to send and show the outcome.
 */
import { describeError } from './api.js';
import { type Child, fill, h } from './dom.js';
import { app } from './shell.js';
import { alertBox } from './widgets.js';

/** Who the audit log names for the console's writes. */
export function requestedBy(): string {
  return app.session?.username || 'console';
}

/** A labelled input. */
export function field(label: string, input: HTMLElement): HTMLLabelElement {
  return h('label', null, [label, input]);
}

/** The note a READ-only session sees instead of a form. */
export function needsWrite(what: string): HTMLElement {
  return h('p', { class: 'muted small needs-write', text: what + ' needs the WRITE role.' });
}

/** Marks `input` invalid (and focuses it) when `ok` is false; returns `ok`. */
export function check(input: HTMLInputElement, ok: boolean): boolean {
  if (ok) input.removeAttribute('aria-invalid');
  else {
    input.setAttribute('aria-invalid', 'true');
    input.focus();
  }
  return ok;
}

/** A whole number from 0 to 10,000 typed into `input`, or null. */
export function countOf(input: HTMLInputElement): number | null {
  const v = input.value.trim();
  return /^\d{1,5}$/.test(v) ? Number(v) : null;
}

/** Runs `send` with `button` disabled and shows its outcome in `out`. */
export function submit<T>(
  button: HTMLButtonElement,
  out: HTMLElement,
  send: () => Promise<T>,
  done: (result: T) => Child,
  refused: string,
): void {
  button.disabled = true;
  fill(out, null);
  send().then(
    (result) => {
      button.disabled = false;
      fill(out, done(result));
    },
    (e: unknown) => {
      button.disabled = false;
      fill(out, alertBox(refused + ': ' + describeError(e)));
    },
  );
}
