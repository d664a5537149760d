/**
 * The message browser of one shard over `/monitoring/streams/{p}/groups/{g}/shards/{i}/messages`,
 * newest or oldest first, paging on with `nextCursor` and back through the cursors already
 * visited. Pure reads: browsing never moves a consumer group.
 */
import { describeError } from './api.js';
import type { StreamMessageRecordJson } from './api-types.js';
import { admin } from './client.js';
import { fill, h } from './dom.js';
import { fmtTime } from './format.js';
import { BASE, consoleHref, groupHref, groupLabel } from './router.js';
import { refreshNow, type View } from './shell.js';
import { consumableOf } from './view-shards.js';
import { alertBox, mono, panel, table, td } from './widgets.js';

const PAGE_SIZES = [10, 25, 50, 100];
const PAYLOAD_PREVIEW = 2000;

type Direction = 'FORWARD' | 'BACKWARD';

function fieldsList(
  fields: Record<string, unknown> | null | undefined,
  skipPayload: boolean,
): HTMLElement | null {
  const keys = Object.keys(fields || {}).filter((k) => !(skipPayload && k === 'payload'));
  if (!keys.length) return null;
  return h(
    'div',
    { class: 'fields' },
    keys.map((k) => {
      const v = String(fields?.[k]);
      return h('span', null, [h('b', { text: k + '=' }), v.length > 300 ? v.slice(0, 300) + '…' : v]);
    }),
  );
}

function recordRow(rec: StreamMessageRecordJson, n: number): HTMLTableRowElement {
  const payload = typeof rec.payload === 'string' ? rec.payload : null;
  const content: Array<Node | null> = [];
  if (payload !== null) {
    const long = payload.length > PAYLOAD_PREVIEW;
    content.push(
      h(
        'pre',
        { class: 'payload', title: long ? 'truncated preview' : null },
        long ? payload.slice(0, PAYLOAD_PREVIEW) + '…' : payload,
      ),
    );
  }
  content.push(fieldsList(rec.fields, payload !== null));
  return h('tr', { 'data-record-id': rec.recordId }, [
    td(String(n), 'num muted shrink'),
    td(mono(rec.recordId, 'record-id'), 'shrink'),
    td(rec.recordTime ? fmtTime(rec.recordTime, true) : '—', 'shrink'),
    td(content),
  ]);
}

function option(value: string | number, label: string, selected: boolean): HTMLOptionElement {
  return h('option', { value: String(value), selected, text: label });
}

