/**
 * The frame around every view: navigation without page loads, the header (breadcrumbs, status,
 * refresh controls, who is signed in), and the refresh loop that keeps a view's data current.
 */
import { describeError, hasStatus } from './api.js';
import type { SessionResponseJson } from './api-types.js';
import { admin } from './client.js';
import { fill, h } from './dom.js';
import { clockTime } from './format.js';
import { showLogin } from './login.js';
import { BASE, link, parseRoute, type Route } from './router.js';
import { clearToken, getToken, PAUSED_KEY, saveItem } from './storage.js';
import { alertBox } from './widgets.js';

const REFRESH_MS = 2000;
const TICK_MS = 500;

/** One breadcrumb; with `href` it links. */
export interface Crumb {
  text: string;
  href?: string;
  mono?: boolean;
}

/** What a view factory returns: its element and how it loads and updates its data. */
export interface View {
  title: string;
  crumbs: Crumb[];
  el: Node;
  /** Loads the data and renders it (throws to show the error). */
  refresh?: () => Promise<void>;
  /** Updates countdowns between refreshes from the browser's clock. */
  tick?: (now: number) => void;
  /** Shows a refresh's error in the view. */
  fail?: (e: unknown) => void;
}

/** A view factory per route name, each taking its own route. */
export type ViewFactories = { [K in Route['name']]?: (route: Extract<Route, { name: K }>) => View };

/** The views by route name (main.ts registers them). */
export const VIEWS: ViewFactories = {};

interface Mounted {
  view: View;
  busy: boolean;
  again: boolean;
  refreshes: number;
}

/** The console's state. */
export const app: {
  session: SessionResponseJson | null;
  paused: boolean;
  /** Bumped on every render so answers that arrive for a view already left are dropped. */
  generation: number;
} = { session: null, paused: false, generation: 0 };

let mounted: Mounted | null = null;
let timers: ReturnType<typeof setInterval>[] = [];

