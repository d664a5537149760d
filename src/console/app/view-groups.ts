/**
 * The start page: coordinator health and the consumer groups (`/monitoring/groups`) a page at a
 * time (docs/console.md), each linking to its group view. Only the page's groups are read, their
 * lag included, so the page stays quick with 10,000 groups.
 */
import { describeError, type Optional, optional } from './api.js';
import type {
  GroupResponseJson,
  GroupRowJson,
  GroupsResponseJson,
  HealthResponseJson,
  MigrationJson,
} from './api-types.js';
import { admin } from './client.js';
import { fill, h } from './dom.js';
import { fmtNum, isNum } from './format.js';
import { groupHref, link } from './router.js';
import { refreshNow, type View } from './shell.js';
import { createStreamForm } from './stream-actions.js';
import { alertBox, badge, card, migrationBadge, mono, panel, stateBadge, table, td } from './widgets.js';

/** Number of keys of an object (0 for anything else). */
function countKeys(obj: unknown): number {
  return obj && typeof obj === 'object' ? Object.keys(obj).length : 0;
}

function sumValues(obj: Record<string, unknown> | null | undefined): number {
  let total = 0;
  if (obj && typeof obj === 'object') {
    for (const v of Object.values(obj)) if (isNum(v)) total += v;
  }
  return total;
}

/** Groups per page of the list. */
const PAGE_SIZE = 100;

function renderHealthCards(
  box: HTMLElement,
  health: Optional<HealthResponseJson | null>,
  list: GroupsResponseJson,
): void {
  const hd = health.data;
  let members = 0;
  for (const g of list.groups) members += countKeys(g.targetAssignmentSummary);
  const whole = isNum(list.totalGroups);
  fill(box, [
    card('Coordinator', hd ? stateBadge(hd.status) : badge('unknown'), 'health-status'),
    card('Redis', hd ? stateBadge(hd.redis) : badge('unknown'), 'health-redis'),
    card('Coordinator id', mono(hd ? hd.coordinatorId : '—')),
    whole
      ? card('Consumer groups', fmtNum(list.totalGroups), 'group-count')
      : card('Streams', fmtNum(list.totalStreams), 'stream-count'),
    card(whole ? 'Live members' : 'Live members (this page)', fmtNum(members)),
  ]);
}

function migrationCell(m: MigrationJson | null | undefined): HTMLSpanElement {
  if (!m) return h('span', { class: 'muted', text: '—' });
  return h('span', { class: 'chips' }, [
    migrationBadge(m.state),
    h('span', { class: 'small muted', text: m.fromShardCount + ' → ' + m.toShardCount }),
  ]);
}

/** `<prefix>\u0000<group>`: the key of a group in maps. */
const keyOf = (p: string, g: string) => p + '\u0000' + g;

/** Lag and pending of each group (from the Grafana rows), or null when they could not be read. */
type LagByGroup = Map<string, GroupRowJson> | null;

function lagCell(row: GroupRowJson | undefined, lag: LagByGroup): HTMLTableCellElement {
  if (!lag || !row) return td(h('span', { class: 'muted', text: '—' }), 'num');
  return td(row.totalLag === null ? 'unknown' : fmtNum(row.totalLag), 'num lag');
}

function groupRow(g: GroupResponseJson, lag: LagByGroup): HTMLTableRowElement {
  const removed = Array.isArray(g.removedShards) ? g.removedShards.length : 0;
  const row = lag?.get(keyOf(g.streamPrefix, g.consumerGroup));
  return h('tr', { 'data-group': g.streamPrefix + '/' + g.consumerGroup }, [
    td(mono(g.streamPrefix)),
    td(link(groupHref(g.streamPrefix, g.consumerGroup), mono(g.consumerGroup), 'group-link')),
    td(stateBadge(g.state)),
    td(fmtNum(g.shardCount) + (removed ? ' (+' + removed + ' draining)' : ''), 'num'),
    td(fmtNum(countKeys(g.targetAssignmentSummary)), 'num'),
    td(fmtNum(sumValues(g.currentAssignmentSummary)) + ' / ' + fmtNum(g.shardCount + removed), 'num'),
    lagCell(row, lag),
    td(lag && row ? fmtNum(row.totalPendingCount) : '—', 'num pending'),
    td(fmtNum(g.groupEpoch) + ' / ' + fmtNum(g.assignmentEpoch), 'num'),
    td(fmtNum(g.metadataVersion), 'num'),
    td(migrationCell(g.activeMigration)),
  ]);
}

