/**
 * The shard ownership grid of a group: one tile per consumable shard with its target and
 * current owners, pending/revoking flags, lag and pending from `/offsets` (the count links to the
 * pending page), the oldest pending entry's age from `/lag`, and removed (draining) shards marked.
 */
import { describeError } from './api.js';
import type {
  AssignmentsResponseJson,
  GroupResponseJson,
  MembersResponseJson,
  StreamShardOffsetJson,
  StreamShardOffsetsJson,
} from './api-types.js';
import { append, type Child, fill, h } from './dom.js';
import { fmtDuration, fmtNum, range, shardIndexOf, shardList } from './format.js';
import { type GroupData, LIVE_OWNER } from './group-data.js';
import { link, messagesHref, pendingHref } from './router.js';
import { alertBox, badge, idChips, mono } from './widgets.js';

/** A removed shard as a tile shows it. */
interface RemovedMark {
  state?: string | null;
  reason?: string | null;
}

/** One tile of the grid. */
interface ShardRow {
  shard: number;
  streamKey: string;
  target: string[];
  current: string[];
  revoking: string[];
  pending: boolean;
  unassigned: boolean;
  removed: RemovedMark | null;
  offsets: StreamShardOffsetJson | null;
  /** Age of the oldest entry delivered and not acknowledged (ms), null when none or unknown. */
  oldestPendingMs: number | null;
}

// member -> [shard] into shard -> [member].
function invertAssignments(
  byMember: unknown,
  keep?: ((member: string) => boolean) | null,
): Record<number, string[]> {
  const out: Record<number, string[]> = {};
  if (!byMember || typeof byMember !== 'object') return out;
  const map = byMember as Record<string, unknown>;
  for (const member of Object.keys(map).sort()) {
    if (keep && !keep(member)) continue;
    for (const s of shardList(map[member])) {
      const list = out[s] ?? [];
      list.push(member);
      out[s] = list;
    }
  }
  return out;
}

/** The shards consumers read: `consumableShards`, or shard count plus removed shards. */
export function consumableOf(group: Partial<GroupResponseJson> | null | undefined): number[] {
  if (group && Array.isArray(group.consumableShards)) return shardList(group.consumableShards);
  const shards = range(0, group?.shardCount || 0);
  for (const r of group?.removedShards || []) {
    const i = shardIndexOf(r);
    if (i !== null && shards.indexOf(i) < 0) shards.push(i);
  }
  return shards.sort((a, b) => a - b);
}

/** Joins the group, assignments, members and offsets into one row per consumable shard. */
function shardRows(
  group: GroupResponseJson,
  assignments: AssignmentsResponseJson | null,
  members: MembersResponseJson | null,
  offsets: StreamShardOffsetsJson | null,
  oldestPending: ReadonlyMap<number, number>,
): ShardRow[] {
  let live: ((id: string) => boolean) | null = null;
  if (members) {
    // Prototype-free: a member named __proto__ or constructor is an ordinary key.
    const states: Record<string, string> = Object.create(null);
    for (const m of members.members || []) states[m.memberId] = m.state;
    live = (id) => !!LIVE_OWNER[states[id] ?? ''];
  }
  const targets = invertAssignments(assignments?.targetAssignment);
  const currents = invertAssignments(assignments?.currentAssignments, live);
  const revoking = invertAssignments(assignments?.revokeProgress);
  const off: Record<number, StreamShardOffsetJson> = {};
  for (const s of offsets?.shards || []) {
    const i = shardIndexOf(s);
    if (i !== null) off[i] = s;
  }
  const removed: Record<number, RemovedMark> = {};
  for (const r of group.removedShards || []) {
    const i = shardIndexOf(r);
    if (i !== null) removed[i] = r;
  }
  const shards = consumableOf(group);
  for (const k of Object.keys(off)) if (shards.indexOf(Number(k)) < 0) shards.push(Number(k));
  shards.sort((x, y) => x - y);
  return shards.map((i) => {
    const o = off[i] || null;
    // Without the members view, fall back to the live owners /offsets reports.
    const current = assignments ? currents[i] || [] : o?.ownerMemberIds || [];
    const target = targets[i] || [];
    return {
      shard: i,
      streamKey: o ? o.streamKey : group.streamPrefix + ':' + i,
      target,
      current,
      revoking: revoking[i] || [],
      pending: target.some((t) => current.indexOf(t) < 0),
      unassigned: assignments ? target.length === 0 : false,
      removed: removed[i] || (o?.removed ? { state: 'DRAINING', reason: null } : null),
      offsets: o,
      oldestPendingMs: oldestPending.get(i) ?? null,
    };
  });
}

