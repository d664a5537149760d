/**
 * Browser script, part 2: path routing under `/console`, the header, the auto-refresh loop and
 * the login form. Views register themselves in `VIEWS`; `BOOT_JS` starts everything.
 */

/** Router, header, refresh loop and login (after `CORE_JS`, before the views). */
export const SHELL_JS = String.raw`
var VIEWS = {};

var app = {
  session: null,
  view: null,
  paused: false,
  timers: [],
  // Bumped on every render so answers that arrive for a view already left are dropped.
  generation: 0
};

function consoleHref(segments, query) {
  var path = BASE + (segments.length ? '/' + segments.map(enc).join('/') : '');
  var q = query ? new URLSearchParams(query).toString() : '';
  return q ? path + '?' + q : path;
}

function groupHref(p, g) { return consoleHref(['streams', p, 'groups', g]); }

// A stream's first group is named like the stream; say it once then.
function groupLabel(p, g) { return p === g ? g : p + ' / ' + g; }

function messagesHref(p, g, shard) {
  return consoleHref(['streams', p, 'groups', g, 'messages'], shard === null || shard === undefined ? null : { shard: String(shard) });
}

function link(href, content, cls) { return h('a', { href: href, 'data-nav': true, class: cls }, content); }

function safeDecode(s) {
  try { return decodeURIComponent(s); } catch (e) { return s; }
}

function parseRoute() {
  var path = location.pathname;
  var at = path.indexOf(BASE);
  var rest = (at < 0 ? '' : path.slice(at + BASE.length)).replace(/^\/+|\/+$/g, '');
  var parts = rest ? rest.split('/').map(safeDecode) : [];
  var q = new URLSearchParams(location.search);
  if (parts.length === 0) return { name: 'groups' };
  if (parts.length === 1 && parts[0] === 'login') return { name: 'login' };
  if (parts[0] === 'streams' && parts[2] === 'groups' && parts.length >= 4) {
    if (parts.length === 4) return { name: 'group', p: parts[1], g: parts[3] };
    if (parts.length === 5 && parts[4] === 'messages') {
      return { name: 'messages', p: parts[1], g: parts[3], shard: q.get('shard'), direction: q.get('direction') };
    }
  }
  return { name: 'missing' };
}

function navigate(href, replace) {
  if (replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  render();
}

document.addEventListener('click', function (ev) {
  if (ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
  var a = ev.target && ev.target.closest ? ev.target.closest('a[data-nav]') : null;
  if (!a) return;
  ev.preventDefault();
  navigate(a.getAttribute('href'));
});

window.addEventListener('popstate', function () { render(); });

function setStatus(text, isError) {
  var el = document.getElementById('status');
  if (!el) return;
  el.textContent = text;
  el.className = 'status' + (isError ? ' error' : '');
}

function canWrite() {
  var roles = (app.session && app.session.roles) || [];
  return roles.indexOf('WRITE') >= 0 || roles.indexOf('ADMIN') >= 0;
}

function whoText() {
  if (!app.session) return '';
  if (app.session.authenticated) return 'Signed in as ' + (app.session.username || 'unknown');
  return 'Open mode';
}

function renderHeader(crumbs, refreshing) {
  var nav = document.getElementById('crumbs');
  var items = [];
  (crumbs || []).forEach(function (c, i) {
    if (i > 0) items.push(h('span', { class: 'sep', text: '/' }));
    items.push(c.href ? link(c.href, c.text, c.mono ? 'mono' : null) : h('span', { class: c.mono ? 'mono' : null, text: c.text }));
  });
  fill(nav, items);
  fill(document.getElementById('tools'), [
    h('span', { class: 'status', id: 'status', 'aria-live': 'polite' }),
    refreshing ? h('button', { type: 'button', id: 'refresh-toggle', onclick: togglePause, text: app.paused ? 'Resume auto-refresh' : 'Pause auto-refresh' }) : null,
    refreshing ? h('button', { type: 'button', id: 'refresh-now', onclick: function () { refreshNow(); }, text: 'Refresh' }) : null,
    h('span', {
      class: 'who', id: 'who', text: whoText(),
      title: app.session && !app.session.authenticated ? 'No credentials are configured: every API route is open.' : null
    }),
    getToken() ? h('button', { type: 'button', id: 'logout', onclick: logout, text: 'Sign out' }) : null
  ]);
}

function togglePause() {
  app.paused = !app.paused;
  saveItem(PAUSED_KEY, app.paused ? '1' : null);
  var btn = document.getElementById('refresh-toggle');
  if (btn) btn.textContent = app.paused ? 'Resume auto-refresh' : 'Pause auto-refresh';
  document.body.setAttribute('data-paused', app.paused ? 'true' : 'false');
  setStatus(app.paused ? 'Auto-refresh paused' : 'Auto-refresh every ' + REFRESH_MS / 1000 + ' s', false);
  if (!app.paused) refreshNow();
}

function logout() {
  clearToken();
  app.session = null;
  navigate(BASE + '/login');
}

function stopTimers() {
  app.timers.forEach(function (t) { clearInterval(t); });
  app.timers = [];
}

function startTimers() {
  stopTimers();
  app.timers.push(setInterval(function () {
    if (!app.paused && !document.hidden) refreshNow();
  }, REFRESH_MS));
  app.timers.push(setInterval(function () {
    if (app.view && app.view.tick) app.view.tick(Date.now());
  }, TICK_MS));
}

// One refresh at a time per view; a request made meanwhile (a click) runs right after.
async function refreshNow() {
  var view = app.view;
  if (!view || !view.refresh) return;
  if (view.busy) {
    view.again = true;
    return;
  }
  view.busy = true;
  document.body.setAttribute('data-busy', 'true');
  var gen = app.generation;
  try {
    await view.refresh();
    if (gen !== app.generation) return;
    if (view.tick) view.tick(Date.now());
    view.refreshes = (view.refreshes || 0) + 1;
    // Lets non-interactive runs (tests, --dump-dom) tell when the data is on the page.
    document.body.setAttribute('data-refreshes', String(view.refreshes));
    setStatus('Updated ' + clockTime(new Date()) + (app.paused ? ' (auto-refresh paused)' : ''), false);
  } catch (e) {
    if (gen !== app.generation) return;
    if (e && e.status === 401) {
      showLogin('Your session has expired or is not valid any more. Sign in again.', false);
      return;
    }
    setStatus('Refresh failed: ' + describeError(e), true);
    if (view.fail) view.fail(e);
  } finally {
    view.busy = false;
    if (gen === app.generation) document.body.removeAttribute('data-busy');
    if (view.again && gen === app.generation) {
      view.again = false;
      refreshNow();
    }
  }
}

function showMessage(title, text) {
  fill(document.getElementById('view'), h('div', null, [h('h1', { text: title }), alertBox(text)]));
}

async function render() {
  var gen = ++app.generation;
  stopTimers();
  app.view = null;
  document.body.removeAttribute('data-refreshes');
  document.body.removeAttribute('data-busy');
  document.body.setAttribute('data-view', 'loading');
  var route = parseRoute();
  if (route.name === 'login') {
    showLogin(null, true);
    return;
  }
  if (!app.session) {
    try {
      app.session = await api('GET', '/monitoring/session');
    } catch (e) {
      if (gen !== app.generation) return;
      if (e.status === 401) {
        showLogin(getToken() ? 'Your session has expired or is not valid any more. Sign in again.' : null, false);
        return;
      }
      renderHeader([{ text: 'Error' }], false);
      showMessage('Cannot open the console', describeError(e));
      document.body.setAttribute('data-view', 'error');
      return;
    }
    if (gen !== app.generation) return;
  }
  var make = VIEWS[route.name] || VIEWS.missing;
  var view = make(route);
  app.view = view;
  renderHeader(view.crumbs, !!view.refresh);
  fill(document.getElementById('view'), view.el);
  document.title = view.title + ' · Coordinator console';
  document.body.setAttribute('data-view', route.name);
  document.body.setAttribute('data-paused', app.paused ? 'true' : 'false');
  if (view.refresh) {
    await refreshNow();
    if (gen === app.generation) startTimers();
  }
}

function showLogin(message, explicit) {
  app.generation++;
  stopTimers();
  app.view = null;
  app.session = null;
  document.body.removeAttribute('data-busy');
  renderHeader([{ text: 'Sign in' }], false);
  var error = h('div', { id: 'login-error' }, message ? alertBox(message, 'warn') : null);
  var user = h('input', { id: 'login-username', name: 'username', autocomplete: 'username', required: true, autofocus: true });
  var pass = h('input', { id: 'login-password', name: 'password', type: 'password', autocomplete: 'current-password' });
  var submit = h('button', { class: 'primary', type: 'submit', id: 'login-submit', text: 'Sign in' });
  var form = h('form', { id: 'login-form', onsubmit: function (ev) {
    ev.preventDefault();
    submit.disabled = true;
    fill(error, null);
    login(user.value, pass.value).then(function () {
      if (explicit) navigate(BASE, true);
      else render();
    }, function (e) {
      submit.disabled = false;
      fill(error, alertBox(e.status === 401 ? 'Wrong username or password.' : 'Sign-in failed: ' + describeError(e)));
    });
  } }, [
    h('label', null, ['Username', user]),
    h('label', null, ['Password', pass]),
    submit
  ]);
  fill(document.getElementById('view'), h('div', { class: 'login' }, [
    h('h1', { text: 'Sign in' }),
    h('p', { class: 'subtitle', text: 'Use a coordinator account with the READ role (WRITE to roll back migrations).' }),
    error,
    form
  ]));
  document.title = 'Sign in · Coordinator console';
  document.body.setAttribute('data-view', 'login');
}

async function login(username, password) {
  clearToken();
  var body = await api('POST', '/auth/login', { username: username, password: password });
  var token = body && (body.accessToken || body.token);
  if (!token) throw apiError(0, 'NO_TOKEN', 'the coordinator answered without a token');
  setToken(token);
  app.session = null;
}

VIEWS.missing = function () {
  return {
    title: 'Not found',
    crumbs: [{ text: 'Not found' }],
    el: h('div', null, [
      h('h1', { text: 'No such page' }),
      h('p', null, ['The console has no page at this address. ', link(BASE, 'Back to the groups')])
    ])
  };
};
`;

/** Starts the console (concatenated last). */
export const BOOT_JS = `
takeFragmentToken();
app.paused = loadItem(PAUSED_KEY) === '1';
render();
showSessionOffer();
`;
