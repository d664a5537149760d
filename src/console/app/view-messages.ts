/**
 * The message browser of one shard (`/monitoring/streams/{p}/groups/{g}/shards/{i}/messages`)
 * or of every consumable shard merged by id (`/monitoring/grafana/messages?shardIndex=all`),
 * newest or oldest first, paging on with the next cursor and back through the cursors already
 * visited. Every consumable shard is offered, draining ones (docs/protocol.md#resharding)
 * included and marked. Pure reads: browsing never moves a consumer group.
 */
import { describeError } from './api.js';
import type { GroupResponseJson } from './api-types.js';
import { admin } from './client.js';
import { fill, h } from './dom.js';
import { fmtNum, shardIndexOf } from './format.js';
import { mergedRecord, recordHeaders, recordRow, type ShownRecord, shardRecord } from './message-rows.js';
import { BASE, consoleHref, groupHref, groupLabel, link, pendingHref } from './router.js';
import { refreshNow, type View } from './shell.js';
import { consumableOf } from './view-shards.js';
import { alertBox, mono, panel, table } from './widgets.js';

const PAGE_SIZES = [10, 25, 50, 100];

type Direction = 'FORWARD' | 'BACKWARD';

/** `?shard=all`: every consumable shard merged by record id. */
const ALL = 'all';

/** What is browsed: one shard, or every consumable shard merged by id. */
type Selection = number | typeof ALL;

function option(value: string | number, label: string, selected: boolean): HTMLOptionElement {
  return h('option', { value: String(value), selected, text: label });
}

/** `:2 (orders:2)`, with ` · draining` for a shard a scale-in removed. */
function shardOptionLabel(p: string, shard: number, removed: ReadonlyMap<number, string>): string {
  const state = removed.get(shard);
  return ':' + shard + ' (' + p + ':' + shard + ')' + (state ? ' · ' + state.toLowerCase() : '');
}

/** Removed shards still consumable, by index, with their drain state. */
function removedStates(group: GroupResponseJson): Map<number, string> {
  const out = new Map<number, string>();
  for (const r of group.removedShards || []) {
    const i = shardIndexOf(r);
    if (i !== null) out.set(i, r.state || 'DRAINING');
  }
  return out;
}

/** One page of what is selected: its records and the cursor of the next page. */
interface Page {
  records: ShownRecord[];
  next: string | null;
  streamKey: string | null;
  /** Records of every consumable shard together (merged pages only). */
  total: number | null;
}

/** The message browser of group `g` of stream `p`, at `shard` (or the first) in `direction`. */
export function messagesView(r: {
  p: string;
  g: string;
  shard: string | null;
  direction: string | null;
}): View {
  const asked: Selection | null =
    r.shard === ALL ? ALL : r.shard !== null && /^\d+$/.test(r.shard) ? Number(r.shard) : null;
  const st = {
    shard: asked,
    direction: (r.direction === 'FORWARD' ? 'FORWARD' : 'BACKWARD') as Direction,
    limit: 25,
    cursor: null as string | null,
    visited: [] as Array<string | null>,
    next: null as string | null,
    options: null as string | null,
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
    st.shard = shardSelect.value === ALL ? ALL : Number(shardSelect.value);
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

  /** Redraws the options when the consumable shards or their states changed. */
  function renderShardOptions(shards: number[], removed: Map<number, string>): void {
    const labels = shards.map((i) => shardOptionLabel(r.p, i, removed));
    const key = labels.join('\n') + '\n' + String(st.shard);
    if (key === st.options) return;
    st.options = key;
    fill(shardSelect, [
      option(ALL, 'All shards (' + shards.length + ', merged by id)', st.shard === ALL),
      shards.map((i, n) => option(i, labels[n] ?? String(i), i === st.shard)),
    ]);
  }

  async function readPage(shard: Selection): Promise<Page> {
    const q = { direction: st.direction, limit: st.limit, cursor: st.cursor };
    if (shard === ALL) {
      const rows = await admin.allShardMessages(r.p, r.g, q);
      const last = rows[rows.length - 1];
      return {
        records: rows.map(mergedRecord),
        next: last?.pageNextCursor ?? null,
        streamKey: null,
        total: last ? last.pageTotalMessages : null,
      };
    }
    const page = await admin.messages(r.p, r.g, shard, q);
    return {
      records: (page.records || []).map((rec) => shardRecord(rec, shard)),
      next: page.nextCursor || null,
      streamKey: page.streamKey || r.p + ':' + shard,
      total: null,
    };
  }

  async function refresh(): Promise<void> {
    const group = await admin.monitoringGroup(r.p, r.g);
    const shards = consumableOf(group);
    const firstShard = shards[0];
    if (firstShard === undefined) {
      st.options = null;
      fill(shardSelect, null);
      fill(info, null);
      fill(body, h('p', { class: 'empty', text: 'This group has no consumable shards.' }));
      return;
    }
    // A deep link to a shard that is no longer consumable falls back to the first one.
    if (st.shard === null || (st.shard !== ALL && shards.indexOf(st.shard) < 0)) st.shard = firstShard;
    const shard: Selection = st.shard;
    renderShardOptions(shards, removedStates(group));
    const page = await readPage(shard);
    st.next = page.next;
    syncButtons();
    const offset = st.visited.length * st.limit;
    fill(info, [
      shard === ALL ? 'All ' + shards.length + ' shards, merged by id' : 'Shard ',
      page.streamKey ? mono(page.streamKey) : null,
      ' · ',
      st.direction === 'BACKWARD' ? 'newest first' : 'oldest first',
      ' · page ' + (st.visited.length + 1),
      ' · records ' +
        (page.records.length ? offset + 1 + '–' + (offset + page.records.length) : 'none') +
        (page.total !== null ? ' of ' + fmtNum(page.total) : ''),
      st.next ? ' · more available' : ' · end of stream',
    ]);
    const merged = shard === ALL;
    fill(
      body,
      page.records.length
        ? table(
            recordHeaders(merged),
            page.records.map((rec, i) => recordRow(rec, offset + i + 1, merged)),
          )
        : h('p', {
            class: 'empty',
            id: 'no-messages',
            text: st.cursor
              ? 'No more records in this direction.'
              : merged
                ? 'Every shard is empty.'
                : 'This shard is empty.',
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
      h('p', { class: 'subtitle' }, [
        'Read-only paging with XRANGE / XREVRANGE: browsing never moves the consumer group. ',
        link(pendingHref(r.p, r.g), 'Pending entries', 'pending-link'),
      ]),
      panel(
        'Messages',
        'one shard, or all consumable shards merged by record id',
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
