/**
 * The CLI's API commands: streams, groups, scale, group repair, migrations, members, assignments,
 * offsets (and their reset) and login. Each validates its arguments (usage errors exit 1) before any request is sent.
 */

import { MAX_SHARD_INDEX } from '../src/http/schemas.js';
import {
  allowOnly,
  type CommandLine,
  intArgument,
  intOption,
  outputFormat,
  positionals,
} from './cli-args.js';
import type { CliClient } from './cli-client.js';
import { type ApiCommand, type CliContext, print, render, requestedBy } from './cli-context.js';
import { EXIT, usageError } from './cli-errors.js';
import {
  formatAssignments,
  formatGroup,
  formatMembers,
  formatMigration,
  formatOffsets,
  migrationLine,
} from './cli-format.js';
import { SUBCOMMANDS } from './cli-help.js';
import { listGroups, listMigrations, listStreams, logout } from './cli-lists.js';
import type { Look } from './cli-look.js';
import { withOffsetsReset } from './cli-offsets.js';
import { didYouMean } from './cli-suggest.js';
import { storeToken } from './cli-token.js';

/**
 * The most shards any coordinator accepts (the protocol's bound, and the ceiling of
 * COORDINATOR_MAX_SHARD_COUNT). A coordinator's own maximum is often lower (1,024 by default)
 * and is not advertised: it checks it, and its refusal names the figure (docs/cli.md#limits).
 */
const MAX_SHARDS = MAX_SHARD_INDEX + 1;

/** The sub-command of a two-level command (`groups get`), or a usage error listing the choices. */
function subcommand(args: string[], command: string): [string, string[]] {
  const choices = SUBCOMMANDS[command] ?? [];
  const [sub, ...rest] = args;
  if (sub === undefined || !choices.includes(sub)) {
    const got = sub ? ` (got '${sub}')${didYouMean(sub, choices)}` : '';
    throw usageError(`'${command}' needs one of: ${choices.join(', ')}${got}`);
  }
  return [sub, rest];
}

function requireReason(cl: CommandLine, what: string): string {
  const reason = cl.values.reason?.trim();
  if (!reason) throw usageError(`${what} needs --reason (it is recorded with the change)`);
  return reason;
}

const streams: ApiCommand = async (args, cl, ctx, api) => {
  const [sub, rest] = subcommand(args, 'streams');
  if (sub === 'list') return listStreams(rest, cl, ctx, api);
  if (sub === 'delete') return deleteStream(rest, cl, ctx, api);
  allowOnly(cl.values, ['shards', 'group', 'reason', 'requested-by'], 'streams create');
  const [prefix] = positionals(rest, ['prefix'], 'streams create <prefix> [--shards N] [--group G]');
  const body = {
    initialShardCount: intOption(cl.values, 'shards', 1, MAX_SHARDS),
    consumerGroup: cl.values.group,
    requestedBy: requestedBy(cl),
    reason: cl.values.reason,
  };
  const res = await api.createStream(prefix!, body);
  print(
    ctx,
    cl,
    res,
    () =>
      `Created stream ${res.streamPrefix} with group ${res.consumerGroup}: ${res.shardCount} shards, metadataVersion ${res.metadataVersion}.`,
  );
  return EXIT.OK;
};

/** `streams delete <prefix> --reason R [--force]`: the stream, its groups and its shard keys. */
const deleteStream: ApiCommand = async (args, cl, ctx, api) => {
  allowOnly(cl.values, ['reason', 'requested-by', 'force'], 'streams delete');
  const [p] = positionals(args, ['prefix'], 'streams delete <prefix> --reason R [--force]');
  const body = {
    requestedBy: requestedBy(cl),
    reason: requireReason(cl, 'streams delete'),
    force: cl.values.force ?? false,
  };
  const res = await api.deleteStream(p!, body);
  print(ctx, cl, res, () =>
    [
      `Deleted stream ${res.streamPrefix}: groups ${res.deletedGroups.join(', ') || '-'}, ${res.deletedShardKeys.length} shard key(s).`,
      ...res.keptShardKeys.map((k) => `  kept ${k.streamKey}: ${k.reason}`),
    ].join('\n'),
  );
  return EXIT.OK;
};

