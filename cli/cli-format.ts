/**
 * Human output of the CLI: aligned tables, key/value blocks and compact shard lists, rendered
 * from the API's answers. Additive fields (docs/protocol.md#deviations-from-the-reference) get defaults, so an answer from a
 * coordinator without them still renders.
 */
import { stripVTControlCharacters } from 'node:util';
import type { StreamShardOffsetsJson } from '../src/http/monitoring-views.js';
import type {
  AssignmentsResponseJson,
  GroupResponseJson,
  MembersResponseJson,
  MigrationJson,
} from '../src/http/schemas.js';
import { type Look, PLAIN } from './cli-look.js';
import { relativeTime } from './cli-time.js';

/** How wide `text` shows: its length without colour codes, which take no room on the screen. */
function shownWidth(text: string): number {
  return stripVTControlCharacters(text).length;
}

/** Columns padded to their widest cell (coloured cells by their shown width); the header row is upper-cased. */
export function table(
  headers: readonly string[],
  rows: ReadonlyArray<ReadonlyArray<string | number | null>>,
): string {
  const cells = [
    headers.map((h) => h.toUpperCase()),
    ...rows.map((r) => r.map((c) => (c === null ? '-' : String(c)))),
  ];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => shownWidth(r[i] ?? ''))));
  return cells
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat(widths[i]! - shownWidth(c))))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** A table column: its header, its cell for a row, and whether only `-o wide` shows it. */
export interface Column<T> {
  header: string;
  cell: (row: T) => string | number | null;
  wide?: boolean;
}

/** `rows` as a table of the columns `look` shows (the wide ones only with `-o wide`). */
export function columnTable<T>(columns: readonly Column<T>[], rows: readonly T[], look: Look): string {
  const shown = columns.filter((c) => look.wide || !c.wide);
  return table(
    shown.map((c) => c.header),
    rows.map((r) => shown.map((c) => c.cell(r))),
  );
}

/** `key: value` lines with the keys aligned. */
function keyValues(pairs: ReadonlyArray<readonly [string, string | number | null]>): string {
  const width = Math.max(...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `${`${k}:`.padEnd(width + 1)} ${v === null ? '-' : v}`).join('\n');
}

/** Shard indexes as ranges: `[0,1,2,3,5]` → `0-3,5`; empty → `-`. */
export function shardRanges(shards: ReadonlyArray<number | { shardIndex: number }>): string {
  const ids = [...new Set(shards.map((s) => (typeof s === 'number' ? s : s.shardIndex)))].sort(
    (a, b) => a - b,
  );
  if (ids.length === 0) return '-';
  const parts: string[] = [];
  let start = ids[0]!;
  let prev = start;
  for (const id of [...ids.slice(1), Number.NaN]) {
    if (id === prev + 1) {
      prev = id;
      continue;
    }
    parts.push(start === prev ? String(start) : `${start}-${prev}`);
    start = id;
    prev = id;
  }
  return parts.join(',');
}

/** A migration on one line: `reshard-… 4→8 ACTIVE`. */
export function migrationLine(m: MigrationJson, look: Look = PLAIN): string {
  const state = look.paint.status(m.state, 'migration');
  return `${m.reshardingId} ${m.fromShardCount}→${m.toShardCount} ${state} (updated ${m.updatedAt})`;
}

/** `GroupResponse` as a block plus its assignment summary (`removed: false` leaves out removed shards). */
export function formatGroup(
  g: GroupResponseJson,
  look: Look = PLAIN,
  opts: { removed?: boolean } = {},
): string {
  const lines = [
    keyValues([
      ['stream', g.streamPrefix],
      ['group', g.consumerGroup],
      ['state', look.paint.status(g.state, 'group')],
      ['shards', `${g.shardCount} (consumable ${shardRanges(g.consumableShards ?? [])})`],
      ['epochs', `group ${g.groupEpoch}, assignment ${g.assignmentEpoch}, metadata ${g.metadataVersion}`],
      ['migration', g.activeMigration ? migrationLine(g.activeMigration, look) : 'none'],
    ]),
  ];
  const removed = g.removedShards ?? [];
  if (removed.length > 0 && opts.removed !== false) {
    lines.push(
      '',
      'Removed shards (draining):',
      table(
        ['shard', 'state', 'reason'],
        removed.map((r) => [r.shardIndex, look.paint.status(r.state, 'removed-shard'), r.reason]),
      ),
    );
  }
  const target = g.targetAssignmentSummary ?? {};
  const current = g.currentAssignmentSummary ?? {};
  const members = [...new Set([...Object.keys(target), ...Object.keys(current)])].sort();
  lines.push('');
  if (members.length === 0) lines.push('No live members.');
  else {
    lines.push(
      table(
        ['member', 'target', 'current'],
        members.map((m) => [m, target[m] ?? 0, current[m] ?? 0]),
      ),
    );
  }
  return lines.join('\n');
}

type MemberJson = MembersResponseJson['members'][number];