/** The message browser of group `g` of stream `p`, at `shard` (or the first) in `direction`. */
export function messagesView(r: {
  p: string;
  g: string;
  shard: string | null;
  direction: string | null;
}): View {
  const st = {
    shard: r.shard !== null && /^\d+$/.test(r.shard) ? Number(r.shard) : (null as number | null),
    direction: (r.direction === 'FORWARD' ? 'FORWARD' : 'BACKWARD') as Direction,
    limit: 25,
    cursor: null as string | null,
    visited: [] as Array<string | null>,
    next: null as string | null,
    shards: null as number[] | null,
  };
  const shardSelect = h('select', { id: 'msg-shard' });
  const orderSelect = h('select', { id: 'msg-order' }, [
    option('BACKWARD', 'Newest first', st.direction === 'BACKWARD'),
    option('FORWARD', 'Oldest first', st.direction === 'FORWARD'),
  ]);
  const limitSelect = h(
    'select',
    { id: 'msg-limit' },
    PAGE_SIZES.map((n) => option(n, n + ' per page', n === st.limit)),
  );
  const first = h('button', { type: 'button', id: 'msg-first', text: 'First page' });
  const prev = h('button', { type: 'button', id: 'msg-prev', text: '← Previous page' });
  const next = h('button', { type: 'button', id: 'msg-next', text: 'Next page →' });
  const info = h('p', { class: 'note', id: 'msg-info' });
  const body = h(
    'div',
    { class: 'panel-body flush', id: 'messages' },
    h('p', { class: 'empty', text: 'Loading…' }),
  );

  function restart(): void {
    st.cursor = null;
    st.visited = [];
    st.next = null;
    const q: Record<string, string> = { direction: st.direction };
    if (st.shard !== null) q.shard = String(st.shard);
    history.replaceState(null, '', consoleHref(['streams', r.p, 'groups', r.g, 'messages'], q));
    void refreshNow();
  }

  function syncButtons(): void {
    first.disabled = st.cursor === null;
    prev.disabled = st.visited.length === 0;
    next.disabled = !st.next;
  }

  shardSelect.addEventListener('change', () => {
    st.shard = Number(shardSelect.value);
    restart();
  });
  orderSelect.addEventListener('change', () => {
    st.direction = orderSelect.value === 'FORWARD' ? 'FORWARD' : 'BACKWARD';
    restart();
  });
  limitSelect.addEventListener('change', () => {
    st.limit = Number(limitSelect.value);
    restart();
  });
  first.addEventListener('click', () => restart());
  next.addEventListener('click', () => {
    if (!st.next) return;
    st.visited.push(st.cursor);
    st.cursor = st.next;
    syncButtons();
    void refreshNow();
  });
  prev.addEventListener('click', () => {
    if (!st.visited.length) return;
    st.cursor = st.visited.pop() ?? null;
    syncButtons();
    void refreshNow();
  });
  syncButtons();

  const renderShardOptions = (shards: number[]) =>
    fill(
      shardSelect,
      shards.map((i) => option(i, ':' + i + ' (' + r.p + ':' + i + ')', i === st.shard)),
    );

  async function refresh(): Promise<void> {
    const group = await admin.monitoringGroup(r.p, r.g);
    const shards = consumableOf(group);
    let changed = !st.shards || shards.join(',') !== st.shards.join(',');
    st.shards = shards;
    if (st.shard === null || shards.indexOf(st.shard) < 0) {
      const firstShard = shards[0];
      if (firstShard === undefined) {
        fill(shardSelect, null);
        fill(body, h('p', { class: 'empty', text: 'This group has no consumable shards.' }));
        return;
      }
      // A deep link to a shard that is no longer consumable falls back to the first one.
      st.shard = firstShard;
      changed = true;
    }
    if (changed) renderShardOptions(shards);
    const page = await admin.messages(r.p, r.g, st.shard, st);
    st.next = page.nextCursor || null;
    syncButtons();
    const records = page.records || [];
    const offset = st.visited.length * st.limit;
    fill(info, [
      'Shard ',
      mono(page.streamKey || r.p + ':' + st.shard),
      ' · ',
      st.direction === 'BACKWARD' ? 'newest first' : 'oldest first',
      ' · page ' + (st.visited.length + 1),
      ' · records ' + (records.length ? offset + 1 + '–' + (offset + records.length) : 'none'),
      st.next ? ' · more available' : ' · end of stream',
    ]);
    const headers = [
      { text: '#', cls: 'num shrink' },
      { text: 'Record id', cls: 'shrink' },
      { text: 'Time (UTC)', cls: 'shrink' },
      'Payload and fields',
    ];
    fill(
      body,
      records.length
        ? table(
            headers,
            records.map((rec, i) => recordRow(rec, offset + i + 1)),
          )
        : h('p', {
            class: 'empty',
            id: 'no-messages',
            text: st.cursor ? 'No more records in this direction.' : 'This shard is empty.',
          }),
    );
  }

  return {
    title: 'Messages · ' + r.p + ' / ' + r.g,
    crumbs: [
      { text: 'Groups', href: BASE },
      { text: groupLabel(r.p, r.g), href: groupHref(r.p, r.g), mono: true },
      { text: 'Messages' },
    ],
    el: h('div', null, [
      h('h1', null, ['Messages of ', mono(r.p), h('span', { class: 'muted', text: ' / ' }), mono(r.g)]),
      h('p', {
        class: 'subtitle',
        text: 'Read-only paging with XRANGE / XREVRANGE: browsing never moves the consumer group.',
      }),
      panel(
        'Shard messages',
        null,
        h('div', null, [
          h('div', { class: 'panel-body' }, [
            h('div', { class: 'controls' }, [
              h('label', null, ['Shard', shardSelect]),
              h('label', null, ['Order', orderSelect]),
              h('label', null, ['Page size', limitSelect]),
              h('span', { class: 'spacer' }),
              first,
              prev,
              next,
            ]),
            info,
          ]),
          body,
        ]),
      ),
    ]),
    refresh,
    fail: (e) => {
      fill(body, h('p', { class: 'empty' }, alertBox('Cannot load messages: ' + describeError(e))));
    },
  };
}