function renderGroupsTable(body: HTMLElement, groups: GroupResponseJson[], lag: LagByGroup): void {
  if (!groups.length) {
    fill(
      body,
      h('p', {
        class: 'empty',
        id: 'no-groups',
        text: 'No consumer groups yet. Create a stream with POST /coord/v1/streams/{prefix}.',
      }),
    );
    return;
  }
  const key = (g: GroupResponseJson) => keyOf(g.streamPrefix, g.consumerGroup);
  const sorted = groups.slice().sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  fill(
    body,
    table(
      [
        'Stream',
        'Consumer group',
        'State',
        { text: 'Shards', cls: 'num' },
        { text: 'Members', cls: 'num' },
        { text: 'Assigned', cls: 'num' },
        { text: 'Lag', cls: 'num' },
        { text: 'Pending', cls: 'num' },
        { text: 'Epochs (group / assign.)', cls: 'num' },
        { text: 'Metadata v.', cls: 'num' },
        'Migration',
      ],
      sorted.map((g) => groupRow(g, lag)),
    ),
  );
}

/** The groups list. */
export function groupsView(): View {
  const cards = h('div', { class: 'cards', id: 'health' });
  const body = h(
    'div',
    { class: 'panel-body flush', id: 'groups' },
    h('p', { class: 'empty', text: 'Loading…' }),
  );
  // The page shown is named by the cursor it was read with; `visited` holds the earlier ones.
  const st = {
    cursor: null as string | null,
    visited: [] as Array<string | null>,
    next: null as string | null,
  };
  const first = h('button', { type: 'button', id: 'groups-first', text: 'First page' });
  const prev = h('button', { type: 'button', id: 'groups-prev', text: '← Previous page' });
  const next = h('button', { type: 'button', id: 'groups-next', text: 'Next page →' });
  const info = h('p', { class: 'note', id: 'groups-info' });
  const syncButtons = () => {
    first.disabled = st.cursor === null;
    prev.disabled = st.visited.length === 0;
    next.disabled = !st.next;
  };
  const go = (cursor: string | null, visited: Array<string | null>) => {
    st.cursor = cursor;
    st.visited = visited;
    syncButtons();
    void refreshNow();
  };
  first.addEventListener('click', () => go(null, []));
  prev.addEventListener('click', () => go(st.visited.at(-1) ?? null, st.visited.slice(0, -1)));
  next.addEventListener('click', () => {
    if (st.next) go(st.next, [...st.visited, st.cursor]);
  });
  syncButtons();
  const refresh = async () => {
    const q = { limit: PAGE_SIZE, cursor: st.cursor };
    const [list, health, rows] = await Promise.all([
      admin.groups(q),
      optional(admin.health()),
      optional(admin.groupRows(q)),
    ]);
    const groups = list?.groups || [];
    st.next = list?.nextCursor ?? null;
    syncButtons();
    const offset = st.visited.length * PAGE_SIZE;
    fill(info, [
      'Page ' + (st.visited.length + 1),
      ' · groups ' + (groups.length ? offset + 1 + '–' + (offset + groups.length) : 'none'),
      isNum(list?.totalGroups)
        ? ' of ' + fmtNum(list.totalGroups)
        : ' · ' + fmtNum(list?.totalStreams) + ' streams',
      st.next ? ' · more on the next page' : '',
    ]);
    // Lag needs Redis reads; without them (no inspector, an error) the column shows '—'.
    const lag: LagByGroup = rows.data
      ? new Map(rows.data.map((r) => [keyOf(r.streamPrefix, r.consumerGroup), r]))
      : null;
    renderHealthCards(cards, health, { ...list, groups });
    renderGroupsTable(body, groups, lag);
  };
  return {
    title: 'Groups',
    crumbs: [{ text: 'Groups' }],
    el: h('div', null, [
      h('h1', { text: 'Consumer groups' }),
      h('p', {
        class: 'subtitle',
        text: `Every group the coordinator tracks, ${PAGE_SIZE} a page in stream order. Open one for its shards, members, migration and messages.`,
      }),
      cards,
      panel(
        'Groups',
        'GET /coord/v1/monitoring/groups',
        h('div', null, [
          h('div', { class: 'panel-body' }, [
            h('div', { class: 'controls' }, [h('span', { class: 'spacer' }), first, prev, next]),
            info,
          ]),
          body,
        ]),
      ),
      panel('Create stream', 'POST /coord/v1/streams/{prefix} · WRITE', createStreamForm()),
    ]),
    refresh,
    fail: (e) => {
      fill(body, h('p', { class: 'empty' }, alertBox('Cannot load the groups: ' + describeError(e))));
    },
  };
}
