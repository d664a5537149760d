/**
 * Admin use-cases: create a stream, add or delete a group, and the pure reads of groups
 * (docs/protocol.md#streams-and-groups–2.5, docs/protocol.md#deviation-one-shard-count-per-stream). Stream-wide writes go through the stream's critical section.
 */
import type {
  AdminRequestMeta,
  CreateGroupInput,
  CreateStreamInput,
  DeleteGroupInput,
  GroupPage,
  GroupPageQuery,
  GroupSnapshot,
} from '../coordinator-api.js';
import { own } from '../core/dict.js';
import { CoordinatorError } from '../core/errors.js';
import { newGroupDoc } from '../core/group.js';
import { housekeepGroup } from '../core/housekeeping.js';
import { consumableShards, isLive, type StreamDoc } from '../core/model.js';
import { refuseGroupBeyondLimit } from '../core/quotas.js';
import { newGroupProvisioning } from '../core/resharding.js';
import { isWellFormed } from '../core/well-formed.js';
import { type Decision, runCritical } from '../store/critical-section.js';
import { shardKey } from '../store/keys.js';
import type { StreamSnapshot } from '../store/store.js';
import { type Ctx, criticalOptions } from './context.js';
import { groupPage } from './group-pages.js';
import { loadIntact } from './integrity.js';
import { streamWrite } from './stream-plans.js';
import { maintainGroup } from './sweep.js';

const MAX_NAME = 200;
/** Shard provisioning calls in flight at once. */
const PROVISION_CONCURRENCY = 16;
/** Attempts at adding a group while a migration keeps changing the shards it needs. */
const MAX_PASSES = 3;

/** `POST /streams/{p}`. */
export async function createStream(
  ctx: Ctx,
  prefix: string,
  input: CreateStreamInput,
): Promise<GroupSnapshot> {
  const group = input.consumerGroup ?? prefix;
  checkNames(prefix, group);
  const shardCount = checkShardCount(ctx, input.initialShardCount ?? ctx.config.defaultShardCount);
  return createStreamWithGroup(ctx, prefix, group, shardCount, 'STREAM_PREFIX_ALREADY_EXISTS', input);
}

/** `POST /streams/{p}/groups/{g}`: adds a group to an existing stream, or creates the stream. */
export async function createGroup(
  ctx: Ctx,
  prefix: string,
  group: string,
  input: CreateGroupInput,
): Promise<GroupSnapshot> {
  checkNames(prefix, group);
  const asked = input.initialShardCount === null ? null : checkShardCount(ctx, input.initialShardCount);
  const existing = await loadIntact(ctx, prefix, [group]);
  if (!existing) {
    return createStreamWithGroup(
      ctx,
      prefix,
      group,
      asked ?? ctx.config.defaultShardCount,
      'GROUP_ALREADY_EXISTS',
      input,
    );
  }
  const now = ctx.now();
  checkAddGroup(existing, group, asked, ctx.config.maxGroupsPerStream);
  // Provision before the metadata commit so no member is ever assigned a shard without the
  // Redis group; XGROUP CREATE is idempotent, so a lost race costs nothing. A migration that
  // moves meanwhile may need more shards: then provision those and try again.
  const done = { create: new Set<number>(), existing: new Set<number>() };
  let stream = existing.stream;
  for (let attempt = 0; attempt < MAX_PASSES; attempt++) {
    await provisionNewGroup(ctx, prefix, group, stream, done);
    const snap = await runCritical(
      ctx.store,
      prefix,
      [group],
      criticalOptions(ctx, ctx.config.lockWaitMs),
      (s): Decision<GroupSnapshot | StreamDoc> => {
        if (!s) throw new CoordinatorError('STREAM_NOT_FOUND', `stream "${prefix}" was deleted meanwhile`);
        checkAddGroup(s, group, asked, ctx.config.maxGroupsPerStream);
        const plan = newGroupProvisioning(s.stream);
        const covered =
          plan.create.every((i) => done.create.has(i)) &&
          plan.existing.every((i) => done.create.has(i) || done.existing.has(i));
        if (!covered) return { result: s.stream };
        const doc = newGroupDoc(prefix, group, now);
        const next: StreamDoc = { ...s.stream, groups: [...s.stream.groups, group].sort(), updatedAt: now };
        return {
          commit: {
            stream: streamWrite(ctx, next),
            groups: [{ name: group, create: headerOf(doc, now), ops: [] }],
          },
          result: { stream: next, group: doc },
        };
      },
    );
    if ('group' in snap) {
      audit(ctx, 'group created', prefix, group, input);
      return snap;
    }
    stream = snap;
  }
  throw new CoordinatorError(
    'STATE_VERSION_CONFLICT',
    `the shards of stream "${prefix}" kept changing while group "${group}" was provisioned; retry the request`,
  );
}

