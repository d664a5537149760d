/**
 * `watch <prefix> <group>`: a live view of a group, its members, per-shard ownership and lag,
 * and its active migration, redrawn every interval until Ctrl-C or `--iterations` frames.
 * A failing coordinator (5xx, unreachable) is shown and retried; 4xx and auth failures stop it.
 */
import type { StreamShardOffsetJson, StreamShardOffsetsJson } from '../src/http/monitoring-views.js';
import type {
  AssignmentsResponseJson,
  GroupResponseJson,
  MembersResponseJson,
  MigrationsResponseJson,
  ShardIdJson,
} from '../src/http/schemas.js';
import { allowOnly, intOption, outputFormat } from './cli-args.js';
import type { CliClient } from './cli-client.js';
import { type ApiCommand, lookOf, render } from './cli-context.js';
import { CliFailure, EXIT, usageError } from './cli-errors.js';
import { formatGroup, formatMembers, shardRanges, table } from './cli-format.js';
import type { Look } from './cli-look.js';

const CLEAR_SCREEN = '\x1b[2J\x1b[H';

/** Everything one frame shows; `offsets`/`migrations` are null where the coordinator cannot serve them. */
interface Frame {
  at: string;
  group: GroupResponseJson;
  members: MembersResponseJson;
  assignments: AssignmentsResponseJson;
  offsets: StreamShardOffsetsJson | null;
  migrations: MigrationsResponseJson | null;
}

/** A view the frame can do without (offsets need Redis reads: 503 without an inspector). */
function optional<T>(request: Promise<T>): Promise<T | null> {
  return request.catch((err: unknown) => {
    if (err instanceof CliFailure && err.exitCode === EXIT.AUTH) throw err;
    return null;
  });
}

async function loadFrame(api: CliClient, p: string, g: string, now: number): Promise<Frame> {
  const [group, members, assignments, offsets, migrations] = await Promise.all([
    api.group(p, g),
    api.members(p, g),
    api.assignments(p, g),
    optional(api.offsets(p, g)),
    optional(api.migrations(p, g)),
  ]);
  return { at: new Date(now).toISOString(), group, members, assignments, offsets, migrations };
}

/** The active migration's rollback eligibility and each removed shard's drain state. */
function migrationBlock(migrations: MigrationsResponseJson, look: Look): string | null {
  const removed = migrations.removedShards ?? [];
  if (migrations.activeReshardingId === null && removed.length === 0) return null;
  const lines: string[] = [];
  if (migrations.activeReshardingId !== null) {
    const rb = migrations.rollback ?? { allowed: false, reason: null };
    lines.push(`Rollback: ${rb.allowed ? 'allowed' : `not allowed${rb.reason ? ` (${rb.reason})` : ''}`}`);
  }
  if (removed.length > 0) {
    lines.push(
      'Removed shards:',
      table(
        ['shard', 'state', 'holders', 'drained', 'reason'],
        removed.map((r) => {
          const ev = r.liveEvidence ?? r.lastEvidence;
          return [
            r.shardIndex,
            look.paint.status(r.state, 'removed-shard'),
            (r.holders ?? []).map((h) => `${h.consumerGroup}/${h.memberId}`).join(',') || '-',
            ev ? (ev.drained ? 'yes' : 'no') : null,
            ev?.reason ?? r.reason,
          ];
        }),
      ),
    );
  }
  return lines.join('\n');
}

/** Owners of each shard in a `{member: [ShardId]}` map. */
function ownersByShard(map: Record<string, ShardIdJson[]> | undefined): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const [member, shards] of Object.entries(map ?? {})) {
    for (const s of shards) out.set(s.shardIndex, [...(out.get(s.shardIndex) ?? []), member]);
  }
  return out;
}

