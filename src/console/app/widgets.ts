/**
 * Small pieces every view uses: monospace ids, state badges, shard chips, panels, tables,
 * summary cards and alerts.
 */
import { type Child, h } from './dom.js';

/** Monospace text (every id is shown this way). */
export function mono(s: string, cls?: string | null): HTMLSpanElement {
  return h('span', { class: 'mono' + (cls ? ' ' + cls : ''), text: s });
}

/** Badge colour of each state the API reports. */
const STATE_KIND: Record<string, string> = {
  UP: 'ok',
  STABLE: 'ok',
  ACTIVE: 'ok',
  CURRENT: 'ok',
  STARTING: 'info',
  PREPARING: 'info',
  DRAINED: 'info',
  RECONCILING: 'warn',
  ASSIGNING: 'warn',
  LEAVING: 'warn',
  DRAINING: 'warn',
  RETIRING: 'warn',
  ROLLING_BACK: 'warn',
  PENDING: 'warn',
  REVOKING: 'warn',
  FENCED: 'bad',
  DOWN: 'bad',
  DEGRADED: 'bad',
  REMOVED: 'bad',
};

/** A coloured label; `kind` is `ok`, `info`, `warn`, `bad` or none. */
export function badge(label: string, kind?: string | null): HTMLSpanElement {
  return h('span', { class: 'badge' + (kind ? ' ' + kind : ''), text: label });
}

/** A state as a badge in its colour. */
export function stateBadge(state: string | null | undefined): HTMLSpanElement {
  return badge(state || '—', (state && STATE_KIND[state]) || '');
}

/**
 * A migration state as a badge: a finished migration reads COMPLETED (its wire state stays
 * `DEPRECATED`, docs/protocol.md#migration-states, and is kept in `data-state` and the tooltip).
 */
export function migrationBadge(state: string | null | undefined): HTMLSpanElement {
  if (state !== 'DEPRECATED') return stateBadge(state);
  const b = badge('COMPLETED', 'ok');
  b.setAttribute('data-state', state);
  b.title = 'Finished (wire state DEPRECATED)';
  return b;
}

function chips(labels: readonly string[]): HTMLSpanElement {
  if (!labels.length) return h('span', { class: 'muted', text: '—' });
  return h(
    'span',
    { class: 'chips' },
    labels.map((text) => h('span', { class: 'chip', text })),
  );
}

/** Shard indexes as `:i` chips. */
export function shardChips(shards: readonly number[]): HTMLSpanElement {
  return chips(shards.map((i) => ':' + i));
}

/** Member ids as chips. */
export function idChips(ids: readonly string[]): HTMLSpanElement {
  return chips(ids);
}

/** A titled section with an optional hint. */
export function panel(title: string, hint: string | null, body: Child, extra?: Child): HTMLElement {
  return h('section', { class: 'panel' }, [
    h('div', { class: 'panel-head' }, [
      h('h2', { text: title }),
      hint ? h('span', { class: 'hint', text: hint }) : null,
      extra || null,
    ]),
    body,
  ]);
}

/** A column header: plain text, or text with a class (`num` for right-aligned numbers). */
export type Header = string | { text: string; cls: string };

/** A table that scrolls sideways on narrow screens. */
export function table(headers: readonly Header[], rows: Child): HTMLDivElement {
  return h(
    'div',
    { class: 'table-wrap' },
    h('table', null, [
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          headers.map((c) =>
            typeof c === 'string' ? h('th', { text: c }) : h('th', { class: c.cls, text: c.text }),
          ),
        ),
      ),
      h('tbody', null, rows),
    ]),
  );
}

/** A table cell. */
export function td(content: Child, cls?: string): HTMLTableCellElement {
  return h('td', cls ? { class: cls } : null, content);
}

/** A status line (`role=status`); `kind` as for badges. */
export function alertBox(text: string, kind?: string): HTMLDivElement {
  return h('div', { class: 'alert' + (kind ? ' ' + kind : ''), role: 'status', text });
}

/** A summary card: a label over a value. */
export function card(label: string, value: Child, id?: string): HTMLDivElement {
  return h('div', { class: 'card', id }, [
    h('div', { class: 'label', text: label }),
    h('div', { class: 'value' }, value),
  ]);
}

/** A muted dash where a value is absent. */
export const dash = (): HTMLElement => h('span', { class: 'muted', text: '—' });