/** `DELETE /streams/{p}/groups/{g}`: coordinator metadata only; the pre-delete state is returned. */
export async function deleteGroup(
  ctx: Ctx,
  prefix: string,
  group: string,
  input: DeleteGroupInput,
): Promise<GroupSnapshot> {
  checkNames(prefix, group);
  const now = ctx.now();
  await maintainGroup(ctx, prefix, group, now);
  const snap = await runCritical(
    ctx.store,
    prefix,
    [group],
    criticalOptions(ctx, ctx.config.lockWaitMs),
    (s): Decision<GroupSnapshot> => {
      const doc = s && own(s.groups, group);
      if (!s || !doc) throw groupNotFound(prefix, group);
      const current = housekeepGroup({ stream: s.stream, group: doc, config: ctx.protocol, now });
      const active = Object.values(current.members).filter((m) => isLive(m.state));
      if (active.length > 0 && !input.force) {
        throw new CoordinatorError(
          'GROUP_HAS_ACTIVE_MEMBERS',
          `group "${group}" of stream "${prefix}" has ${active.length} active member(s); pass force=true to delete anyway`,
        );
      }
      const groups = s.stream.groups.filter((g) => g !== group);
      const removedStream = groups.length === 0;
      const next: StreamDoc = { ...s.stream, groups, updatedAt: now };
      return {
        commit: {
          stream: removedStream ? null : streamWrite(ctx, next),
          groups: [{ name: group, delete: true, ops: [] }],
        },
        result: { stream: s.stream, group: doc },
      };
    },
  );
  audit(ctx, 'group deleted', prefix, group, input, { force: input.force });
  return snap;
}

/** Pure read of one group; 404 GROUP_NOT_FOUND. */
export async function readGroup(ctx: Ctx, prefix: string, group: string): Promise<GroupSnapshot> {
  checkNames(prefix, group);
  const s = await loadIntact(ctx, prefix, [group]);
  const doc = s && own(s.groups, group);
  if (!s || !doc) throw groupNotFound(prefix, group);
  return { stream: s.stream, group: doc };
}

/**
 * Pure read of one page of groups in (stream, group) order: one listing of the stream names, then
 * only the streams the page needs (docs/protocol.md#listing-groups-in-pages).
 */
export async function listGroupPage(ctx: Ctx, query: GroupPageQuery): Promise<GroupPage> {
  return groupPage(await ctx.store.listStreams(), (prefix) => loadIntact(ctx, prefix, 'all'), query);
}

/** Pure read of every group of every stream (reads every stream: the metrics scrape, not the HTTP lists). */
export async function listGroups(ctx: Ctx): Promise<GroupSnapshot[]> {
  const out: GroupSnapshot[] = [];
  for (const prefix of await ctx.store.listStreams()) {
    const s = await loadIntact(ctx, prefix, 'all');
    if (!s) continue;
    for (const name of s.stream.groups) {
      const group = own(s.groups, name);
      if (group) out.push({ stream: s.stream, group });
    }
  }
  return out;
}

