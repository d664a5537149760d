/**
 * `offsets reset <prefix> <group> --to earliest|latest|<time>|<id> [--shards 0,2] [--execute]`:
 * moves a consumer group's position to replay or skip records (docs/cli.md#commands), a dry run
 * unless `--execute`, printed as a before/after table per shard and the totals. Every argument
 * is checked (usage errors exit 1) before anything is sent.
 */
import type { OffsetsResetBody, OffsetsResetResponseJson } from '../src/http/offsets-reset-schemas.js';
import { allowOnly, positionals } from './cli-args.js';
import { type ApiCommand, print, requestedBy } from './cli-context.js';
import { EXIT, usageError } from './cli-errors.js';
import { table } from './cli-format.js';

const USAGE =
  'offsets reset <prefix> <group> --to earliest|latest|<ISO time>|<epoch ms>|<ms-seq id> [--shards 0,2] [--execute]';
/** Highest shard index a command line may name. */
const MAX_SHARD_INDEX = 16_383;
/** The latest instant `Date` represents, ms. */
const MAX_INSTANT_MS = 8.64e15;

/** What `--to` names, as the body states it. */
type Target = Pick<OffsetsResetBody, 'to' | 'timestamp' | 'id'>;

/** `--to`: `earliest`, `latest`, a stream id (`ms-seq`), epoch ms, or an ISO-8601 time. */
function targetOf(raw: string | undefined): Target {
  const text = raw?.trim();
  if (!text) throw usageError(`offsets reset needs --to: ${USAGE}`);
  if (text === 'earliest' || text === 'latest') return { to: text };
  if (/^\d+-\d+$/.test(text)) return { to: 'id', id: text };
  const ms = /^\d+$/.test(text)
    ? Number(text)
    : /^\d{4}-\d{2}-\d{2}/.test(text)
      ? Date.parse(text)
      : Number.NaN;
  if (!Number.isSafeInteger(ms) || ms < 0 || ms > MAX_INSTANT_MS) {
    throw usageError(
      `--to must be earliest, latest, an ISO-8601 time (2026-05-24T08:00:00Z), epoch ms or a stream id (<ms>-<seq>), got '${raw}'`,
    );
  }
  return { to: 'timestamp', timestamp: ms };
}

/** `--shards 0,2`: distinct shard indexes, or undefined (every consumable shard). */
function shardsOf(raw: string | undefined): number[] | undefined {
  if (raw === undefined) return undefined;
  const parts = raw.split(',').map((s) => s.trim());
  const shards = parts.map(Number);
  if (parts.some((s) => !/^\d+$/.test(s)) || shards.some((n) => n > MAX_SHARD_INDEX)) {
    throw usageError(
      `--shards must list shard indexes 0-${MAX_SHARD_INDEX} separated by commas, got '${raw}'`,
    );
  }
  return [...new Set(shards)];
}

/** A count, marked as a lower bound when counting stopped at its limit (never 0: the other direction's). */
function counted(n: number, exact: boolean): string {
  return exact || n === 0 ? String(n) : `${n}+`;
}

/** The target as the header line says it. */
function targetText(r: OffsetsResetResponseJson): string {
  if (r.to === 'timestamp' && r.timestamp !== null)
    return `${new Date(r.timestamp).toISOString()} (${r.timestamp} ms)`;
  if (r.to === 'id') return `id ${r.id}`;
  return r.to;
}

/** The answer as a header, a before/after table per shard and the totals. */
export function formatOffsetsReset(r: OffsetsResetResponseJson): string {
  const moved = r.shards.filter((s) => s.lastDeliveredIdBefore !== s.lastDeliveredIdAfter).length;
  const head = r.dryRun
    ? `Dry run (nothing changed): group ${r.consumerGroup} of stream ${r.streamPrefix} to ${targetText(r)}.`
    : `Reset group ${r.consumerGroup} of stream ${r.streamPrefix} to ${targetText(r)}: ${moved} of ${r.shards.length} shard(s) moved.`;
  const rows = r.shards.map((s) => [
    s.shard.shardIndex,
    s.streamKey,
    s.lastDeliveredIdBefore,
    s.lastDeliveredIdAfter,
    counted(s.skippedRecords, s.countExact),
    counted(s.replayedRecords, s.countExact),
    s.lagAfter,
    s.pendingCount,
  ]);
  const lines = [
    head,
    table(['shard', 'key', 'before', 'after', 'skipped', 'replayed', 'lag after', 'pending'], rows),
    `total: ${counted(r.totalSkippedRecords, r.countsExact)} skipped, ${counted(r.totalReplayedRecords, r.countsExact)} replayed`,
  ];
  if (!r.countsExact) lines.push('(n+: counting stopped at 1,000,000 records on that shard; at least n)');
  if (r.shards.some((s) => (s.pendingCount ?? 0) > 0))
    lines.push('Pending records stay pending: acknowledge or claim them as usual.');
  if (r.dryRun) lines.push('Run again with --execute to move the group (its consumers must be stopped).');
  return lines.join('\n');
}

const offsetsReset: ApiCommand = async (args, cl, ctx, api) => {
  allowOnly(cl.values, ['to', 'shards', 'execute', 'reason', 'requested-by'], 'offsets reset');
  const [p, g] = positionals(args, ['prefix', 'group'], USAGE);
  const shards = shardsOf(cl.values.shards);
  const body: OffsetsResetBody = {
    ...targetOf(cl.values.to),
    ...(shards ? { shards } : {}),
    dryRun: !cl.values.execute,
    requestedBy: requestedBy(cl),
    reason: cl.values.reason?.trim() || null,
  };
  const res = await api.resetOffsets(p!, g!, body);
  print(ctx, cl, res, () => formatOffsetsReset(res));
  return EXIT.OK;
};

/**
 * `offsets …`: `offsets reset <prefix> <group> …` resets, anything else is `view` (the read-only
 * offsets view). `offsets reset <g>` alone stays the view of a stream named `reset`.
 */
export function withOffsetsReset(view: ApiCommand): ApiCommand {
  return (args, cl, ctx, api) => {
    const reset =
      args[0] === 'reset' && (args.length !== 2 || cl.values.to !== undefined || !!cl.values.execute);
    return reset ? offsetsReset(args.slice(1), cl, ctx, api) : view(args, cl, ctx, api);
  };
}
