/**
 * The sign-in form: username and password for `POST /auth/login`, whose Bearer token becomes
 * the tab's session.
 */
import { ApiError, describeError, hasStatus } from './api.js';
import { admin } from './client.js';
import { fill, h } from './dom.js';
import { BASE } from './router.js';
import { app, navigate, render, renderHeader, unmount } from './shell.js';
import { clearToken, setToken } from './storage.js';
import { alertBox } from './widgets.js';

/**
 * Shows the form with an optional `message`. `explicit`: the user opened `/console/login`, so a
 * successful sign-in goes to the start page instead of re-rendering the address.
 */
export function showLogin(message: string | null, explicit: boolean): void {
  app.generation++;
  unmount();
  app.session = null;
  document.body.removeAttribute('data-busy');
  renderHeader([{ text: 'Sign in' }], false);
  const error = h('div', { id: 'login-error' }, message ? alertBox(message, 'warn') : null);
  const user = h('input', {
    id: 'login-username',
    name: 'username',
    autocomplete: 'username',
    required: true,
    autofocus: true,
  });
  const pass = h('input', {
    id: 'login-password',
    name: 'password',
    type: 'password',
    autocomplete: 'current-password',
  });
  const submit = h('button', { class: 'primary', type: 'submit', id: 'login-submit', text: 'Sign in' });
  const onsubmit = (ev: Event) => {
    ev.preventDefault();
    submit.disabled = true;
    fill(error, null);
    login(user.value, pass.value).then(
      () => {
        if (explicit) navigate(BASE, true);
        else void render();
      },
      (e: unknown) => {
        submit.disabled = false;
        fill(
          error,
          alertBox(hasStatus(e, 401) ? 'Wrong username or password.' : 'Sign-in failed: ' + describeError(e)),
        );
      },
    );
  };
  const form = h('form', { id: 'login-form', onsubmit }, [
    h('label', null, ['Username', user]),
    h('label', null, ['Password', pass]),
    submit,
  ]);
  fill(
    document.getElementById('view')!,
    h('div', { class: 'login' }, [
      h('h1', { text: 'Sign in' }),
      h('p', {
        class: 'subtitle',
        text: 'Use a coordinator account with the READ role (WRITE to create and scale streams, roll back migrations and reset offsets).',
      }),
      error,
      form,
    ]),
  );
  document.title = 'Sign in · Coordinator console';
  document.body.setAttribute('data-view', 'login');
}

async function login(username: string, password: string): Promise<void> {
  clearToken();
  const body = await admin.login(username, password);
  const token = body?.accessToken;
  if (!token) throw new ApiError(0, 'NO_TOKEN', 'the coordinator answered without a token');
  setToken(token);
  app.session = null;
}
