/**
 * Fixtures and helpers shared by the Store contract's areas: a stream creator, a checked group
 * commit, a member writer, heartbeat reads, and a dump of every key of a stream.
 */
import { expect } from 'vitest';
import { memberOps, type PlanOp } from '../../src/core/commit-plan.js';
import type { HeartbeatOutput } from '../../src/core/heartbeat-types.js';
import type { MemberRecord, ShardProgress, StreamDoc } from '../../src/core/model.js';
import { groupKeyList, groupKeys, streamKeys } from '../../src/store/keys.js';
import type { MemberReadRequest, MemberReadView } from '../../src/store/store.js';
import { streamHeadOf } from '../../src/store/stream-head.js';
import { streamDoc, T0 } from '../support/store-fixtures.js';
import type { ContractTarget } from './contract.js';

/** Stale-member retention of every member write in the contract. */
export const RETENTION = { staleMemberRetentionMs: 600_000 };

/** A fast-path answer stored in fingerprints. */
export const ANSWER: HeartbeatOutput = {
  status: 'OK',
  memberId: 'm1',
  memberEpoch: 2,
  groupEpoch: 2,
  assignmentEpoch: 2,
  metadataVersion: 2,
  assignedShards: [0, 1],
  pendingShards: [],
  assignmentMetadataVersion: 2,
};

/** The shard progress heartbeats of the contract report. */
export const PROGRESS: ShardProgress[] = [
  {
    shard: 0,
    streamKey: 's:0',
    lastDeliveredId: '5-0',
    lastAckedId: '5-0',
    pendingCount: 0,
    updatedAt: null,
  },
];

/** The stream head a commit writes beside `doc`. */
export const head = (doc: StreamDoc) => streamHeadOf(doc, 3000);

/** Helpers bound to the target `get` returns (read at call time, after the suite's setup). */
export function contractKit(get: () => ContractTarget) {
  /** A stream with `groups` (epochs 1, version 1) and no members; returns its revision. */
  async function create(p: string, groups = ['g'], over: Partial<StreamDoc> = {}): Promise<number> {
    const doc = streamDoc(p, groups, over);
    const r = await get().store.commit({
      prefix: p,
      expect: 'absent',
      stream: { doc, head: head(doc) },
      groups: groups.map((name) => ({
        name,
        create: { groupEpoch: 1, assignmentEpoch: 1, metadataVersion: 1, at: T0 },
        ops: [],
      })),
    });
    expect(r.ok).toBe(true);
    return r.ok ? (r.streamRev ?? 0) : 0;
  }

  /** Commits `ops` to group `g` of stream `p` at revision `rev`. */
  function commit(p: string, rev: number, ops: PlanOp[], g = 'g') {
    return get().store.commit({
      prefix: p,
      expect: { rev },
      groups: [{ name: g, ops: [{ k: 'group-exists' }, ...ops] }],
    });
  }

  /** Writes a new member record (and target) of group `g` with every index it implies. */
  async function add(p: string, rev: number, m: MemberRecord, target?: number[], g = 'g'): Promise<void> {
    const ops = memberOps(m.memberId, null, m, { owners: new Map(), ...RETENTION });
    if (target) ops.push({ k: 'target', member: m.memberId, target });
    expect((await commit(p, rev, ops, g)).ok).toBe(true);
  }

  /** A heartbeat read of `memberId` in group `g` at T0 + 1 s, without the fast path. */
  function readReq(p: string, memberId: string, over: Partial<MemberReadRequest> = {}): MemberReadRequest {
    return {
      prefix: p,
      group: 'g',
      memberId,
      now: T0 + 1000,
      fastKey: null,
      leaseExpiresAt: T0 + 16_000,
      progressJson: JSON.stringify(PROGRESS),
      shards: [],
      maxDue: 16,
      ...over,
    };
  }

  /** A heartbeat read that must come back as a view. */
  async function view(p: string, memberId: string, over: Partial<MemberReadRequest> = {}) {
    const r = await get().store.readMember(readReq(p, memberId, over));
    expect(r.kind).toBe('view');
    return r as MemberReadView;
  }

  /** Every key of a stream, to prove a refused or missed call wrote nothing. */
  async function dump(p: string, groups = ['g']): Promise<unknown> {
    const { raw, ns } = get();
    const out: Record<string, unknown> = {};
    const keys = [streamKeys(ns, p).stream, ...groups.flatMap((g) => groupKeyList(groupKeys(ns, p, g)))];
    for (const k of keys) {
      const type = await raw.type(k);
      if (type === 'hash') out[k] = await raw.hgetall(k);
      else if (type === 'zset') out[k] = await raw.zrange(k, '0', '-1', 'WITHSCORES');
      else if (type === 'set') out[k] = (await raw.smembers(k)).sort();
      else if (type === 'string') out[k] = await raw.get(k);
    }
    return out;
  }

  return { create, commit, add, readReq, view, dump, head };
}

/** What `contractKit` returns. */
export type ContractKit = ReturnType<typeof contractKit>;