/** One row per consumable shard: target, current and revoking owners, plus Redis progress. */
function shardGrid(
  group: GroupResponseJson,
  assignments: AssignmentsResponseJson,
  offsets: StreamShardOffsetsJson | null,
): string {
  const target = ownersByShard(assignments.targetAssignment);
  const current = ownersByShard(assignments.currentAssignments);
  const revoking = ownersByShard(assignments.revokeProgress);
  const readings = new Map<number, StreamShardOffsetJson>(
    (offsets?.shards ?? []).map((s) => [s.shard.shardIndex, s]),
  );
  const removed = new Set((group.removedShards ?? []).map((r) => r.shardIndex));
  const shards = (group.consumableShards ?? []).map((s) => s.shardIndex);
  const names = (list: string[] | undefined) => (list && list.length > 0 ? list.sort().join(',') : '-');
  return table(
    ['shard', 'target', 'current', 'revoking', 'length', 'pending', 'lag'],
    shards.map((i) => {
      const r = readings.get(i);
      return [
        `${i}${removed.has(i) ? '*' : ''}`,
        names(target.get(i)),
        names(current.get(i)),
        names(revoking.get(i)),
        r ? r.streamLength : null,
        r ? r.pendingCount : null,
        r ? r.lag : null,
      ];
    }),
  );
}

function renderFrame(f: Frame, p: string, g: string, intervalMs: number, now: number, look: Look): string {
  const lines = [
    `watch ${p} / ${g} — ${f.at} (every ${intervalMs} ms, Ctrl-C to stop)`,
    '',
    // The migrations view shows removed shards in more detail; show them once.
    formatGroup(f.group, look, { removed: f.migrations === null }),
    '',
    'Members:',
    formatMembers(f.members, now, look),
    '',
    `Shards (consumable ${shardRanges(f.group.consumableShards ?? [])}${
      (f.group.removedShards ?? []).length > 0 ? '; * = removed, draining' : ''
    }):`,
    shardGrid(f.group, f.assignments, f.offsets),
  ];
  const migration = f.migrations ? migrationBlock(f.migrations, look) : null;
  if (migration) lines.push('', migration);
  const violations = f.assignments.invariantViolations ?? [];
  if (violations.length > 0)
    lines.push('', `${look.paint.colour('Invariant violations', 'red')}:\n  ${violations.join('\n  ')}`);
  if (f.offsets === null)
    lines.push('', '(offsets unavailable: no Redis-backed monitoring on this coordinator)');
  return lines.join('\n');
}

/** `watch <prefix> <group> [--interval MS] [--iterations N]`. */
export const watch: ApiCommand = async (args, cl, ctx, api) => {
  allowOnly(cl.values, ['interval', 'iterations'], 'watch');
  const format = outputFormat(cl.values);
  if (args.length !== 2 || args.some((a) => a.trim() === '')) {
    throw usageError('watch <prefix> <group> [--interval MS] [--iterations N]');
  }
  const [p, g] = args as [string, string];
  const intervalMs = intOption(cl.values, 'interval', 100, 3_600_000) ?? 1000;
  const iterations = intOption(cl.values, 'iterations', 1, 1_000_000_000) ?? Number.POSITIVE_INFINITY;
  ctx.listenForInterrupt();
  let lastFailed = false;
  for (let i = 0; i < iterations && !ctx.signal.aborted; i++) {
    if (i > 0) await ctx.sleep(intervalMs, ctx.signal);
    if (ctx.signal.aborted) break;
    const now = ctx.now();
    let text: string;
    try {
      const frame = await loadFrame(api, p, g, now);
      lastFailed = false;
      // JSON: one line per frame; YAML: one document per frame.
      text =
        format === 'json'
          ? JSON.stringify(frame)
          : format === 'yaml'
            ? `---\n${render(format, frame, () => '')}`
            : renderFrame(frame, p, g, intervalMs, now, lookOf(ctx, format));
    } catch (err) {
      // Only an unavailable coordinator is worth waiting out; a refusal will not change by itself.
      if (!(err instanceof CliFailure) || err.exitCode !== EXIT.SERVER_ERROR) throw err;
      lastFailed = true;
      ctx.err(`${new Date(now).toISOString()} ${err.message} (retrying)`);
      continue;
    }
    // Redraw in place on a terminal; append frames when piped (JSON: one line per frame).
    const redraw = ctx.isTTY && (format === 'table' || format === 'wide');
    ctx.out(redraw ? `${CLEAR_SCREEN}${text}` : text);
  }
  return lastFailed ? EXIT.SERVER_ERROR : EXIT.OK;
};