/** Shows `href` (pushes it onto the history unless `replace`). */
export function navigate(href: string, replace?: boolean): void {
  if (replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  void render();
}

/** Follows `a[data-nav]` clicks and history moves without page loads. */
export function listenForNavigation(): void {
  document.addEventListener('click', (ev) => {
    if (ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey)
      return;
    const a = ev.target instanceof Element ? ev.target.closest('a[data-nav]') : null;
    if (!a) return;
    ev.preventDefault();
    navigate(a.getAttribute('href') ?? BASE);
  });
  window.addEventListener('popstate', () => void render());
}

function setStatus(text: string, isError: boolean): void {
  const el = document.getElementById('status');
  if (!el) return;
  el.textContent = text;
  el.className = 'status' + (isError ? ' error' : '');
}

/** True when the session may change things (WRITE or ADMIN). */
export function canWrite(): boolean {
  const roles = app.session?.roles ?? [];
  return roles.indexOf('WRITE') >= 0 || roles.indexOf('ADMIN') >= 0;
}

function whoText(): string {
  if (!app.session) return '';
  if (app.session.authenticated) return 'Signed in as ' + (app.session.username || 'unknown');
  return 'Open mode';
}

/** Draws the breadcrumbs and the tools; `refreshing` adds the refresh controls. */
export function renderHeader(crumbs: readonly Crumb[], refreshing: boolean): void {
  const items: Node[] = [];
  crumbs.forEach((c, i) => {
    if (i > 0) items.push(h('span', { class: 'sep', text: '/' }));
    items.push(
      c.href
        ? link(c.href, c.text, c.mono ? 'mono' : null)
        : h('span', { class: c.mono ? 'mono' : null, text: c.text }),
    );
  });
  fill(document.getElementById('crumbs')!, items);
  fill(document.getElementById('tools')!, [
    h('span', { class: 'status', id: 'status', 'aria-live': 'polite' }),
    refreshing
      ? h('button', {
          type: 'button',
          id: 'refresh-toggle',
          onclick: togglePause,
          text: app.paused ? 'Resume auto-refresh' : 'Pause auto-refresh',
        })
      : null,
    refreshing
      ? h('button', { type: 'button', id: 'refresh-now', onclick: () => refreshNow(), text: 'Refresh' })
      : null,
    // The API reference (served beside the console, public like it) links back here.
    h('a', { href: '/coord/v1/docs', id: 'api-docs', class: 'small', text: 'API reference' }),
    h('span', {
      class: 'who',
      id: 'who',
      text: whoText(),
      title:
        app.session && !app.session.authenticated
          ? 'No credentials are configured: every API route is open.'
          : null,
    }),
    getToken() ? h('button', { type: 'button', id: 'logout', onclick: logout, text: 'Sign out' }) : null,
  ]);
}

function togglePause(): void {
  app.paused = !app.paused;
  saveItem(PAUSED_KEY, app.paused ? '1' : null);
  const btn = document.getElementById('refresh-toggle');
  if (btn) btn.textContent = app.paused ? 'Resume auto-refresh' : 'Pause auto-refresh';
  document.body.setAttribute('data-paused', app.paused ? 'true' : 'false');
  setStatus(app.paused ? 'Auto-refresh paused' : 'Auto-refresh every ' + REFRESH_MS / 1000 + ' s', false);
  if (!app.paused) void refreshNow();
}

function logout(): void {
  clearToken();
  app.session = null;
  navigate(BASE + '/login');
}

/** Leaves the current view: no timers, no view (before the login form or another view). */
export function unmount(): void {
  for (const t of timers) clearInterval(t);
  timers = [];
  mounted = null;
}

function startTimers(): void {
  for (const t of timers) clearInterval(t);
  timers = [
    setInterval(() => {
      if (!app.paused && !document.hidden) void refreshNow();
    }, REFRESH_MS),
    setInterval(() => mounted?.view.tick?.(Date.now()), TICK_MS),
  ];
}

/** Refreshes the current view: one refresh at a time; one asked for meanwhile runs right after. */
export async function refreshNow(): Promise<void> {
  const m = mounted;
  if (!m?.view.refresh) return;
  if (m.busy) {
    m.again = true;
    return;
  }
  m.busy = true;
  document.body.setAttribute('data-busy', 'true');
  const gen = app.generation;
  try {
    await m.view.refresh();
    if (gen !== app.generation) return;
    m.view.tick?.(Date.now());
    m.refreshes += 1;
    // Lets non-interactive runs (tests, --dump-dom) tell when the data is on the page.
    document.body.setAttribute('data-refreshes', String(m.refreshes));
    setStatus('Updated ' + clockTime(new Date()) + (app.paused ? ' (auto-refresh paused)' : ''), false);
  } catch (e) {
    if (gen !== app.generation) return;
    if (hasStatus(e, 401)) {
      showLogin('Your session has expired or is not valid any more. Sign in again.', false);
      return;
    }
    setStatus('Refresh failed: ' + describeError(e), true);
    m.view.fail?.(e);
  } finally {
    m.busy = false;
    if (gen === app.generation) document.body.removeAttribute('data-busy');
    if (m.again && gen === app.generation) {
      m.again = false;
      void refreshNow();
    }
  }
}

function showMessage(title: string, text: string): void {
  fill(document.getElementById('view')!, h('div', null, [h('h1', { text: title }), alertBox(text)]));
}

/** Renders the view the address names (asking who is signed in first, once per session). */
export async function render(): Promise<void> {
  const gen = ++app.generation;
  unmount();
  document.body.removeAttribute('data-refreshes');
  document.body.removeAttribute('data-busy');
  document.body.setAttribute('data-view', 'loading');
  const route = parseRoute();
  if (route.name === 'login') {
    showLogin(null, true);
    return;
  }
  if (!app.session) {
    try {
      app.session = await admin.session();
    } catch (e) {
      if (gen !== app.generation) return;
      if (hasStatus(e, 401)) {
        showLogin(
          getToken() ? 'Your session has expired or is not valid any more. Sign in again.' : null,
          false,
        );
        return;
      }
      renderHeader([{ text: 'Error' }], false);
      showMessage('Cannot open the console', describeError(e));
      document.body.setAttribute('data-view', 'error');
      return;
    }
    if (gen !== app.generation) return;
  }
  // The factory registered under route.name takes that route (TypeScript cannot correlate them).
  const make = (VIEWS[route.name] ?? missingView) as (r: Route) => View;
  const view = make(route);
  mounted = { view, busy: false, again: false, refreshes: 0 };
  renderHeader(view.crumbs, !!view.refresh);
  fill(document.getElementById('view')!, view.el);
  document.title = view.title + ' · Coordinator console';
  document.body.setAttribute('data-view', route.name);
  document.body.setAttribute('data-paused', app.paused ? 'true' : 'false');
  if (view.refresh) {
    await refreshNow();
    if (gen === app.generation) startTimers();
  }
}

/** The page for an address the console does not know. */
export function missingView(): View {
  return {
    title: 'Not found',
    crumbs: [{ text: 'Not found' }],
    el: h('div', null, [
      h('h1', { text: 'No such page' }),
      h('p', null, ['The console has no page at this address. ', link(BASE, 'Back to the groups')]),
    ]),
  };
}
