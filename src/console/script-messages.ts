/**
 * Browser script, part 8: the message browser of one shard over
 * `/monitoring/streams/{p}/groups/{g}/shards/{i}/messages`, newest or oldest first, paging on
 * with `nextCursor` and back through the cursors already visited. Pure reads: browsing never
 * moves a consumer group.
 */

/** The message browser view. */
export const MESSAGES_JS = String.raw`
var PAGE_SIZES = [10, 25, 50, 100];
var PAYLOAD_PREVIEW = 2000;

function fieldsList(fields, skipPayload) {
  var keys = Object.keys(fields || {}).filter(function (k) { return !(skipPayload && k === 'payload'); });
  if (!keys.length) return null;
  return h('div', { class: 'fields' }, keys.map(function (k) {
    var v = String(fields[k]);
    return h('span', null, [h('b', { text: k + '=' }), v.length > 300 ? v.slice(0, 300) + '…' : v]);
  }));
}

function recordRow(rec, n) {
  var payload = typeof rec.payload === 'string' ? rec.payload : null;
  var content = [];
  if (payload !== null) {
    content.push(h('pre', { class: 'payload', title: payload.length > PAYLOAD_PREVIEW ? 'truncated preview' : null },
      payload.length > PAYLOAD_PREVIEW ? payload.slice(0, PAYLOAD_PREVIEW) + '…' : payload));
  }
  content.push(fieldsList(rec.fields, payload !== null));
  return h('tr', { 'data-record-id': rec.recordId }, [
    td(String(n), 'num muted shrink'),
    td(mono(rec.recordId, 'record-id'), 'shrink'),
    td(rec.recordTime ? fmtTime(rec.recordTime, true) : '—', 'shrink'),
    td(content)
  ]);
}

function option(value, label, selected) {
  return h('option', { value: String(value), selected: selected, text: label });
}

VIEWS.messages = function (r) {
  var st = {
    shard: r.shard !== null && /^\d+$/.test(r.shard) ? Number(r.shard) : null,
    direction: r.direction === 'FORWARD' ? 'FORWARD' : 'BACKWARD',
    limit: 25,
    cursor: null,
    visited: [],
    next: null,
    shards: null
  };
  var shardSelect = h('select', { id: 'msg-shard' });
  var orderSelect = h('select', { id: 'msg-order' }, [
    option('BACKWARD', 'Newest first', st.direction === 'BACKWARD'),
    option('FORWARD', 'Oldest first', st.direction === 'FORWARD')
  ]);
  var limitSelect = h('select', { id: 'msg-limit' }, PAGE_SIZES.map(function (n) { return option(n, n + ' per page', n === st.limit); }));
  var first = h('button', { type: 'button', id: 'msg-first', text: 'First page' });
  var prev = h('button', { type: 'button', id: 'msg-prev', text: '← Previous page' });
  var next = h('button', { type: 'button', id: 'msg-next', text: 'Next page →' });
  var info = h('p', { class: 'note', id: 'msg-info' });
  var body = h('div', { class: 'panel-body flush', id: 'messages' }, h('p', { class: 'empty', text: 'Loading…' }));

  function restart() {
    st.cursor = null;
    st.visited = [];
    st.next = null;
    var q = { direction: st.direction };
    if (st.shard !== null) q.shard = String(st.shard);
    history.replaceState(null, '', consoleHref(['streams', r.p, 'groups', r.g, 'messages'], q));
    refreshNow();
  }

  function syncButtons() {
    first.disabled = st.cursor === null;
    prev.disabled = st.visited.length === 0;
    next.disabled = !st.next;
  }

  shardSelect.addEventListener('change', function () { st.shard = Number(shardSelect.value); restart(); });
  orderSelect.addEventListener('change', function () { st.direction = orderSelect.value; restart(); });
  limitSelect.addEventListener('change', function () { st.limit = Number(limitSelect.value); restart(); });
  first.addEventListener('click', function () { restart(); });
  next.addEventListener('click', function () {
    if (!st.next) return;
    st.visited.push(st.cursor);
    st.cursor = st.next;
    syncButtons();
    refreshNow();
  });
  prev.addEventListener('click', function () {
    if (!st.visited.length) return;
    st.cursor = st.visited.pop();
    syncButtons();
    refreshNow();
  });
  syncButtons();

  function renderShardOptions() {
    fill(shardSelect, st.shards.map(function (i) {
      return option(i, ':' + i + ' (' + r.p + ':' + i + ')', i === st.shard);
    }));
  }

  return {
    title: 'Messages · ' + r.p + ' / ' + r.g,
    crumbs: [
      { text: 'Groups', href: BASE },
      { text: groupLabel(r.p, r.g), href: groupHref(r.p, r.g), mono: true },
      { text: 'Messages' }
    ],
    el: h('div', null, [
      h('h1', null, ['Messages of ', mono(r.p), h('span', { class: 'muted', text: ' / ' }), mono(r.g)]),
      h('p', { class: 'subtitle', text: 'Read-only paging with XRANGE / XREVRANGE: browsing never moves the consumer group.' }),
      panel('Shard messages', null, h('div', null, [
        h('div', { class: 'panel-body' }, [
          h('div', { class: 'controls' }, [
            h('label', null, ['Shard', shardSelect]),
            h('label', null, ['Order', orderSelect]),
            h('label', null, ['Page size', limitSelect]),
            h('span', { class: 'spacer' }),
            first, prev, next
          ]),
          info
        ]),
        body
      ]))
    ]),
    refresh: async function () {
      var group = await api('GET', '/monitoring' + groupPath(r.p, r.g));
      var shards = consumableOf(group);
      var changed = !st.shards || shards.join(',') !== st.shards.join(',');
      st.shards = shards;
      if (st.shard === null || shards.indexOf(st.shard) < 0) {
        if (!shards.length) {
          fill(shardSelect, null);
          fill(body, h('p', { class: 'empty', text: 'This group has no consumable shards.' }));
          return;
        }
        // A deep link to a shard that is no longer consumable falls back to the first one.
        st.shard = shards[0];
        changed = true;
      }
      if (changed) renderShardOptions();
      var q = '?direction=' + st.direction + '&limit=' + st.limit + (st.cursor ? '&cursor=' + enc(st.cursor) : '');
      var page = await api('GET', '/monitoring' + groupPath(r.p, r.g) + '/shards/' + st.shard + '/messages' + q);
      st.next = page.nextCursor || null;
      syncButtons();
      var records = page.records || [];
      var offset = st.visited.length * st.limit;
      fill(info, [
        'Shard ', mono(page.streamKey || r.p + ':' + st.shard), ' · ',
        st.direction === 'BACKWARD' ? 'newest first' : 'oldest first', ' · page ' + (st.visited.length + 1),
        ' · records ' + (records.length ? offset + 1 + '–' + (offset + records.length) : 'none'),
        st.next ? ' · more available' : ' · end of stream'
      ]);
      fill(body, records.length
        ? table([{ text: '#', cls: 'num shrink' }, { text: 'Record id', cls: 'shrink' }, { text: 'Time (UTC)', cls: 'shrink' }, 'Payload and fields'], records.map(function (rec, i) { return recordRow(rec, offset + i + 1); }))
        : h('p', { class: 'empty', id: 'no-messages', text: st.cursor ? 'No more records in this direction.' : 'This shard is empty.' }));
    },
    fail: function (e) { fill(body, h('p', { class: 'empty' }, alertBox('Cannot load messages: ' + describeError(e)))); }
  };
};
`;