/** The members view as a table; `-o wide` adds the instance name, versions, granted shards, deadline and pending records. */
export function formatMembers(body: MembersResponseJson, now: number, look: Look = PLAIN): string {
  const members = body.members ?? [];
  if (members.length === 0) return 'No members.';
  const columns: Column<MemberJson>[] = [
    { header: 'member', cell: (m) => m.memberId },
    { header: 'name', cell: (m) => m.memberName, wide: true },
    { header: 'state', cell: (m) => look.paint.status(m.state, 'member') },
    { header: 'epoch', cell: (m) => m.memberEpoch },
    { header: 'metadata', cell: (m) => m.metadataVersion, wide: true },
    { header: 'current', cell: (m) => shardRanges(m.currentAssignment ?? []) },
    { header: 'granted', cell: (m) => shardRanges(m.grantedAssignment ?? []), wide: true },
    { header: 'revoking', cell: (m) => shardRanges(m.revoking ?? []) },
    { header: 'lease', cell: (m) => relativeTime(m.memberLeaseExpiresAt, now, 'deadline') },
    { header: 'last heartbeat', cell: (m) => relativeTime(m.lastHeartbeatAt, now, 'past') },
    { header: 'rebalance by', cell: (m) => relativeTime(m.rebalanceDeadlineAt, now, 'deadline'), wide: true },
    {
      header: 'pending',
      cell: (m) => (m.shardProgress ?? []).reduce((sum, p) => sum + p.pendingCount, 0),
      wide: true,
    },
    { header: 'workers', cell: (m) => `${m.activeConsumerWorkers}/${m.runtimeMaxConcurrency}` },
  ];
  return columnTable(columns, members, look);
}

/** The assignments view: one row per member, then any invariant violations. */
export function formatAssignments(body: AssignmentsResponseJson, look: Look = PLAIN): string {
  const target = body.targetAssignment ?? {};
  const current = body.currentAssignments ?? {};
  const revoking = body.revokeProgress ?? {};
  const members = [
    ...new Set([...Object.keys(target), ...Object.keys(current), ...Object.keys(revoking)]),
  ].sort();
  const out = [
    members.length === 0
      ? 'No members.'
      : table(
          ['member', 'target', 'current', 'revoking'],
          members.map((m) => [
            m,
            shardRanges(target[m] ?? []),
            shardRanges(current[m] ?? []),
            shardRanges(revoking[m] ?? []),
          ]),
        ),
  ];
  const violations = body.invariantViolations ?? [];
  out.push(
    '',
    violations.length === 0
      ? `Invariants: ${look.paint.colour('ok', 'green')}`
      : `${look.paint.colour('Invariant violations', 'red')}:\n  ${violations.join('\n  ')}`,
  );
  return out.join('\n');
}

type ShardOffsetJson = StreamShardOffsetsJson['shards'][number];

const OFFSET_COLUMNS: readonly Column<ShardOffsetJson>[] = [
  { header: 'shard', cell: (s) => `${s.shard.shardIndex}${s.removed ? '*' : ''}` },
  { header: 'key', cell: (s) => s.streamKey },
  { header: 'length', cell: (s) => s.streamLength },
  { header: 'pending', cell: (s) => s.pendingCount },
  { header: 'lag', cell: (s) => s.lag },
  { header: 'delivered', cell: (s) => s.groupLastDeliveredId, wide: true },
  { header: 'last id', cell: (s) => s.lastRecordId, wide: true },
  { header: 'memory', cell: (s) => s.memoryUsageBytes, wide: true },
  { header: 'slot', cell: (s) => s.redisSlot, wide: true },
  { header: 'owners', cell: (s) => (s.ownerMemberIds ?? []).join(',') || '-' },
  { header: 'node', cell: (s) => s.redisNodeEndpoint ?? `slot ${s.redisSlot}` },
];

/** The offsets view: one row per shard (`-o wide`: last delivered and last ids, memory, slot), then totals. */
export function formatOffsets(body: StreamShardOffsetsJson, look: Look = PLAIN): string {
  const shards = body.shards ?? [];
  const totals = `total: length ${body.totalStreamLength}, pending ${body.totalPendingCount}, lag ${
    body.totalLag ?? 'unknown'
  }, memory ${body.memoryUsageKnown ? `${body.totalMemoryUsageBytes} bytes` : 'unknown'}`;
  const note = shards.some((s) => s.removed) ? '\n(* removed by a scale-in, still draining)' : '';
  return `${columnTable(OFFSET_COLUMNS, shards, look)}\n${totals}${note}`;
}

/** A `Migration` as a block. */
export function formatMigration(m: MigrationJson, look: Look = PLAIN): string {
  return keyValues([
    ['migration', m.reshardingId],
    ['shards', `${m.fromShardCount} → ${m.toShardCount}`],
    ['state', look.paint.status(m.state, 'migration')],
    ['created', m.createdAt],
    ['updated', m.updatedAt],
  ]);
}