async function createStreamWithGroup(
  ctx: Ctx,
  prefix: string,
  group: string,
  shardCount: number,
  existsCode: 'STREAM_PREFIX_ALREADY_EXISTS' | 'GROUP_ALREADY_EXISTS',
  meta: AdminRequestMeta,
): Promise<GroupSnapshot> {
  const now = ctx.now();
  const stream: StreamDoc = {
    streamPrefix: prefix,
    shardCount,
    removedShards: [],
    migrations: [],
    activeReshardingId: null,
    groups: [group],
    createdAt: now,
    updatedAt: now,
  };
  const doc = newGroupDoc(prefix, group, now);
  const alreadyExists = () =>
    new CoordinatorError(
      existsCode,
      existsCode === 'GROUP_ALREADY_EXISTS'
        ? `group "${group}" of stream "${prefix}" already exists`
        : `stream "${prefix}" already exists`,
    );
  if (ctx.config.provisioning) {
    const keys = [prefix, ...Array.from({ length: shardCount }, (_, i) => shardKey(prefix, i))];
    if ((await loadIntact(ctx, prefix, [])) === null && (await ctx.store.countExisting(keys)) > 0) {
      throw new CoordinatorError(
        'STREAM_PREFIX_ALREADY_EXISTS',
        `Redis already has keys of stream "${prefix}" that this coordinator does not manage`,
      );
    }
  }
  // The critical section lists the stream around its commit (and unlists it on the undo below).
  const opts = criticalOptions(ctx, ctx.config.lockWaitMs);
  try {
    await runCritical(ctx.store, prefix, [], opts, (s): Decision<void> => {
      if (s) throw alreadyExists();
      return {
        commit: {
          stream: streamWrite(ctx, stream),
          groups: [{ name: group, create: headerOf(doc, now), ops: [] }],
        },
        result: undefined,
      };
    });
  } catch (e) {
    if (e instanceof CoordinatorError && e.code === existsCode) await repairProvisioning(ctx, prefix);
    throw e;
  }
  try {
    await provisionGroup(ctx, prefix, group, consumableShards(stream));
  } catch (e) {
    // Undo the metadata so the request can be repeated; the stream keys stay (never deleted here).
    await runCritical(
      ctx.store,
      prefix,
      [],
      opts,
      (s): Decision<void> =>
        s
          ? { commit: { stream: null, groups: [{ name: group, delete: true, ops: [] }] }, result: undefined }
          : { result: undefined },
    ).catch(() => undefined);
    throw e;
  }
  audit(ctx, 'stream created', prefix, group, meta, { shardCount });
  return { stream, group: doc };
}

/** The header a new group starts with (docs/protocol.md#counter-bumps: epochs 1, version 1). */
function headerOf(doc: { groupEpoch: number; assignmentEpoch: number; metadataVersion: number }, at: number) {
  return {
    groupEpoch: doc.groupEpoch,
    assignmentEpoch: doc.assignmentEpoch,
    metadataVersion: doc.metadataVersion,
    at,
  };
}

function checkAddGroup(s: StreamSnapshot, group: string, asked: number | null, maxGroups: number): void {
  if (s.stream.groups.includes(group) || own(s.groups, group)) {
    throw new CoordinatorError(
      'GROUP_ALREADY_EXISTS',
      `group "${group}" of stream "${s.stream.streamPrefix}" already exists`,
    );
  }
  refuseGroupBeyondLimit(s.stream.streamPrefix, group, s.stream.groups.length, maxGroups);
  if (asked !== null && asked !== s.stream.shardCount) {
    throw new CoordinatorError(
      'SHARD_COUNT_MISMATCH',
      `stream "${s.stream.streamPrefix}" has ${s.stream.shardCount} shards; a group cannot ask for ${asked} (omit initialShardCount to join at the current count)`,
    );
  }
}

