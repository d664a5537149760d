/**
 * Human output of the CLI: aligned tables, key/value blocks and compact shard lists, rendered
 * from the API's answers. Additive fields (docs/protocol.md#deviations-from-the-reference) get defaults, so an answer from a
 * coordinator without them still renders.
 */
import type { StreamShardOffsetsJson } from '../src/http/monitoring-views.js';
import type {
  AssignmentsResponseJson,
  GroupResponseJson,
  MembersResponseJson,
  MigrationJson,
} from '../src/http/schemas.js';

/** Columns padded to their widest cell; the header row is upper-cased. */
export function table(
  headers: readonly string[],
  rows: ReadonlyArray<ReadonlyArray<string | number | null>>,
): string {
  const cells = [
    headers.map((h) => h.toUpperCase()),
    ...rows.map((r) => r.map((c) => (c === null ? '-' : String(c)))),
  ];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
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

/** Seconds from `now` to an ISO instant, e.g. `in 12s` / `3s ago` / `now` (within half a second). */
export function relativeTime(iso: string | null, now: number): string {
  if (!iso) return '-';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const s = Math.round((t - now) / 1000);
  if (s === 0) return 'now';
  return s > 0 ? `in ${s}s` : `${-s}s ago`;
}

/** A migration on one line: `reshard-… 4→8 ACTIVE`. */
export function migrationLine(m: MigrationJson): string {
  return `${m.reshardingId} ${m.fromShardCount}→${m.toShardCount} ${m.state} (updated ${m.updatedAt})`;
}

/** `GroupResponse` as a block plus its assignment summary (`removed: false` leaves out removed shards). */
export function formatGroup(g: GroupResponseJson, opts: { removed?: boolean } = {}): string {
  const lines = [
    keyValues([
      ['stream', g.streamPrefix],
      ['group', g.consumerGroup],
      ['state', g.state],
      ['shards', `${g.shardCount} (consumable ${shardRanges(g.consumableShards ?? [])})`],
      ['epochs', `group ${g.groupEpoch}, assignment ${g.assignmentEpoch}, metadata ${g.metadataVersion}`],
      ['migration', g.activeMigration ? migrationLine(g.activeMigration) : 'none'],
    ]),
  ];
  const removed = g.removedShards ?? [];
  if (removed.length > 0 && opts.removed !== false) {
    lines.push(
      '',
      'Removed shards (draining):',
      table(
        ['shard', 'state', 'reason'],
        removed.map((r) => [r.shardIndex, r.state, r.reason]),
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

/** The members view as a table. */
export function formatMembers(body: MembersResponseJson, now: number): string {
  const members = body.members ?? [];
  if (members.length === 0) return 'No members.';
  return table(
    ['member', 'state', 'epoch', 'current', 'revoking', 'lease', 'last heartbeat', 'workers'],
    members.map((m) => [
      m.memberId,
      m.state,
      m.memberEpoch,
      shardRanges(m.currentAssignment ?? []),
      shardRanges(m.revoking ?? []),
      relativeTime(m.memberLeaseExpiresAt, now),
      relativeTime(m.lastHeartbeatAt, now),
      `${m.activeConsumerWorkers}/${m.runtimeMaxConcurrency}`,
    ]),
  );
}

/** The assignments view: one row per member, then any invariant violations. */
export function formatAssignments(body: AssignmentsResponseJson): string {
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
    violations.length === 0 ? 'Invariants: ok' : `Invariant violations:\n  ${violations.join('\n  ')}`,
  );
  return out.join('\n');
}

/** The offsets view: one row per shard, then totals. */
export function formatOffsets(body: StreamShardOffsetsJson): string {
  const shards = body.shards ?? [];
  const rows = shards.map((s) => [
    `${s.shard.shardIndex}${s.removed ? '*' : ''}`,
    s.streamKey,
    s.streamLength,
    s.pendingCount,
    s.lag,
    (s.ownerMemberIds ?? []).join(',') || '-',
    s.redisNodeEndpoint ?? `slot ${s.redisSlot}`,
  ]);
  const totals = `total: length ${body.totalStreamLength}, pending ${body.totalPendingCount}, lag ${
    body.totalLag ?? 'unknown'
  }, memory ${body.memoryUsageKnown ? `${body.totalMemoryUsageBytes} bytes` : 'unknown'}`;
  const note = shards.some((s) => s.removed) ? '\n(* removed by a scale-in, still draining)' : '';
  return `${table(['shard', 'key', 'length', 'pending', 'lag', 'owners', 'node'], rows)}\n${totals}${note}`;
}

/** A `Migration` as a block. */
export function formatMigration(m: MigrationJson): string {
  return keyValues([
    ['migration', m.reshardingId],
    ['shards', `${m.fromShardCount} → ${m.toShardCount}`],
    ['state', m.state],
    ['created', m.createdAt],
    ['updated', m.updatedAt],
  ]);
}
