/**
 * The Store contract (layout 2): one suite every Store implementation must pass, run against the
 * ioredis store on standalone Redis and on a 6-node Cluster, and against the Upstash store
 * through the REST bridge (BullMQ's adapter-conformance tests are the model).
 */
import type { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fingerprint, memberOps, type PlanOp } from '../../src/core/commit-plan.js';
import { isCoordinatorError } from '../../src/core/errors.js';
import type { HeartbeatOutput } from '../../src/core/heartbeat-types.js';
import type { MemberRecord, ShardProgress, StreamDoc } from '../../src/core/model.js';
import { groupKeyList, groupKeys, streamKeys } from '../../src/store/keys.js';
import type { MemberReadRequest, MemberReadView, Store } from '../../src/store/store.js';
import { streamHeadOf } from '../../src/store/stream-head.js';
import { uniquePrefix } from '../support/redis.js';
import { member, streamDoc, T0 } from '../support/store-fixtures.js';
import { defineMutexContract } from './contract-mutex.js';
import { defineQuotaContract } from './contract-quotas.js';

/** A store under test, a raw client on the same data, and its namespace. */
export interface ContractTarget {
  store: Store;
  raw: Redis | Cluster;
  ns: string;
  close(): Promise<void>;
}

const RETENTION = { staleMemberRetentionMs: 600_000 };
const ANSWER: HeartbeatOutput = {
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
const PROGRESS: ShardProgress[] = [
  {
    shard: 0,
    streamKey: 's:0',
    lastDeliveredId: '5-0',
    lastAckedId: '5-0',
    pendingCount: 0,
    updatedAt: null,
  },
];

/** Declares the contract suite for the target `make` builds. */
export function defineStoreContract(name: string, make: () => Promise<ContractTarget>): void {
  describe(`store contract (${name})`, () => {
    let t: ContractTarget;
    beforeAll(async () => {
      t = await make();
    });
    afterAll(async () => {
      await t.close();
    });

    const head = (doc: StreamDoc) => streamHeadOf(doc, 3000);

    /** A stream with `groups` (epochs 1, version 1) and no members; returns its revision. */
    async function create(p: string, groups = ['g'], over: Partial<StreamDoc> = {}): Promise<number> {
      const doc = streamDoc(p, groups, over);
      const r = await t.store.commit({
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
      return t.store.commit({
        prefix: p,
        expect: { rev },
        groups: [{ name: g, ops: [{ k: 'group-exists' }, ...ops] }],
      });
    }

    /** Writes a new member record (and target) with every index it implies. */
    async function add(p: string, rev: number, m: MemberRecord, target?: number[]): Promise<void> {
      const ops = memberOps(m.memberId, null, m, { owners: new Map(), ...RETENTION });
      if (target) ops.push({ k: 'target', member: m.memberId, target });
      expect((await commit(p, rev, ops)).ok).toBe(true);
    }

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

    async function view(p: string, memberId: string, over: Partial<MemberReadRequest> = {}) {
      const r = await t.store.readMember(readReq(p, memberId, over));
      expect(r.kind).toBe('view');
      return r as MemberReadView;
    }

    /** Every key of a stream, to prove a refused or missed call wrote nothing. */
    async function dump(p: string, groups = ['g']): Promise<unknown> {
      const out: Record<string, unknown> = {};
      const keys = [
        streamKeys(t.ns, p).stream,
        ...groups.flatMap((g) => groupKeyList(groupKeys(t.ns, p, g))),
      ];
      for (const k of keys) {
        const type = await t.raw.type(k);
        if (type === 'hash') out[k] = await t.raw.hgetall(k);
        else if (type === 'zset') out[k] = await t.raw.zrange(k, '0', '-1', 'WITHSCORES');
        else if (type === 'set') out[k] = (await t.raw.smembers(k)).sort();
        else if (type === 'string') out[k] = await t.raw.get(k);
      }
      return out;
    }

    describe('streams and groups', () => {
      it('creates a stream with its groups and loads them back whole', async () => {
        const p = uniquePrefix('create');
        expect(await create(p, ['b', 'a'])).toBe(1);
        const snap = await t.store.load(p, 'all');
        expect(snap?.revision).toBe(1);
        expect(snap?.stream).toEqual(streamDoc(p, ['a', 'b']));
        expect(snap?.groups.a).toMatchObject({
          streamPrefix: p,
          consumerGroup: 'a',
          groupEpoch: 1,
          assignmentEpoch: 1,
          metadataVersion: 1,
          state: 'EMPTY',
          members: {},
          targetAssignments: {},
          metadataCorrection: null,
        });
        expect(Object.keys((await t.store.load(p, ['b']))?.groups ?? {})).toEqual(['b']);
      });

      it('returns null for a stream that does not exist', async () => {
        expect(await t.store.load(uniquePrefix('none'), 'all')).toBeNull();
        expect((await t.store.readMember(readReq(uniquePrefix('none'), 'm'))).kind).toBe('no-stream');
      });

      it('loads every group whatever characters its name holds', async () => {
        const p = uniquePrefix('names/ü');
        const names = ['billing', 'grüße', 'x:{y}', 'a b%c'];
        await create(p, names);
        expect(Object.keys((await t.store.load(p, 'all'))?.groups ?? {}).sort()).toEqual([...names].sort());
        const rev = 1;
        await t.store.commit({
          prefix: p,
          expect: { rev },
          groups: [
            { name: 'x:{y}', ops: memberOps('m✓', null, member('m✓'), { owners: new Map(), ...RETENTION }) },
          ],
        });
        expect((await t.store.load(p, ['x:{y}']))?.groups['x:{y}']?.members['m✓']?.state).toBe('ACTIVE');
      });

      it('refuses to create an existing stream and any commit against a stale or missing one, writing nothing', async () => {
        const p = uniquePrefix('stale');
        await create(p);
        const before = await dump(p);
        const doc = streamDoc(p, ['g'], { shardCount: 9 });
        expect(
          (
            await t.store.commit({
              prefix: p,
              expect: 'absent',
              stream: { doc, head: head(doc) },
              groups: [],
            })
          ).ok,
        ).toBe(false);
        expect(
          (
            await t.store.commit({
              prefix: p,
              expect: { rev: 7 },
              stream: { doc, head: head(doc) },
              groups: [],
            })
          ).ok,
        ).toBe(false);
        expect(
          (await commit(p, 2, memberOps('m1', null, member('m1'), { owners: new Map(), ...RETENTION }))).ok,
        ).toBe(false);
        expect(await dump(p)).toEqual(before);
        expect((await commit(uniquePrefix('gone'), 1, [])).ok).toBe(false);
      });

      it('moves the stream revision only when its document is written', async () => {
        const p = uniquePrefix('rev');
        await create(p);
        await add(p, 1, member('m1'), [0, 1]);
        expect((await t.store.load(p, []))?.revision).toBe(1);
        const doc = streamDoc(p, ['g'], { shardCount: 6 });
        const r = await t.store.commit({
          prefix: p,
          expect: { rev: 1 },
          stream: { doc, head: head(doc) },
          groups: [],
        });
        expect(r).toMatchObject({ ok: true, streamRev: 2 });
        expect((await t.store.load(p, []))?.stream.shardCount).toBe(6);
      });

      it('keeps unknown fields of a stream document written by a newer version', async () => {
        const p = uniquePrefix('newer');
        const doc = { ...streamDoc(p, ['g']), futureField: { x: 1 } } as StreamDoc;
        await t.store.commit({
          prefix: p,
          expect: 'absent',
          stream: { doc, head: head(doc) },
          groups: [
            { name: 'g', create: { groupEpoch: 1, assignmentEpoch: 1, metadataVersion: 1, at: T0 }, ops: [] },
          ],
        });
        expect((await t.store.load(p, []))?.stream).toMatchObject({ futureField: { x: 1 } });
      });

      it('deletes a group with every key of it, and then the stream', async () => {
        const p = uniquePrefix('del');
        await create(p, ['g', 'h']);
        await add(p, 1, member('m1', { currentAssignment: [0] }), [0]);
        const doc = streamDoc(p, ['h']);
        expect(
          (
            await t.store.commit({
              prefix: p,
              expect: { rev: 1 },
              stream: { doc, head: head(doc) },
              groups: [{ name: 'g', delete: true, ops: [] }],
            })
          ).ok,
        ).toBe(true);
        for (const k of groupKeyList(groupKeys(t.ns, p, 'g'))) expect(await t.raw.exists(k)).toBe(0);
        expect(Object.keys((await t.store.load(p, 'all'))?.groups ?? {})).toEqual(['h']);
        expect(
          (
            await t.store.commit({
              prefix: p,
              expect: { rev: 2 },
              stream: null,
              groups: [{ name: 'h', delete: true, ops: [] }],
            })
          ).ok,
        ).toBe(true);
        expect(await t.store.load(p, 'all')).toBeNull();
      });
    });

    describe('member records and their indexes', () => {
      it('assembles records on load: lease and heartbeat time by maximum, progress, deadline, target, round', async () => {
        const p = uniquePrefix('assemble');
        await create(p);
        const m = member('m1', {
          currentAssignment: [0, 1],
          grantedAssignment: [0, 1],
          rebalanceDeadlineAt: T0 + 60_000,
          shardProgress: PROGRESS,
        });
        await add(p, 1, m, [0, 1]);
        // A fresher lease and heartbeat time written beside the record (as the fast path does).
        await commit(p, 1, [
          { k: 'lease', member: 'm1', at: T0 + 30_000 },
          { k: 'live', member: 'm1', at: T0 + 9000, progress: null },
          {
            k: 'round',
            round: { targetMetadataVersion: 1, observedMetadataVersion: 4, requestedAt: T0, updatedAt: T0 },
            freshAcks: true,
          },
          { k: 'ack', member: 'm1' },
        ]);
        const g = (await t.store.load(p, ['g']))!.groups.g!;
        expect(g.members.m1).toEqual({
          ...m,
          memberLeaseExpiresAt: T0 + 30_000,
          lastHeartbeatAt: T0 + 9000,
          shardProgress: PROGRESS,
        });
        expect(g.targetAssignments).toEqual({ m1: [0, 1] });
        expect(g.metadataCorrection).toEqual({
          targetMetadataVersion: 1,
          observedMetadataVersion: 4,
          requestedAt: T0,
          updatedAt: T0,
          acknowledgedMembers: ['m1'],
        });
        expect(g.state).toBe('STABLE');
      });

      it('never lowers a lease, keeps the newest live entry, and a time-only write keeps the progress', async () => {
        const p = uniquePrefix('live');
        await create(p);
        await add(
          p,
          1,
          member('m1', {
            memberLeaseExpiresAt: T0 + 20_000,
            shardProgress: PROGRESS,
            lastHeartbeatAt: T0 + 5,
          }),
        );
        await commit(p, 1, [
          { k: 'lease', member: 'm1', at: T0 + 10_000 },
          { k: 'live', member: 'm1', at: T0 + 1, progress: [] },
          { k: 'live', member: 'm1', at: T0 + 50, progress: null },
        ]);
        const m = (await t.store.load(p, ['g']))!.groups.g!.members.m1!;
        expect(m.memberLeaseExpiresAt).toBe(T0 + 20_000);
        expect(m.lastHeartbeatAt).toBe(T0 + 50);
        expect(m.shardProgress).toEqual(PROGRESS);
      });

      it('refuses a write whose record, target, ownership entry or round changed, writing nothing', async () => {
        const p = uniquePrefix('checks');
        await create(p);
        await add(p, 1, member('m1', { currentAssignment: [0] }), [0]);
        const before = await dump(p);
        const write: PlanOp = { k: 'touch', at: T0 + 99 };
        const refused: PlanOp[][] = [
          [{ k: 'record-rev', member: 'm1', rev: 7 }, write],
          [{ k: 'record-rev', member: 'm2', rev: 1 }, write],
          [{ k: 'target-is', member: 'm1', target: [0, 1] }, write],
          [{ k: 'target-is', member: 'm2', target: [] }, write],
          [{ k: 'owner-is', shard: 0, owner: null }, write],
          [{ k: 'owner-is', shard: 0, owner: { memberId: 'm1', kind: 'g' } }, write],
          [{ k: 'owner-mine', shard: 0, member: 'm2' }, write],
          [
            {
              k: 'round-is',
              round: { targetMetadataVersion: 1, observedMetadataVersion: 2, requestedAt: 0, updatedAt: 0 },
            },
            write,
          ],
          [{ k: 'token-is', token: 'nobody' }, write],
        ];
        for (const ops of refused) expect((await commit(p, 1, ops)).ok, JSON.stringify(ops[0])).toBe(false);
        expect(await dump(p)).toEqual(before);
        const accepted: PlanOp[] = [
          { k: 'record-rev', member: 'm1', rev: 1 },
          { k: 'record-rev', member: 'm2', rev: null },
          { k: 'target-is', member: 'm1', target: [0] },
          { k: 'target-is', member: 'm2', target: null },
          { k: 'owner-is', shard: 0, owner: { memberId: 'm1', kind: 'c' } },
          { k: 'owner-is', shard: 1, owner: null },
          { k: 'owner-mine', shard: 0, member: 'm1' },
          { k: 'owner-mine', shard: 1, member: 'm2' },
          { k: 'round-is', round: null },
          write,
        ];
        expect((await commit(p, 1, accepted)).ok).toBe(true);
      });

      it('refuses an expiry when the member renewed its lease after the decision', async () => {
        const p = uniquePrefix('expiry');
        await create(p);
        await add(p, 1, member('m1', { memberLeaseExpiresAt: T0 + 15_000 }));
        await commit(p, 1, [{ k: 'lease', member: 'm1', at: T0 + 18_000 }]);
        expect(
          (
            await commit(p, 1, [
              { k: 'lease-at-most', member: 'm1', lease: T0 + 15_000 },
              { k: 'drop-lease', member: 'm1' },
            ])
          ).ok,
        ).toBe(false);
        expect(
          (
            await commit(p, 1, [
              { k: 'lease-at-most', member: 'm1', lease: T0 + 18_000 },
              { k: 'drop-lease', member: 'm1' },
            ])
          ).ok,
        ).toBe(true);
        expect((await commit(p, 1, [{ k: 'lease-at-most', member: 'm1', lease: 0 }])).ok).toBe(true);
      });

      it('releases an ownership entry only for the member holding it', async () => {
        const p = uniquePrefix('owners');
        await create(p);
        await add(p, 1, member('m1', { currentAssignment: [0, 1] }));
        await commit(p, 1, [
          { k: 'release-owner', shard: 0, member: 'm2' },
          { k: 'release-owner', shard: 1, member: 'm1' },
        ]);
        const v = await view(p, 'x', { shards: [0, 1] });
        expect(v.owners.get(0)).toEqual({ memberId: 'm1', kind: 'c' });
        expect(v.owners.get(1)).toBeNull();
      });

      it('gives concurrent joiners distinct epochs: the group epoch right after each one’s own bump', async () => {
        const p = uniquePrefix('joins');
        await create(p);
        const ids = Array.from({ length: 6 }, (_, i) => `j${i}`);
        await Promise.all(
          ids.map((id) =>
            t.store.commit({
              prefix: p,
              expect: { rev: 1 },
              groups: [
                {
                  name: 'g',
                  ops: [
                    { k: 'group-exists' },
                    ...memberOps(id, null, member(id), { owners: new Map(), ...RETENTION, joinedFloor: 0 }),
                    { k: 'bump', group: 1, metadata: 1, at: T0 },
                  ],
                },
              ],
            }),
          ),
        );
        const g = (await t.store.load(p, ['g']))!.groups.g!;
        expect(g.groupEpoch).toBe(7);
        expect(ids.map((id) => g.members[id]!.memberEpoch).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7]);
      });
    });

    describe('heartbeat reads and the fast path', () => {
      it('reads a member’s view: header, record, target, ownership of its shards, holders’ status, due members', async () => {
        const p = uniquePrefix('view');
        await create(p);
        await add(p, 1, member('m1', { currentAssignment: [0], memberLeaseExpiresAt: T0 + 500 }), [0, 2]);
        await add(p, 1, member('m2', { state: 'LEAVING', memberEpoch: -1, revoking: [2] }));
        await add(
          p,
          1,
          member('m3', {
            state: 'FENCED',
            fence: 'BLOCKING',
            currentAssignment: [5],
            memberLeaseExpiresAt: T0 + 100,
          }),
        );
        const v = await view(p, 'm1', { shards: [5, 0] });
        expect(v.header).toMatchObject({
          groupEpoch: 1,
          assignmentEpoch: 1,
          metadataVersion: 1,
          correction: null,
        });
        expect(v.member?.record).toMatchObject({ memberId: 'm1', currentAssignment: [0] });
        expect(v.member?.rev).toBe(1);
        expect(v.target).toEqual([0, 2]);
        expect(v.targetStored).toBe(true);
        expect([...v.owners]).toEqual([
          [0, { memberId: 'm1', kind: 'c' }],
          [2, { memberId: 'm2', kind: 'r' }],
          [5, { memberId: 'm3', kind: 'c' }],
        ]);
        expect([...v.holders]).toEqual([
          ['m2', 'L'],
          ['m3', 'B'],
        ]);
        // m1's lease passed (T0+500 < now); m3's blocking fence lapses after its lease.
        expect(v.due.expired).toEqual(['m1']);
        expect(v.due.timers).toEqual(['m3']);
        const unknown = await view(p, 'nobody');
        expect(unknown.member).toBeNull();
        expect(unknown.targetStored).toBe(false);
      });

      it('answers the fast path from a matching fingerprint, renewing lease and progress; misses write nothing', async () => {
        const p = uniquePrefix('fast');
        await create(p);
        await add(p, 1, member('m1', { currentAssignment: [0, 1], grantedAssignment: [0, 1] }), [0, 1]);
        const fingerprint = (over = {}) => ({
          groupEpoch: 1,
          assignmentEpoch: 1,
          metadataVersion: 1,
          streamRev: 1,
          memberRev: 1,
          target: [0, 1],
          key: 'key-ü',
          waits: [] as Fingerprint['waits'],
          response: ANSWER,
          ...over,
        });
        await commit(p, 1, [{ k: 'fingerprint', member: 'm1', fingerprint: fingerprint() }]);
        const fast = readReq(p, 'm1', { fastKey: 'key-ü' });
        expect(await t.store.readMember(fast)).toEqual({ kind: 'fast', response: ANSWER });
        expect(Number(await t.raw.zscore(groupKeys(t.ns, p, 'g').leases, 'm1'))).toBe(T0 + 16_000);
        expect((await t.store.load(p, ['g']))!.groups.g!.members.m1!.shardProgress).toEqual(PROGRESS);
        // Never shortens a lease.
        expect((await t.store.readMember({ ...fast, leaseExpiresAt: T0 + 2000 })).kind).toBe('fast');
        expect(Number(await t.raw.zscore(groupKeys(t.ns, p, 'g').leases, 'm1'))).toBe(T0 + 16_000);

        const misses: Array<[string, Partial<ReturnType<typeof fingerprint>>]> = [
          ['group epoch', { groupEpoch: 2 }],
          ['assignment epoch', { assignmentEpoch: 0 }],
          ['metadata version', { metadataVersion: 5 }],
          ['stream revision', { streamRev: 2 }],
          ['record revision', { memberRev: 2 }],
          ['target', { target: [0] }],
          ['key', { key: 'other' }],
        ];
        for (const [what, over] of misses) {
          await commit(p, 1, [{ k: 'fingerprint', member: 'm1', fingerprint: fingerprint(over) }]);
          const before = await dump(p);
          expect((await t.store.readMember(fast)).kind, what).toBe('view');
          expect(await dump(p), what).toEqual(before);
        }
        await commit(p, 1, [{ k: 'fingerprint', member: 'm1', fingerprint: fingerprint() }]);
        // An open correction round, and a member whose lease passed, both close the fast path.
        await commit(p, 1, [
          {
            k: 'round',
            round: { targetMetadataVersion: 1, observedMetadataVersion: 2, requestedAt: 0, updatedAt: 0 },
            freshAcks: true,
          },
        ]);
        expect((await t.store.readMember(fast)).kind).toBe('view');
        await commit(p, 1, [{ k: 'round', round: null, freshAcks: false }]);
        expect((await t.store.readMember(fast)).kind).toBe('fast');
        await add(p, 1, member('late', { memberLeaseExpiresAt: T0 + 10 }));
        expect((await t.store.readMember(fast)).kind).toBe('view');
      });
    });

    describe('the fast path of a member waiting for a shard', () => {
      it('answers while the pending shard keeps its holder, and misses once the holder lets go or stops blocking', async () => {
        const p = uniquePrefix('wait');
        await create(p);
        await add(p, 1, member('m1', { grantedAssignment: [0] }), [0, 1]);
        await add(p, 1, member('h', { currentAssignment: [1] }));
        const pending: HeartbeatOutput = { ...ANSWER, assignedShards: [0], pendingShards: [1] };
        const waits: Fingerprint['waits'] = [{ shard: 1, owner: { memberId: 'h', kind: 'c' }, status: 'A' }];
        await commit(p, 1, [
          {
            k: 'fingerprint',
            member: 'm1',
            fingerprint: {
              groupEpoch: 1,
              assignmentEpoch: 1,
              metadataVersion: 1,
              streamRev: 1,
              memberRev: 1,
              target: [0, 1],
              key: 'k',
              waits,
              response: pending,
            },
          },
        ]);
        const fast = readReq(p, 'm1', { fastKey: 'k' });
        expect(await t.store.readMember(fast)).toEqual({ kind: 'fast', response: pending });
        // The holder's status changes (it starts leaving): no longer the recorded blocker.
        await commit(p, 1, [{ k: 'status', member: 'h', status: 'L' }]);
        expect((await t.store.readMember(fast)).kind).toBe('view');
        await commit(p, 1, [{ k: 'status', member: 'h', status: 'A' }]);
        expect((await t.store.readMember(fast)).kind).toBe('fast');
        // The holder lets go of the shard.
        await commit(p, 1, [{ k: 'release-owner', shard: 1, member: 'h' }]);
        expect((await t.store.readMember(fast)).kind).toBe('view');
      });
    });

    describe('group steps', () => {
      it('lists what an assignment round needs and takes the group’s assignment lock', async () => {
        const p = uniquePrefix('assign');
        await create(p);
        await add(p, 1, member('m1', { currentAssignment: [0], rebalanceDeadlineAt: T0 + 60_000 }), [0, 1]);
        await add(p, 1, member('m2', { memberLeaseExpiresAt: T0 - 1 }));
        const r = await t.store.readAssignment(p, 'g', T0, 'tok', 2000);
        expect(r).not.toBe('busy');
        if (r === 'busy' || r === null) throw new Error('no read');
        expect(r.live).toEqual(['m1']);
        expect([...r.targets]).toEqual([['m1', [0, 1]]]);
        expect([...r.owners]).toEqual([[0, { memberId: 'm1', kind: 'c' }]]);
        expect([...r.deadlines]).toEqual([['m1', T0 + 60_000]]);
        expect(await t.store.readAssignment(p, 'g', T0, 'other', 2000)).toBe('busy');
        expect(await t.store.tryLock(p, 'other', 1000, 'g')).toBe(false);
        expect(
          (
            await commit(p, 1, [
              { k: 'token-is', token: 'tok' },
              { k: 'release-lock', token: 'tok', ms: 0 },
            ])
          ).ok,
        ).toBe(true);
        expect(await t.store.tryLock(p, 'other', 1000, 'g')).toBe(true);
      });

      it('lists due members and flags due work per group', async () => {
        const p = uniquePrefix('due');
        await create(p, ['g', 'idle']);
        await add(p, 1, member('m1', { memberLeaseExpiresAt: T0 - 5 }));
        await add(p, 1, member('m2', { rebalanceDeadlineAt: T0 - 1, currentAssignment: [3] }));
        expect(await t.store.readDue(p, 'g', T0, 10)).toEqual({
          expired: ['m1'],
          deadlines: ['m2'],
          timers: [],
          assignmentDue: false,
        });
        await commit(p, 1, [{ k: 'bump', group: 1, metadata: 1, at: T0 }]);
        const probe = await t.store.probeStream(p, T0);
        expect(probe?.groups).toEqual([
          {
            name: 'g',
            exists: true,
            assignmentDue: true,
            leaseDue: true,
            deadlineDue: true,
            timerDue: false,
            roundOpen: false,
          },
          {
            name: 'idle',
            exists: true,
            assignmentDue: false,
            leaseDue: false,
            deadlineDue: false,
            timerDue: false,
            roundOpen: false,
          },
        ]);
      });

      it('records when the oldest unassigned change was made, until a round assigns every change', async () => {
        const p = uniquePrefix('pending');
        await create(p);
        const pendingSince = async () => (await view(p, 'nobody')).header.pendingSince;
        expect(await pendingSince()).toBeUndefined();
        await commit(p, 1, [{ k: 'bump', group: 1, metadata: 1, at: T0 + 10 }]);
        // A later change keeps the oldest one's time.
        await commit(p, 1, [{ k: 'bump', group: 1, metadata: 1, at: T0 + 20 }]);
        expect(await pendingSince()).toBe(T0 + 10);
        // A round that assigned only the first change: the rest counts from the round.
        await commit(p, 1, [{ k: 'assignment-epoch', value: 2, at: T0 + 30 }]);
        expect(await pendingSince()).toBe(T0 + 30);
        await commit(p, 1, [{ k: 'assignment-epoch', value: 3, at: T0 + 40 }]);
        expect(await pendingSince()).toBeUndefined();
        // A metadata-only bump is no membership change.
        await commit(p, 1, [{ k: 'bump', group: 0, metadata: 1, at: T0 + 50 }]);
        expect(await pendingSince()).toBeUndefined();
      });

      it('takes a mutex, renews it for the same token (a resent acquire after a lost reply), refuses others, releases only its own', async () => {
        const p = uniquePrefix('lock');
        expect(await t.store.tryLock(p, 'a', 5000)).toBe(true);
        expect(await t.store.tryLock(p, 'a', 5000)).toBe(true);
        expect(await t.store.tryLock(p, 'b', 5000)).toBe(false);
        await t.store.unlock(p, 'b');
        expect(await t.store.tryLock(p, 'b', 5000)).toBe(false);
        // The group's assignment lock is a different key.
        expect(await t.store.tryLock(p, 'b', 5000, 'g')).toBe(true);
        await t.store.unlock(p, 'a');
        expect(await t.store.tryLock(p, 'b', 5000)).toBe(true);
        expect(await t.raw.pttl(streamKeys(t.ns, p).lock)).toBeGreaterThan(0);
      });
    });

    defineMutexContract(() => t);
    defineQuotaContract(() => t);

    describe('unreadable metadata fails closed', () => {
      async function expectCorrupt(run: () => Promise<unknown>): Promise<void> {
        const err = await run().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(isCoordinatorError(err) && err.code).toBe('METADATA_CORRUPT');
        expect((err as Error).message).not.toMatch(/redis:\/\/|127\.0\.0\.1/);
      }

      // [what, where, whether a heartbeat's own read sees it]
      it.each<[string, (p: string, ns: string) => [string, string, string], boolean]>([
        [
          'a stream document that is not JSON',
          (p, ns) => [streamKeys(ns, p).stream, 'doc', '{"streamPrefix": '],
          true,
        ],
        ['a stream heartbeat view that is not JSON', (p, ns) => [streamKeys(ns, p).stream, 'hb', 'x'], true],
        ['a group header without a number', (p, ns) => [groupKeys(ns, p, 'g').header, 'ge', 'x'], true],
        [
          'a member record that is not JSON',
          (p, ns) => [groupKeys(ns, p, 'g').members, 'm1', '1|{"n":'],
          true,
        ],
        ['a member record without a revision', (p, ns) => [groupKeys(ns, p, 'g').members, 'm1', '{}'], true],
        ['a target that is not a shard list', (p, ns) => [groupKeys(ns, p, 'g').targets, 'm1', '7-3'], true],
        // A heartbeat reads only the time of its live entry, never the progress in it.
        [
          'a live entry that is not one',
          (p, ns) => [groupKeys(ns, p, 'g').live, 'm1', '{"at":"soon"}'],
          false,
        ],
      ])('rejects %s and leaves it untouched', async (_n, where, heartbeatSees) => {
        const p = uniquePrefix('bad');
        await create(p);
        await add(p, 1, member('m1'), [0]);
        const [key, field, value] = where(p, t.ns);
        await t.raw.hset(key, field, value);
        await expectCorrupt(() => t.store.load(p, 'all'));
        await expectCorrupt(() => t.store.load(p, ['g']));
        if (heartbeatSees) await expectCorrupt(() => t.store.readMember(readReq(p, 'm1')));
        expect(await t.raw.hget(key, field)).toBe(value);
      });

      it('rejects a group the stream lists that has no header, and a header without its stream', async () => {
        const p = uniquePrefix('lost');
        await create(p);
        await t.raw.del(groupKeys(t.ns, p, 'g').header);
        await expectCorrupt(() => t.store.load(p, 'all'));
        await expectCorrupt(() => t.store.readMember(readReq(p, 'm1')));
        const q = uniquePrefix('orphan');
        await create(q);
        await t.raw.del(streamKeys(t.ns, q).stream);
        await expectCorrupt(() => t.store.load(q, ['g']));
        await expectCorrupt(() => t.store.readMember(readReq(q, 'm1')));
      });
    });
  });
}
