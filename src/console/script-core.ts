/**
 * Browser script, part 1: DOM building, formatting, the session token and the API client.
 * Plain ES2020 for the browser, kept as a string so it bundles into the Worker too. Everything
 * user- or server-supplied reaches the page through `textContent`, never as HTML.
 */

/** Helpers every view uses (concatenated first into the console script). */
export const CORE_JS = String.raw`
var API = '/coord/v1';
var BASE = '/console';
var TOKEN_KEY = 'rsc.console.token';
var PAUSED_KEY = 'rsc.console.paused';
var REFRESH_MS = 2000;
var TICK_MS = 500;

// Used when sessionStorage is unavailable (privacy modes): the console keeps working per page.
var memoryStore = {};

function saveItem(key, value) {
  try {
    if (value === null) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, value);
  } catch (e) {
    if (value === null) delete memoryStore[key];
    else memoryStore[key] = value;
  }
}

function loadItem(key) {
  try {
    var v = sessionStorage.getItem(key);
    return v === null && key in memoryStore ? memoryStore[key] : v;
  } catch (e) {
    return key in memoryStore ? memoryStore[key] : null;
  }
}

function getToken() { return loadItem(TOKEN_KEY); }
function setToken(token) { saveItem(TOKEN_KEY, token); }
function clearToken() { saveItem(TOKEN_KEY, null); }

// A #token= the tab did not take because it has a session already: it waits, in this variable
// only, for the user to switch to it or drop it (script-session's offer).
var offeredToken = null;

// Non-interactive runs open /console#token=...; the token leaves the address bar at once, so it
// is neither kept in history nor visible in screenshots. A tab without a session takes it; a tab
// with one keeps its own and only offers the link's, since a crafted link must not silently make
// the user act as someone else. True when the stored token changed.
function takeFragmentToken() {
  var hash = location.hash.replace(/^#/, '');
  if (!hash) return false;
  var token = new URLSearchParams(hash).get('token');
  if (!token) return false;
  history.replaceState(history.state, '', location.pathname + location.search);
  var current = getToken();
  if (current === token) return false;
  if (current) {
    offeredToken = token;
    return false;
  }
  setToken(token);
  return true;
}

function append(el, children) {
  if (children === null || children === undefined || children === false) return;
  if (Array.isArray(children)) {
    children.forEach(function (c) { append(el, c); });
    return;
  }
  el.appendChild(children instanceof Node ? children : document.createTextNode(String(children)));
}

function h(tag, attrs, children) {
  var el = document.createElement(tag);
  if (attrs) {
    Object.keys(attrs).forEach(function (k) {
      var v = attrs[k];
      if (v === null || v === undefined || v === false) return;
      if (k === 'class') el.className = v;
      else if (k === 'text') el.textContent = String(v);
      else if (k.slice(0, 2) === 'on' && typeof v === 'function') el.addEventListener(k.slice(2), v);
      else if (v === true) el.setAttribute(k, '');
      else el.setAttribute(k, String(v));
    });
  }
  append(el, children);
  return el;
}

function fill(el, children) {
  el.textContent = '';
  append(el, children);
  return el;
}

function isNum(n) { return typeof n === 'number' && isFinite(n); }

function fmtNum(n) { return isNum(n) ? n.toLocaleString('en-US') : '—'; }

function fmtDuration(ms) {
  if (!isNum(ms)) return '—';
  var s = Math.abs(ms) / 1000;
  var out;
  if (s < 60) out = s.toFixed(1) + ' s';
  else if (s < 3600) out = Math.floor(s / 60) + ' m ' + Math.floor(s % 60) + ' s';
  else if (s < 86400) out = Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' m';
  else out = Math.floor(s / 86400) + ' d ' + Math.floor((s % 86400) / 3600) + ' h';
  return ms < 0 ? '-' + out : out;
}

function parseTime(iso) {
  var t = typeof iso === 'string' ? Date.parse(iso) : NaN;
  return isNaN(t) ? null : t;
}

// UTC, to the second unless millis are asked for (record times within one second differ).
function fmtTime(iso, millis) {
  var t = parseTime(iso);
  if (t === null) return iso ? String(iso) : '—';
  var s = new Date(t).toISOString().replace('T', ' ');
  return millis ? s : s.replace(/\.\d+Z$/, 'Z');
}

function clockTime(d) { return d.toISOString().slice(11, 19) + 'Z'; }

function fmtAgo(iso, now) {
  var t = parseTime(iso);
  return t === null ? '—' : fmtDuration(now - t) + ' ago';
}

// Shard lists arrive as [{shardIndex}] (or, in additive fields, plain numbers).
function shardIndexOf(s) {
  if (typeof s === 'number') return s;
  if (s && typeof s.shardIndex === 'number') return s.shardIndex;
  if (s && s.shard && typeof s.shard.shardIndex === 'number') return s.shard.shardIndex;
  if (s && typeof s.shard === 'number') return s.shard;
  return null;
}

function shardList(list) {
  return (Array.isArray(list) ? list : [])
    .map(shardIndexOf)
    .filter(function (n) { return n !== null; })
    .sort(function (a, b) { return a - b; });
}

function range(from, to) {
  var out = [];
  for (var i = from; i < to; i++) out.push(i);
  return out;
}

function mono(s, cls) { return h('span', { class: 'mono' + (cls ? ' ' + cls : ''), text: s }); }

var STATE_KIND = {
  UP: 'ok', STABLE: 'ok', ACTIVE: 'ok', CURRENT: 'ok',
  STARTING: 'info', PREPARING: 'info', DRAINED: 'info',
  RECONCILING: 'warn', ASSIGNING: 'warn', LEAVING: 'warn', DRAINING: 'warn', RETIRING: 'warn',
  ROLLING_BACK: 'warn', PENDING: 'warn', REVOKING: 'warn',
  FENCED: 'bad', DOWN: 'bad', DEGRADED: 'bad', REMOVED: 'bad'
};

function badge(label, kind) {
  return h('span', { class: 'badge' + (kind ? ' ' + kind : ''), text: label });
}

function stateBadge(state) { return badge(state || '—', STATE_KIND[state] || ''); }

function shardChips(shards) {
  if (!shards.length) return h('span', { class: 'muted', text: '—' });
  return h('span', { class: 'chips' }, shards.map(function (i) { return h('span', { class: 'chip', text: ':' + i }); }));
}

function idChips(ids) {
  if (!ids.length) return h('span', { class: 'muted', text: '—' });
  return h('span', { class: 'chips' }, ids.map(function (id) { return h('span', { class: 'chip', text: id }); }));
}

function panel(title, hint, body, extra) {
  return h('section', { class: 'panel' }, [
    h('div', { class: 'panel-head' }, [h('h2', { text: title }), hint ? h('span', { class: 'hint', text: hint }) : null, extra || null]),
    body
  ]);
}

function table(headers, rows) {
  return h('div', { class: 'table-wrap' }, h('table', null, [
    h('thead', null, h('tr', null, headers.map(function (c) {
      return typeof c === 'string' ? h('th', { text: c }) : h('th', { class: c.cls, text: c.text });
    }))),
    h('tbody', null, rows)
  ]));
}

function td(content, cls) { return h('td', cls ? { class: cls } : null, content); }

function alertBox(text, kind) { return h('div', { class: 'alert' + (kind ? ' ' + kind : ''), role: 'status', text: text }); }

function enc(s) { return encodeURIComponent(s); }

function groupPath(p, g) { return '/streams/' + enc(p) + '/groups/' + enc(g); }

function apiError(status, code, message) {
  var e = new Error(message);
  e.status = status;
  e.code = code;
  return e;
}

function describeError(e) {
  if (!e) return 'unknown error';
  return (e.status ? e.status + ' ' : '') + (e.code ? e.code + ': ' : '') + (e.message || String(e));
}

// Every API call: Bearer token when there is one, JSON both ways, errors as {status, code, message}.
// asToken: call with that token instead of the session's (to look at an offered one).
async function api(method, path, body, asToken) {
  var headers = { accept: 'application/json' };
  var token = asToken === undefined ? getToken() : asToken;
  if (token) headers.authorization = 'Bearer ' + token;
  // credentials 'omit': the API answers 401 with a Basic challenge, and a request that may send
  // credentials would make the browser pop up its own login dialog instead of returning the 401.
  // The console's only credential is the Bearer header, so nothing is lost.
  var init = { method: method, headers: headers, cache: 'no-store', credentials: 'omit' };
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  var res;
  try {
    res = await fetch(API + path, init);
  } catch (e) {
    throw apiError(0, 'NETWORK', 'the coordinator is unreachable');
  }
  var text = await res.text();
  var json = null;
  if (text) {
    try { json = JSON.parse(text); } catch (e) { json = null; }
  }
  if (res.ok) return json;
  if (res.status === 401) throw apiError(401, 'UNAUTHORIZED', 'not signed in, or the session has expired');
  if (res.status === 403) throw apiError(403, 'FORBIDDEN', 'your roles do not allow this');
  var code = json && json.errorCode ? json.errorCode : json && json.error ? json.error : 'HTTP_' + res.status;
  throw apiError(res.status, code, json && json.message ? json.message : res.statusText || 'request failed');
}

// For panels that can do without their data: the view renders, the panel shows the error.
// A 401 still propagates, since then nothing can be shown.
function optional(promise) {
  return promise.then(
    function (data) { return { data: data, error: null }; },
    function (e) {
      if (e && e.status === 401) throw e;
      return { data: null, error: e };
    }
  );
}
`;
