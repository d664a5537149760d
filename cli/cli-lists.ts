/**
 * The CLI's list commands — `streams list`, `groups list [<prefix>]`, `migrations list <prefix>
 * <group>` — so ids never have to be copied out of `--json` output, and `logout`.
 */
import type { GroupResponseJson, MigrationsResponseJson } from '../src/http/schemas.js';
import { allowOnly, type CommandLine, positionals } from './cli-args.js';
import type { CliClient } from './cli-client.js';
import { type CliContext, print } from './cli-context.js';
import { EXIT } from './cli-errors.js';
import { migrationLine, relativeTime, table } from './cli-format.js';
import { forgetTokens } from './cli-token.js';

/** One stream as `streams list` shows it, from its groups. */
export interface StreamRow {
  streamPrefix: string;
  shardCount: number;
  groups: string[];
  liveMembers: number;
  activeMigration: string | null;
}

/** Streams of `groups`, sorted by prefix (a stream always has at least one group). */
function streamRows(groups: readonly GroupResponseJson[]): StreamRow[] {
  const byPrefix = new Map<string, StreamRow>();
  for (const g of groups) {
    const row = byPrefix.get(g.streamPrefix) ?? {
      streamPrefix: g.streamPrefix,
      shardCount: g.shardCount,
      groups: [],
      liveMembers: 0,
      activeMigration: null,
    };
    row.groups.push(g.consumerGroup);
    // Live members get a target entry (possibly 0); expired, fenced and leaving ones do not.
    row.liveMembers += Object.keys(g.targetAssignmentSummary).length;
    row.activeMigration ??= g.activeMigration?.reshardingId ?? null;
    byPrefix.set(g.streamPrefix, row);
  }
  return [...byPrefix.values()].sort((a, b) => a.streamPrefix.localeCompare(b.streamPrefix));
}

function formatStreams(rows: readonly StreamRow[]): string {
  if (rows.length === 0) return 'No streams.';
  return table(
    ['stream', 'shards', 'groups', 'live members', 'migration'],
    rows.map((r) => [
      r.streamPrefix,
      r.shardCount,
      r.groups.sort().join(','),
      r.liveMembers,
      r.activeMigration,
    ]),
  );
}

function formatGroups(groups: readonly GroupResponseJson[]): string {
  if (groups.length === 0) return 'No groups.';
  return table(
    ['stream', 'group', 'state', 'shards', 'live members', 'owning members', 'migration'],
    groups.map((g) => [
      g.streamPrefix,
      g.consumerGroup,
      g.state,
      g.shardCount,
      Object.keys(g.targetAssignmentSummary).length,
      Object.keys(g.currentAssignmentSummary).length,
      g.activeMigration ? `${g.activeMigration.reshardingId} ${g.activeMigration.state}` : null,
    ]),
  );
}

function formatMigrations(body: MigrationsResponseJson, now: number): string {
  if (body.migrations.length === 0) return `No migrations (shard count ${body.shardCount}).`;
  const rows = table(
    ['id', 'from', 'to', 'state', 'created', 'updated'],
    [...body.migrations]
      .reverse()
      .map((m) => [
        m.reshardingId,
        m.fromShardCount,
        m.toShardCount,
        m.state,
        relativeTime(m.createdAt, now),
        relativeTime(m.updatedAt, now),
      ]),
  );
  const active = body.migrations.find((m) => m.reshardingId === body.activeReshardingId);
  return active ? `${rows}\n\nActive: ${migrationLine(active)}` : rows;
}

/** `streams list`. */
export async function listStreams(args: string[], cl: CommandLine, ctx: CliContext, api: CliClient) {
  allowOnly(cl.values, [], 'streams list');
  positionals(args, [], 'streams list');
  const rows = streamRows(await api.allGroups());
  print(ctx, cl, { streams: rows }, () => formatStreams(rows));
  return EXIT.OK;
}

/** `groups list [<prefix>]`. */
export async function listGroups(args: string[], cl: CommandLine, ctx: CliContext, api: CliClient) {
  allowOnly(cl.values, [], 'groups list');
  const [prefix] = positionals(args, ['prefix'], 'groups list [<prefix>]', 1);
  const groups = (await api.allGroups())
    .filter((g) => prefix === undefined || g.streamPrefix === prefix)
    .sort((a, b) =>
      `${a.streamPrefix}/${a.consumerGroup}`.localeCompare(`${b.streamPrefix}/${b.consumerGroup}`),
    );
  print(ctx, cl, { groups }, () => formatGroups(groups));
  return EXIT.OK;
}

/** `migrations list <prefix> <group>`: newest first. */
export async function listMigrations(args: string[], cl: CommandLine, ctx: CliContext, api: CliClient) {
  allowOnly(cl.values, [], 'migrations list');
  const [p, g] = positionals(args, ['prefix', 'group'], 'migrations list <prefix> <group>');
  const body = await api.migrations(p!, g!);
  print(ctx, cl, body, () => formatMigrations(body, ctx.now()));
  return EXIT.OK;
}

/** `logout [--all]`: forgets the token stored for this URL (or every stored token). */
export async function logout(args: string[], cl: CommandLine, ctx: CliContext, api: CliClient) {
  allowOnly(cl.values, ['all'], 'logout');
  positionals(args, [], 'logout [--all]');
  const url = api.target.url;
  const removed = await forgetTokens(ctx.tokenFile, cl.values.all ? null : url);
  print(ctx, cl, { removed }, () => {
    if (removed.length === 0) return cl.values.all ? 'No stored tokens.' : `No token stored for ${url}.`;
    return `Forgot the token${removed.length > 1 ? 's' : ''} of ${removed.join(', ')}.`;
  });
  return EXIT.OK;
}
