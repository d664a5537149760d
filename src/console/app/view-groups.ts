/**
 * The start page: coordinator health and every consumer group (`/monitoring/groups`), each
 * linking to its group view.
 */
import { describeError, type Optional, optional } from './api.js';
import type { GroupResponseJson, GroupRowJson, HealthResponseJson, MigrationJson } from './api-types.js';
import { admin } from './client.js';
import { fill, h } from './dom.js';
import { fmtNum, isNum } from './format.js';
import { groupHref, link } from './router.js';
import type { View } from './shell.js';
import { alertBox, badge, card, mono, panel, stateBadge, table, td } from './widgets.js';

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

function renderHealthCards(
  box: HTMLElement,
  health: Optional<HealthResponseJson | null>,
  groups: GroupResponseJson[],
): void {
  const hd = health.data;
  let members = 0;
  for (const g of groups) members += countKeys(g.targetAssignmentSummary);
  fill(box, [
    card('Coordinator', hd ? stateBadge(hd.status) : badge('unknown'), 'health-status'),
    card('Redis', hd ? stateBadge(hd.redis) : badge('unknown'), 'health-redis'),
    card('Coordinator id', mono(hd ? hd.coordinatorId : '—')),
    card('Consumer groups', fmtNum(groups.length), 'group-count'),
    card('Live members', fmtNum(members)),
  ]);
}

function migrationCell(m: MigrationJson | null | undefined): HTMLSpanElement {
  if (!m) return h('span', { class: 'muted', text: '—' });
  return h('span', { class: 'chips' }, [
    stateBadge(m.state),
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
  return {
    title: 'Groups',
    crumbs: [{ text: 'Groups' }],
    el: h('div', null, [
      h('h1', { text: 'Consumer groups' }),
      h('p', {
        class: 'subtitle',
        text: 'Every group the coordinator tracks. Open one for its shards, members, migration and messages.',
      }),
      cards,
      panel('Groups', 'GET /coord/v1/monitoring/groups', body),
    ]),
    refresh: async () => {
      const [list, health, rows] = await Promise.all([
        admin.groups(),
        optional(admin.health()),
        optional(admin.groupRows()),
      ]);
      const groups = list?.groups || [];
      // Lag needs Redis reads; without them (no inspector, an error) the column shows '—'.
      const lag: LagByGroup = rows.data
        ? new Map(rows.data.map((r) => [keyOf(r.streamPrefix, r.consumerGroup), r]))
        : null;
      renderHealthCards(cards, health, groups);
      renderGroupsTable(body, groups, lag);
    },
    fail: (e) => {
      fill(body, h('p', { class: 'empty' }, alertBox('Cannot load the groups: ' + describeError(e))));
    },
  };
}
