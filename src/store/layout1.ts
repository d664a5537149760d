/**
 * Layout 1 (the layout before issue 10: one JSON document per group), read once to upgrade a
 * stream in place. A coordinator of this version that meets a layout-1 stream converts it under
 * the stream mutex in one atomic commit, then deletes the layout-1 group documents, so an older
 * coordinator still running fails closed (METADATA_CORRUPT) instead of serving stale state.
 */
import { z } from 'zod';
import {
  kindsOf,
  memberOps,
  type OwnerEntry,
  type PlanOp,
  statusBlocks,
  statusOf,
} from '../core/commit-plan.js';
import { dict } from '../core/dict.js';
import type { GroupDoc, ProtocolConfig, ShardProgress } from '../core/model.js';
import { corrupt, type LiveEntry, parseLiveEntry, parseRevision, parseStreamDoc } from './codec.js';
import { streamKeys, streamTag } from './keys.js';
import type { ScriptCall } from './scripts/commit-args.js';
import type { LuaScript } from './scripts/lua-script.js';
import type { StreamPlan, StreamSnapshot } from './store.js';
import { streamHeadOf } from './stream-head.js';

const lua = `if redis.call('EXISTS', KEYS[1]) == 0 then
  for i = 2, #ARGV do
    if redis.call('EXISTS', KEYS[(i - 1) * 4 - 2]) == 1 then
      return { -1, ARGV[i] }
    end
  end
  return { 0 }
end
local s = redis.call('HMGET', KEYS[1], 'rev', 'doc')
local out = { 1, s[1], s[2] }

local function readGroup(name, gk, lk, vk)
  if redis.call('EXISTS', gk) == 0 then
    return { name, 0 }
  end
  local h = redis.call('HMGET', gk, 'rev', 'doc')
  return { name, 1, h[1], h[2], redis.call('ZRANGE', lk, 0, -1, 'WITHSCORES'), redis.call('HGETALL', vk) }
end

-- Mirrors encodeURIComponent, which keys.ts uses for <G>.
local function enc(v)
  return (string.gsub(v, "[^%w%-_%.!~%*'%(%)]", function(ch)
    return string.format('%%%02X', string.byte(ch))
  end))
end

if ARGV[1] == 'all' then
  local ok, d = pcall(cjson.decode, s[2])
  if ok and type(d) == 'table' and type(d.groups) == 'table' then
    local base = string.sub(KEYS[1], 1, -8)
    for _, name in ipairs(d.groups) do
      if type(name) == 'string' then
        local e = enc(name)
        out[#out + 1] = readGroup(name, base .. ':group:' .. e, base .. ':leases:' .. e, base .. ':live:' .. e)
      end
    end
  end
else
  for i = 2, #ARGV do
    local k = (i - 1) * 4 - 2
    out[#out + 1] = readGroup(ARGV[i], KEYS[k], KEYS[k + 1], KEYS[k + 2])
  end
end
return out
`;

/** The layout-1 load script (unchanged, so its pinned SHA is the old one). */
export const LOAD_LAYOUT1: LuaScript = {
  name: 'load-layout1',
  lua,
  sha1: 'be0831d10d79429598d38b898c95f0bda68d8bb8',
};

const num = z.number();
const nullableNum = num.nullable();

const shardProgressSchema: z.ZodType<ShardProgress> = z.looseObject({
  shard: num,
  streamKey: z.string(),
  lastDeliveredId: z.string().nullable(),
  lastAckedId: z.string().nullable(),
  pendingCount: num,
  updatedAt: z.string().nullable(),
});

const memberSchema = z.looseObject({
  memberId: z.string(),
  memberName: z.string(),
  state: z.enum(['STARTING', 'ACTIVE', 'LEAVING', 'EXPIRED', 'FENCED']),
  memberEpoch: num,
  previousEpoch: nullableNum,
  metadataVersion: num,
  runtimeMaxConcurrency: num,
  activeConsumerWorkers: num,
  currentAssignment: z.array(num),
  grantedAssignment: z.array(num),
  revoking: z.array(num),
  lastHeartbeatAt: num,
  memberLeaseExpiresAt: num,
  rebalanceTimeoutMs: num,
  rebalanceDeadlineAt: nullableNum,
  shardProgress: z.array(shardProgressSchema),
  fence: z.enum(['BLOCKING', 'RELEASED']).nullable(),
});

const groupDocSchema: z.ZodType<GroupDoc> = z.looseObject({
  streamPrefix: z.string(),
  consumerGroup: z.string(),
  groupEpoch: num,
  assignmentEpoch: num,
  metadataVersion: num,
  state: z.enum(['EMPTY', 'ASSIGNING', 'RECONCILING', 'STABLE']),
  targetAssignments: z.record(z.string(), z.array(num)),
  members: z.record(z.string(), memberSchema),
  metadataCorrection: z
    .looseObject({
      targetMetadataVersion: num,
      observedMetadataVersion: num,
      requestedAt: num,
      updatedAt: num,
      acknowledgedMembers: z.array(z.string()),
    })
    .nullable(),
  createdAt: num,
  updatedAt: num,
});