function shardTile(row: ShardRow, p: string, g: string): HTMLDivElement {
  const oldest = row.oldestPendingMs;
  const flags: Node[] = [];
  if (row.removed) flags.push(badge('REMOVED · ' + (row.removed.state || 'DRAINING'), 'bad'));
  if (row.pending) flags.push(badge('PENDING', 'warn'));
  if (row.revoking.length) flags.push(badge('REVOKING', 'warn'));
  if (row.unassigned && !row.removed) flags.push(badge('UNASSIGNED'));
  if (!flags.length) flags.push(badge('OWNED', 'ok'));
  const cls =
    'shard' +
    (row.removed ? ' removed' : '') +
    (row.pending ? ' pending' : '') +
    (row.revoking.length ? ' revoking' : '') +
    (row.unassigned ? ' unassigned' : '');
  const o = row.offsets;
  const lagText = o ? (o.lag === null || o.lag === undefined ? 'unknown' : fmtNum(o.lag)) : '—';
  const items: Array<[string, Child] | null> = [
    ['Target', idChips(row.target)],
    ['Current', idChips(row.current)],
    row.revoking.length ? ['Revoking', idChips(row.revoking)] : null,
    ['Lag', h('span', { class: 'lag', text: lagText })],
    // Who holds them and since when: the pending page.
    ['Pending', link(pendingHref(p, g), o ? fmtNum(o.pendingCount) : '—', 'pending-count')],
    oldest === null
      ? null
      : ['Oldest pending', h('span', { class: 'oldest-pending', text: fmtDuration(oldest) })],
    ['Length', o ? fmtNum(o.streamLength) : '—'],
    ['Last id', o?.lastRecordId ? mono(o.lastRecordId) : h('span', { class: 'muted', text: '—' })],
    row.removed?.reason ? ['Why', h('span', { class: 'small', text: row.removed.reason })] : null,
  ];
  const dl = h('dl', null, []);
  for (const it of items) if (it) append(dl, [h('dt', { text: it[0] }), h('dd', null, it[1])]);
  return h('div', { class: cls, 'data-shard': String(row.shard) }, [
    h('div', { class: 'shard-head' }, [
      link(messagesHref(p, g, row.shard), mono(':' + row.shard, 'shard-id'), null),
      h('span', { class: 'flags' }, flags),
    ]),
    h('div', { class: 'small muted mono', text: row.streamKey }),
    dl,
  ]);
}

/** The grid with its legend (and notes on what could not be read). */
export function renderShardGrid(body: HTMLElement, ctx: GroupData): void {
  const oldest = new Map<number, number>();
  for (const s of ctx.lag.data?.shards || []) {
    if (s.pending > 0 && s.oldestPendingAgeMs !== null) oldest.set(s.shardIndex, s.oldestPendingAgeMs);
  }
  const rows = shardRows(ctx.group, ctx.assignments.data, ctx.members.data, ctx.offsets.data, oldest);
  const notes: Node[] = [];
  if (ctx.offsets.error) {
    notes.push(alertBox('Lag and pending are unavailable: ' + describeError(ctx.offsets.error), 'warn'));
  }
  if (ctx.assignments.error) {
    notes.push(alertBox('Assignments are unavailable: ' + describeError(ctx.assignments.error), 'warn'));
  }
  const legend = h('div', { class: 'legend' }, [
    h('span', null, [h('i', { class: 'ok' }), 'held by its target owner']),
    h('span', null, [h('i', { class: 'warn' }), 'moving: pending grant or being revoked']),
    h('span', null, [h('i', { class: 'off' }), 'no target owner']),
    h('span', null, [h('i', { class: 'bad' }), 'removed by a scale-in, draining']),
  ]);
  fill(body, [
    notes.length ? h('div', { class: 'pad-top' }, notes) : null,
    rows.length
      ? h(
          'div',
          { class: 'shard-grid', id: 'shard-grid' },
          rows.map((r) => shardTile(r, ctx.p, ctx.g)),
        )
      : h('p', { class: 'empty', text: 'This group has no consumable shards (shard count 0).' }),
    h('div', { class: 'pad-bottom' }, legend),
  ]);
}