const groups: ApiCommand = async (args, cl, ctx, api) => {
  const [sub, rest] = subcommand(args, 'groups');
  if (sub === 'list') return listGroups(rest, cl, ctx, api);
  if (sub === 'get') {
    allowOnly(cl.values, [], 'groups get');
    const [p, g] = positionals(rest, ['prefix', 'group'], 'groups get <prefix> <group>');
    const res = await api.group(p!, g!);
    print(ctx, cl, res, (look) => formatGroup(res, look));
    return EXIT.OK;
  }
  allowOnly(cl.values, ['reason', 'requested-by', 'force'], 'groups delete');
  const [p, g] = positionals(
    rest,
    ['prefix', 'group'],
    'groups delete <prefix> <group> --reason R [--force]',
  );
  const body = {
    requestedBy: requestedBy(cl),
    reason: requireReason(cl, 'groups delete'),
    force: cl.values.force ?? false,
  };
  const res = await api.deleteGroup(p!, g!, body);
  print(
    ctx,
    cl,
    res,
    () => `Deleted the coordination metadata of group ${g} of stream ${p} (it was ${res.state}).`,
  );
  return EXIT.OK;
};

/** What `repair --mode` accepts. */
const REPAIR_MODES = ['rebuild', 'reset'] as const;

/** `repair <prefix> <group> --mode rebuild|reset [--reason R]`: a group reported corrupt (ADMIN). */
const repair: ApiCommand = async (args, cl, ctx, api) => {
  allowOnly(cl.values, ['mode', 'reason', 'requested-by'], 'repair');
  const usage = 'repair <prefix> <group> --mode rebuild|reset [--reason R]';
  const [p, g] = positionals(args, ['prefix', 'group'], usage);
  const given = cl.values.mode;
  const mode = REPAIR_MODES.find((m) => m === given);
  if (!mode) {
    throw usageError(
      `repair needs --mode rebuild or --mode reset${given === undefined ? '' : ` (got '${given}')${didYouMean(given, REPAIR_MODES)}`}`,
    );
  }
  const body = { mode, requestedBy: requestedBy(cl), reason: cl.values.reason?.trim() || null };
  const res = await api.repairGroup(p!, g!, body);
  print(ctx, cl, res, (look) =>
    [
      mode === 'rebuild'
        ? `Rebuilt the indexes of group ${g} of stream ${p} from its member records.`
        : `Reset group ${g} of stream ${p}: every member rejoins at epoch 0, and for one member lease no shard is granted that a member does not report.`,
      formatGroup(res, look),
    ].join('\n'),
  );
  return EXIT.OK;
};

/**
 * The server's own maximum (`maxShardCount` of the compatibility view), checked before the scale
 * is sent; a server that does not say (an older one, the reference, a role without READ) decides
 * alone.
 */
async function refuseAboveServerLimit(api: CliClient, n: number): Promise<void> {
  const max = await api.compatibility().then(
    (c) => (c as { maxShardCount?: unknown }).maxShardCount,
    () => undefined,
  );
  if (typeof max === 'number' && n > max) {
    throw usageError(`<n> must be at most ${max}, the coordinator's COORDINATOR_MAX_SHARD_COUNT (got ${n})`);
  }
}

const scale: ApiCommand = async (args, cl, ctx, api) => {
  allowOnly(cl.values, ['reason', 'requested-by', 'group'], 'scale');
  const [p, n] = positionals(args, ['prefix', 'n'], 'scale <prefix> <n> --reason R [--group G]');
  const targetShardCount = intArgument(n!, 'n', 0, MAX_SHARDS);
  const body = { targetShardCount, requestedBy: requestedBy(cl), reason: requireReason(cl, 'scale') };
  await refuseAboveServerLimit(api, targetShardCount);
  const group = cl.values.group;
  if (group) {
    const res = await api.scaleGroup(p!, group, body);
    print(ctx, cl, res, (look) => formatMigration(res, look));
    return EXIT.OK;
  }
  const res = await api.scaleStream(p!, body);
  print(ctx, cl, res, (look) => {
    const migrations = res.migrations ?? [];
    return [
      `Scaling stream ${res.streamPrefix} to ${res.targetShardCount} shards (groups: ${(res.affectedConsumerGroups ?? []).join(', ') || '-'}).`,
      ...migrations.map((m) => `  ${migrationLine(m, look)}`),
    ].join('\n');
  });
  return EXIT.OK;
};