/** The four layout-1 keys of a group: document, leases, live entries, fast-path fingerprints. */
export function layout1GroupKeys(ns: string, prefix: string, group: string): string[] {
  const base = `${ns}:${streamTag(prefix)}`;
  const g = encodeURIComponent(group);
  return [`${base}:group:${g}`, `${base}:leases:${g}`, `${base}:live:${g}`, `${base}:fast:${g}`];
}

/** The layout-1 load call for every group of the stream. */
export function encodeLoadLayout1(ns: string, prefix: string): ScriptCall {
  return { keys: [streamKeys(ns, prefix).stream], args: ['all'] };
}

function str(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  return undefined;
}

function pairs(v: unknown): Array<[string, string]> {
  const a = Array.isArray(v) ? v : [];
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < a.length; i += 2)
    out.push([String(str(a[i]) ?? a[i]), String(str(a[i + 1]) ?? a[i + 1])]);
  return out;
}

function parseGroupDoc(prefix: string, group: string, text: unknown): GroupDoc {
  const what = `layout-1 group "${group}" document`;
  if (typeof text !== 'string') throw corrupt(prefix, `${what} is missing`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw corrupt(prefix, `${what} is not valid JSON`);
  }
  const r = groupDocSchema.safeParse(json);
  if (!r.success || r.data.streamPrefix !== prefix || r.data.consumerGroup !== group) {
    throw corrupt(prefix, `${what} is invalid`);
  }
  return r.data;
}

/** Decodes the layout-1 load reply (leases and live entries merged in, as layout 1 did). */
export function decodeLayout1(prefix: string, reply: unknown): StreamSnapshot | null {
  if (!Array.isArray(reply) || Number(reply[0]) !== 1) return null;
  const revision = parseRevision(prefix, str(reply[1]) ?? reply[1]);
  const stream = parseStreamDoc(prefix, str(reply[2]));
  const groups = dict<GroupDoc>();
  for (const entry of reply.slice(3) as unknown[][]) {
    const name = str(entry[0]) ?? '';
    if (Number(entry[1]) !== 1)
      throw corrupt(prefix, `layout-1 group "${name}" is listed but has no document`);
    const doc = parseGroupDoc(prefix, name, str(entry[3]));
    const leases = new Map(pairs(entry[4]).map(([m, s]) => [m, Number(s)]));
    const live = new Map<string, LiveEntry>(
      pairs(entry[5]).map(([m, t]) => [m, parseLiveEntry(prefix, name, t)]),
    );
    const members: GroupDoc['members'] = dict();
    for (const [id, m] of Object.entries(doc.members)) {
      const e = live.get(id);
      members[id] = {
        ...m,
        memberLeaseExpiresAt: Math.max(m.memberLeaseExpiresAt, leases.get(id) ?? m.memberLeaseExpiresAt),
        lastHeartbeatAt: Math.max(m.lastHeartbeatAt, e?.at ?? m.lastHeartbeatAt),
        shardProgress: e?.progress !== undefined && e.at >= m.lastHeartbeatAt ? e.progress : m.shardProgress,
      };
    }
    groups[name] = { ...doc, members };
  }
  return { revision, stream, groups };
}

/**
 * The layout-2 commit for a layout-1 snapshot: every group's header, records, targets,
 * ownership (a blocking holder wins a shard two records name), indexes and round; the stream
 * document unchanged apart from its revision. Checked against the layout-1 revision.
 */
export function upgradePlan(snapshot: StreamSnapshot, config: ProtocolConfig): StreamPlan {
  const { stream } = snapshot;
  const groups = Object.entries(snapshot.groups).map(([name, g]) => {
    const ops: PlanOp[] = [];
    const owners = new Map<number, OwnerEntry & { blocks: boolean }>();
    for (const m of Object.values(g.members)) {
      ops.push(
        ...memberOps(m.memberId, null, m, {
          owners: new Map(),
          staleMemberRetentionMs: config.staleMemberRetentionMs,
          ownership: false,
        }),
      );
      const blocks = statusBlocks(statusOf(m));
      for (const [s, kind] of kindsOf(m)) {
        const seen = owners.get(s);
        if (!seen || (blocks && !seen.blocks)) owners.set(s, { memberId: m.memberId, kind, blocks });
      }
    }
    for (const [s, o] of owners)
      ops.push({ k: 'owner', shard: s, owner: { memberId: o.memberId, kind: o.kind } });
    for (const [id, t] of Object.entries(g.targetAssignments))
      ops.push({ k: 'target', member: id, target: t });
    const round = g.metadataCorrection;
    if (round) {
      const { acknowledgedMembers, ...rest } = round;
      ops.push({ k: 'round', round: rest, freshAcks: true });
      for (const id of acknowledgedMembers) ops.push({ k: 'ack', member: id });
    }
    return {
      name,
      create: {
        groupEpoch: g.groupEpoch,
        assignmentEpoch: g.assignmentEpoch,
        metadataVersion: g.metadataVersion,
        at: g.createdAt,
      },
      ops: [...ops, { k: 'touch' as const, at: g.updatedAt }],
    };
  });
  return {
    prefix: stream.streamPrefix,
    expect: { rev: snapshot.revision, layout: 1 },
    stream: { doc: stream, head: streamHeadOf(stream, config.heartbeatIntervalMs) },
    groups,
  };
}
