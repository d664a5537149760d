/**
 * The offer of a link's session. A `#token=` arriving in a tab that has a session already is not
 * taken (see `takeFragmentToken`); a notice above the page names the link's account and waits
 * for the user to switch to it or keep the current session.
 */
import { describeError, hasStatus } from './api.js';
import { adminAs } from './client.js';
import { fill, h } from './dom.js';
import { app, render } from './shell.js';
import { offer, setToken, takeFragmentToken } from './storage.js';
import { mono } from './widgets.js';

function keepSessionButton(label: string): HTMLButtonElement {
  return h('button', { type: 'button', id: 'session-keep', onclick: dropSessionOffer, text: label });
}

function switchSessionButton(label: string): HTMLButtonElement {
  return h('button', {
    type: 'button',
    id: 'session-switch',
    class: 'primary',
    onclick: acceptSessionOffer,
    text: label,
  });
}

/** Shows the pending offer (if any) outside `#view`, so it stays through refreshes and navigation. */
export function showSessionOffer(): void {
  document.getElementById('session-offer')?.remove();
  const token = offer.token;
  if (!token) return;
  const text = h('p', {
    text: 'This link carries a sign-in of its own; checking it. Your session is unchanged.',
  });
  const actions = h('div', { class: 'offer-actions' }, keepSessionButton('Keep my session'));
  const box = h('div', { id: 'session-offer', class: 'alert warn offer', role: 'alert' }, [text, actions]);
  document.getElementById('view')!.before(box);
  adminAs(token)
    .session()
    .then(
      (who) => {
        if (offer.token !== token) return;
        const name = who?.username ? who.username : 'another account';
        const roles =
          who && Array.isArray(who.roles) && who.roles.length ? ' (' + who.roles.join(', ') + ')' : '';
        fill(text, [
          'This link would sign you in as ',
          mono(name),
          roles,
          ' instead of your current session. Nothing changes unless you switch.',
        ]);
        fill(actions, [switchSessionButton('Switch to ' + name), keepSessionButton('Keep my session')]);
      },
      (e: unknown) => {
        if (offer.token !== token) return;
        if (hasStatus(e, 401)) {
          fill(
            text,
            'The sign-in in this link is not valid (expired or forged) and was ignored. Your session is unchanged.',
          );
          fill(actions, keepSessionButton('Dismiss'));
          return;
        }
        fill(
          text,
          'The sign-in in this link could not be checked (' +
            describeError(e) +
            '). Your session is unchanged.',
        );
        fill(actions, [switchSessionButton('Switch anyway'), keepSessionButton('Keep my session')]);
      },
    );
}

function dropSessionOffer(): void {
  offer.token = null;
  showSessionOffer();
}

function acceptSessionOffer(): void {
  const token = offer.token;
  dropSessionOffer();
  if (!token) return;
  setToken(token);
  app.session = null;
  void render();
}

/** A `#token=` link followed within the page changes only the fragment (no reload): same rules. */
export function listenForFragmentTokens(): void {
  window.addEventListener('hashchange', () => {
    const before = offer.token;
    const changed = takeFragmentToken();
    if (offer.token !== before) showSessionOffer();
    if (changed) {
      app.session = null;
      void render();
    }
  });
}