/** Provisions a joining group on what `newGroupProvisioning` asks that is not done yet. */
async function provisionNewGroup(
  ctx: Ctx,
  prefix: string,
  group: string,
  stream: StreamDoc,
  done: { create: Set<number>; existing: Set<number> },
): Promise<void> {
  const plan = newGroupProvisioning(stream);
  const create = plan.create.filter((i) => !done.create.has(i));
  const existing = plan.existing.filter((i) => !done.create.has(i) && !done.existing.has(i));
  if (ctx.config.provisioning) {
    const store = ctx.store;
    await inBatches(
      [
        ...create.map((i) => () => store.provision(shardKey(prefix, i), group)),
        // Removed shards: only where the key still exists (a retired key is never brought back).
        ...existing.map((i) => async () => {
          if (store.provisionExisting) await store.provisionExisting(shardKey(prefix, i), group);
        }),
      ],
      PROVISION_CONCURRENCY,
    );
  }
  for (const i of create) done.create.add(i);
  for (const i of existing) done.existing.add(i);
}

/**
 * A create that finds its stream already there. If an earlier create's commit applied while Redis
 * stayed unreachable through every resend (its client saw 503), that stream was never
 * provisioned: provision what is missing now (idempotent), so the retry's 409 leaves a usable
 * stream. One EXISTS pass when nothing is missing.
 */
async function repairProvisioning(ctx: Ctx, prefix: string): Promise<void> {
  if (!ctx.config.provisioning) return;
  const s = await loadIntact(ctx, prefix, 'all');
  if (!s) return;
  const shards = consumableShards(s.stream);
  if ((await ctx.store.countExisting(shards.map((i) => shardKey(prefix, i)))) === shards.length) return;
  for (const g of s.stream.groups) await provisionGroup(ctx, prefix, g, shards);
}

async function provisionGroup(ctx: Ctx, prefix: string, group: string, shards: number[]): Promise<void> {
  if (!ctx.config.provisioning) return;
  for (const i of shards) await ctx.store.provision(shardKey(prefix, i), group);
}

function checkShardCount(ctx: Ctx, n: number): number {
  if (!Number.isInteger(n) || n < 1 || n > ctx.config.maxShardCount) {
    throw new CoordinatorError(
      'INVALID_REQUEST',
      `initialShardCount: must be an integer between 1 and ${ctx.config.maxShardCount}`,
    );
  }
  return n;
}

/** Validates a stream prefix and group name (docs/protocol.md#errors). */
export function checkNames(prefix: string, group: string): void {
  checkPrefix(prefix);
  if (group.trim() === '' || group.length > MAX_NAME || !isWellFormed(group)) {
    throw new CoordinatorError(
      'INVALID_REQUEST',
      'consumerGroup: must be non-blank, at most 200 characters, well-formed Unicode',
    );
  }
}

/** 404 GROUP_NOT_FOUND. */
export function groupNotFound(prefix: string, group: string): CoordinatorError {
  return new CoordinatorError('GROUP_NOT_FOUND', `group "${group}" of stream "${prefix}" not found`);
}

/** 400 INVALID_REQUEST unless `prefix` is a valid stream prefix. */
export function checkPrefix(prefix: string): void {
  if (prefix.trim() === '' || /[{}]/.test(prefix) || prefix.length > MAX_NAME || !isWellFormed(prefix)) {
    throw new CoordinatorError(
      'INVALID_REQUEST',
      'streamPrefix: must be non-blank, at most 200 characters, without { or }, well-formed Unicode',
    );
  }
}

/** Runs `jobs` with at most `size` in flight; the first failure is thrown once all settled. */
export async function inBatches(jobs: Array<() => Promise<unknown>>, size: number): Promise<void> {
  for (let i = 0; i < jobs.length; i += size) {
    const results = await Promise.allSettled(jobs.slice(i, i + size).map((job) => job()));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
}

/**
 * The audit log line of an admin mutation: the authenticated principal next to the client's own
 * `requestedBy` (docs/security.md#audit-lines).
 */
export function audit(
  ctx: Ctx,
  msg: string,
  prefix: string,
  group: string,
  meta: AdminRequestMeta,
  extra: Record<string, unknown> = {},
): void {
  ctx.log('info', msg, {
    streamPrefix: prefix,
    consumerGroup: group,
    principal: meta.principal ?? null,
    requestedBy: meta.requestedBy,
    reason: meta.reason,
    ...extra,
  });
}