const migrations: ApiCommand = async (args, cl, ctx, api) => {
  const [sub, rest] = subcommand(args, 'migrations');
  if (sub === 'list') return listMigrations(rest, cl, ctx, api);
  if (sub === 'get') {
    allowOnly(cl.values, [], 'migrations get');
    const [p, g, id] = positionals(rest, ['prefix', 'group', 'id'], 'migrations get <prefix> <group> <id>');
    const res = await api.migration(p!, g!, id!);
    print(ctx, cl, res, (look) => formatMigration(res, look));
    return EXIT.OK;
  }
  allowOnly(cl.values, ['reason', 'requested-by'], 'migrations rollback');
  const usage = 'migrations rollback <prefix> <group> <id> --reason R';
  const [p, g, id] = positionals(rest, ['prefix', 'group', 'id'], usage);
  const body = { requestedBy: requestedBy(cl), reason: requireReason(cl, 'migrations rollback') };
  const res = await api.rollback(p!, g!, id!, body);
  print(ctx, cl, res, (look) => `Rollback accepted.\n${formatMigration(res, look)}`);
  return EXIT.OK;
};

/** A read-only group view under `/monitoring/streams/{p}/groups/{g}/<view>`. */
function groupView<T>(
  view: string,
  load: (api: CliClient, p: string, g: string) => Promise<T>,
  render: (body: T, ctx: CliContext, look: Look) => string,
): ApiCommand {
  return async (args, cl, ctx, api) => {
    allowOnly(cl.values, [], view);
    const [p, g] = positionals(args, ['prefix', 'group'], `${view} <prefix> <group>`);
    const res = await load(api, p!, g!);
    print(ctx, cl, res, (look) => render(res, ctx, look));
    return EXIT.OK;
  };
}

/** `login`: exchanges `--user`/`--password` (or RSC_USER/RSC_PASSWORD) for a bearer token. */
async function login(args: string[], cl: CommandLine, ctx: CliContext, api: CliClient): Promise<number> {
  allowOnly(cl.values, ['print'], 'login');
  positionals(args, [], 'login [--print]');
  const user = cl.values.user ?? ctx.env.RSC_USER;
  const password = cl.values.password ?? ctx.env.RSC_PASSWORD;
  if (!user || password === undefined)
    throw usageError('login needs --user and --password (or RSC_USER, RSC_PASSWORD)');
  const res = await api.login(user, password);
  if (cl.values.print) {
    ctx.out(render(outputFormat(cl.values), res, () => String(res.accessToken)));
    return EXIT.OK;
  }
  // Kept for this URL only: a later --url elsewhere never sends it.
  await storeToken(ctx.tokenFile, api.target.url, String(res.accessToken));
  const summary = {
    tokenFile: ctx.tokenFile,
    tokenType: res.tokenType,
    expiresAt: res.expiresAt,
    expiresInSeconds: res.expiresInSeconds,
    roles: res.roles,
  };
  print(
    ctx,
    cl,
    summary,
    () =>
      `Logged in as ${user} (${(res.roles ?? []).join(', ')}). Token for ${api.target.url} stored in ${ctx.tokenFile}, expires ${res.expiresAt}.`,
  );
  return EXIT.OK;
}

/** Commands that talk to the API, by name (`serve` and `watch` live elsewhere). */
export const API_COMMANDS: Readonly<Record<string, ApiCommand>> = {
  streams,
  groups,
  scale,
  repair,
  migrations,
  members: groupView(
    'members',
    (api, p, g) => api.members(p, g),
    (body, ctx, look) => formatMembers(body, ctx.now(), look),
  ),
  assignments: groupView(
    'assignments',
    (api, p, g) => api.assignments(p, g),
    (body, _ctx, look) => formatAssignments(body, look),
  ),
  offsets: withOffsetsReset(
    groupView(
      'offsets',
      (api, p, g) => api.offsets(p, g),
      (body, _ctx, look) => formatOffsets(body, look),
    ),
  ),
  login,
  logout,
};
