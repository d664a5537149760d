/**
 * The CLI's list commands — `streams list`, `groups list [<prefix>]`, `migrations list <prefix>
 * <group>` — so ids never have to be copied out of `--json` output, and `logout`.
 */
import type { GroupResponseJson, MigrationsResponseJson } from '../src/http/schemas.js';
import { allowOnly, type CommandLine, positionals } from './cli-args.js';
import type { CliClient } from './cli-client.js';
import { type CliContext, print } from './cli-context.js';
import { EXIT } from './cli-errors.js';
import { type Column, columnTable, migrationLine, shardRanges, table } from './cli-format.js';
import type { Look } from './cli-look.js';
import { relativeTime } from './cli-time.js';
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

/** `groups list` columns; `-o wide` adds the epochs, the consumable shards and the removed ones. */
function groupColumns(look: Look): Column<GroupResponseJson>[] {
  return [
    { header: 'stream', cell: (g) => g.streamPrefix },
    { header: 'group', cell: (g) => g.consumerGroup },
    { header: 'state', cell: (g) => look.paint.status(g.state, 'group') },
    { header: 'shards', cell: (g) => g.shardCount },
    {
      header: 'epochs',
      cell: (g) => `g${g.groupEpoch}/a${g.assignmentEpoch}/m${g.metadataVersion}`,
      wide: true,
    },
    { header: 'consumable', cell: (g) => shardRanges(g.consumableShards ?? []), wide: true },
    { header: 'removed', cell: (g) => shardRanges(g.removedShards ?? []), wide: true },
    { header: 'live members', cell: (g) => Object.keys(g.targetAssignmentSummary).length },
    { header: 'owning members', cell: (g) => Object.keys(g.currentAssignmentSummary).length },
    {
      header: 'migration',
      cell: (g) =>
        g.activeMigration
          ? `${g.activeMigration.reshardingId} ${look.paint.status(g.activeMigration.state, 'migration')}`
          : null,
    },
  ];
}

function formatGroups(groups: readonly GroupResponseJson[], look: Look): string {
  if (groups.length === 0) return 'No groups.';
  return columnTable(groupColumns(look), groups, look);
}

type MigrationJson = MigrationsResponseJson['migrations'][number];

/** A group's migrations, newest first; `-o wide` adds the instants themselves. */
function formatMigrations(body: MigrationsResponseJson, now: number, look: Look): string {
  if (body.migrations.length === 0) return `No migrations (shard count ${body.shardCount}).`;
  const columns: Column<MigrationJson>[] = [
    { header: 'id', cell: (m) => m.reshardingId },
    { header: 'from', cell: (m) => m.fromShardCount },
    { header: 'to', cell: (m) => m.toShardCount },
    { header: 'state', cell: (m) => look.paint.status(m.state, 'migration') },
    { header: 'created', cell: (m) => relativeTime(m.createdAt, now, 'past') },
    { header: 'created at', cell: (m) => m.createdAt, wide: true },
    { header: 'updated', cell: (m) => relativeTime(m.updatedAt, now, 'past') },
    { header: 'updated at', cell: (m) => m.updatedAt, wide: true },
  ];
  const rows = columnTable(columns, [...body.migrations].reverse(), look);
  const active = body.migrations.find((m) => m.reshardingId === body.activeReshardingId);
  return active ? `${rows}\n\nActive: ${migrationLine(active, look)}` : rows;
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
  print(ctx, cl, { groups }, (look) => formatGroups(groups, look));
  return EXIT.OK;
}

/** `migrations list <prefix> <group>`: newest first. */
export async function listMigrations(args: string[], cl: CommandLine, ctx: CliContext, api: CliClient) {
  allowOnly(cl.values, [], 'migrations list');
  const [p, g] = positionals(args, ['prefix', 'group'], 'migrations list <prefix> <group>');
  const body = await api.migrations(p!, g!);
  print(ctx, cl, body, (look) => formatMigrations(body, ctx.now(), look));
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
