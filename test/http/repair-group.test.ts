/**
 * `POST /coord/v1/streams/{p}/groups/{g}/repair` over the production path (HTTP → coordinator →
 * real Redis, standalone and Cluster): a group whose member records are gone is refused until an
 * operator resets it, `rebuild` is refused for it, and after `reset` every member rejoins at epoch
 * 0, gets nothing during the recovery hold, then shares the shards once each under a higher group
 * epoch. A group that lost only a derived index is rebuilt and its members carry on. ADMIN only;
 * a bad body writes nothing (docs/running-redis.md#when-a-group-is-reported-corrupt).
 */
import { describe, expect, it } from 'vitest';
import { Coordinator } from '../../src/coordinator.js';
import { createApp } from '../../src/http/app.js';
import { groupKeyList, groupKeys } from '../../src/store/keys.js';
import { basicFor, credentialsEnv, makeAuthStack, tokenFor } from '../auth/support.js';
import { SimMember } from '../support/members.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { heartbeat, type Stack, stacksPerTest, type TestResponse } from '../support/stack.js';

const meta = { requestedBy: 'repair-test', reason: 'keys deleted by hand' };

/** makeStack's heartbeat interval. */
const STEP = 500;

const repairPath = (p: string, g: string) => `/coord/v1/streams/${p}/groups/${g}/repair`;

/** Every shard 0..n-1 held by exactly one of `members`, or the problems found. */
function ownershipProblems(members: readonly SimMember[], n: number): string[] {
  const holders = new Map<number, string[]>();
  for (const m of members) for (const s of m.owned) holders.set(s, [...(holders.get(s) ?? []), m.id]);
  const problems: string[] = [];
  for (let s = 0; s < n; s++) {
    const h = holders.get(s) ?? [];
    if (h.length !== 1) problems.push(`shard ${s}: held by [${h.join(', ')}]`);
  }
  return problems;
}

describe.each(backends)('group repair ($name)', (backend) => {
  const stackOf = stacksPerTest(backend);

  /** A 4-shard stream whose group has members A and B settled, each on its shards. */
  async function settled(stack: Stack) {
    const p = uniquePrefix('repair');
    const created = await stack.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 4, ...meta });
    expect(created.status).toBe(201);
    const members = [new SimMember('A', p, p), new SimMember('B', p, p)];
    let epoch = 0;
    for (let round = 0; round < 8; round++) {
      for (const m of members) {
        const res = await m.beat(stack);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        epoch = Math.max(epoch, res.body.groupEpoch);
      }
      stack.clock.advance(STEP);
    }
    expect(ownershipProblems(members, 4)).toEqual([]);
    for (const m of members) expect(m.owned.length, m.id).toBe(2);
    return { p, members, keys: groupKeys(stack.config.keyPrefix, p, p), epoch };
  }

  const repair = (stack: Stack, p: string, body: unknown, g = p) =>
    stack.call('POST', repairPath(p, g), body);

  /** Every key of the group as DUMP sees it, to prove a request wrote nothing. */
  async function dumpGroup(stack: Stack, p: string): Promise<Array<string | null>> {
    const keys = groupKeyList(groupKeys(stack.config.keyPrefix, p, p));
    const dumps = await Promise.all(keys.map((k) => stack.redis.dumpBuffer(k)));
    return dumps.map((d) => (d ? d.toString('base64') : null));
  }

  /**
   * After a reset answered `reset`: members from before are unknown (they drop their shards and
   * rejoin at epoch 0), nobody is granted a shard during the recovery hold of one member lease,
   * then every shard is read by exactly one member; no group epoch answered is at or below `before`.
   */
  async function rejoinAfterReset(stack: Stack, members: SimMember[], reset: TestResponse, before: number) {
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    expect(reset.body.groupEpoch).toBeGreaterThan(before);
    expect(reset.body.currentAssignmentSummary).toEqual({});
    const resetAt = stack.clock.now();
    const epochs: number[] = [reset.body.groupEpoch];
    const beat = async (m: SimMember): Promise<TestResponse> => {
      const res = await m.beat(stack);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      // A rejected answer (UNKNOWN_MEMBER_ID) carries no epochs (all 0, docs/protocol.md#heartbeat-response).
      if (res.body.status !== 'UNKNOWN_MEMBER_ID') epochs.push(res.body.groupEpoch);
      return res;
    };
    for (const m of members) {
      expect(m.epoch, m.id).toBeGreaterThan(0);
      const res = await beat(m);
      expect(res.body.status, m.id).toBe('UNKNOWN_MEMBER_ID');
      expect(m.epoch).toBe(0);
      expect(m.owned).toEqual([]);
    }
    while (stack.clock.now() + STEP < resetAt + stack.config.memberLeaseTtlMs) {
      for (const m of members) {
        const res = await beat(m);
        expect(res.body.assignment.assignedShards, `${m.id} during the hold`).toEqual([]);
      }
      stack.clock.advance(STEP);
    }
    stack.clock.set(resetAt + stack.config.memberLeaseTtlMs + 1);
    for (let round = 0; round < 10; round++) {
      for (const m of members) await beat(m);
      stack.clock.advance(STEP);
    }
    expect(ownershipProblems(members, 4)).toEqual([]);
    for (const m of members) expect(m.owned.length, m.id).toBe(2);
    expect(Math.min(...epochs)).toBeGreaterThan(before);
    for (let i = 1; i < epochs.length; i++) expect(epochs[i]).toBeGreaterThanOrEqual(epochs[i - 1]!);
  }

  it('resets a group whose member records are lost: members rejoin at epoch 0, wait out the hold, then share every shard once', async () => {
    const stack = stackOf();
    const { p, members, keys, epoch: before } = await settled(stack);
    await stack.redis.del(keys.members);
    // Fail closed: no heartbeat is decided on a group without its records.
    for (const m of members) {
      const refused = await heartbeat(stack, p, p, m.id, { epoch: m.epoch, mv: m.mv, owned: m.owned });
      expect(refused.status, m.id).toBe(500);
      expect(refused.body.errorCode).toBe('METADATA_CORRUPT');
    }
    const reset = await repair(stack, p, { ...meta, mode: 'reset' });
    expect(reset.body).toMatchObject({ streamPrefix: p, consumerGroup: p, shardCount: 4 });
    await rejoinAfterReset(stack, members, reset, before);
  });

  it('refuses to rebuild a group whose header is lost (500 METADATA_CORRUPT, nothing written); a reset repairs it', async () => {
    const stack = stackOf();
    const { p, members, keys, epoch: before } = await settled(stack);
    await stack.redis.del(keys.header);
    const hb = await heartbeat(stack, p, p, 'A', { epoch: members[0]!.epoch, mv: members[0]!.mv });
    expect(hb.status).toBe(500);
    expect(hb.body.errorCode).toBe('METADATA_CORRUPT');
    const damaged = await dumpGroup(stack, p);
    const rebuild = await repair(stack, p, { ...meta, mode: 'rebuild' });
    expect(rebuild.status, JSON.stringify(rebuild.body)).toBe(500);
    expect(rebuild.body.errorCode).toBe('METADATA_CORRUPT');
    expect(rebuild.body.message).toContain('header');
    expect(await dumpGroup(stack, p)).toEqual(damaged);
    await rejoinAfterReset(stack, members, await repair(stack, p, { ...meta, mode: 'reset' }), before);
  });

  it('rebuilds a group that lost its owners index; its members carry on with their shards', async () => {
    const stack = stackOf();
    const { p, members, keys } = await settled(stack);
    await stack.redis.del(keys.owners);

    // A coordinator with its log captured, on the same Redis: the repair is audited.
    const logs: Array<{ level: string; msg: string; fields?: Record<string, unknown> }> = [];
    const coordinator = new Coordinator({
      store: stack.store,
      config: stack.config,
      now: stack.clock.now,
      log: (level, msg, fields) => logs.push({ level, msg, ...(fields ? { fields } : {}) }),
    });
    const app = createApp({ coordinator, config: stack.config, now: stack.clock.now });
    const res = await app.request(repairPath(p, p), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mode: 'rebuild', requestedBy: 'ops@example.com', reason: null }),
    });
    const body = await res.json();
    await coordinator.close();
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ streamPrefix: p, consumerGroup: p });
    expect(await stack.redis.hlen(keys.owners)).toBe(4);
    expect(logs.filter((l) => l.msg === 'group repaired')).toEqual([
      {
        level: 'info',
        msg: 'group repaired',
        fields: expect.objectContaining({
          streamPrefix: p,
          consumerGroup: p,
          requestedBy: 'ops@example.com',
          reason: null,
          mode: 'rebuild',
        }),
      },
    ]);

    // Heartbeats carry on: never refused, never fenced, no shard ever read by both, and every shard
    // read once again at the end (the rebuilt targets come from a new assignment round).
    for (let round = 0; round < 10; round++) {
      for (const m of members) {
        const r = await m.beat(stack);
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        expect(['OK', 'SYNC_METADATA', 'REVOKE_PENDING'], m.id).toContain(r.body.status);
        expect(ownershipProblems(members, 4).filter((x) => x.includes(','))).toEqual([]);
      }
      stack.clock.advance(STEP);
    }
    expect(ownershipProblems(members, 4)).toEqual([]);
    for (const m of members) expect(m.owned.length, m.id).toBe(2);
  });

  it('refuses a bad body with 400 INVALID_REQUEST and writes nothing, even on a damaged group', async () => {
    const stack = stackOf();
    const { p, keys } = await settled(stack);
    await stack.redis.del(keys.owners);
    const before = await dumpGroup(stack, p);
    for (const body of [
      { ...meta, mode: 'repair' },
      { ...meta, mode: 'RESET' },
      { ...meta },
      { mode: 'rebuild', reason: 'no one asked' },
      { mode: 'rebuild', requestedBy: '  ' },
      'not json',
    ]) {
      const res = await repair(stack, p, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errorCode).toBe('INVALID_REQUEST');
    }
    expect(await dumpGroup(stack, p)).toEqual(before);
    expect(await stack.redis.exists(keys.owners)).toBe(0);
  });

  it('answers 404 GROUP_NOT_FOUND for an unknown group or stream', async () => {
    const stack = stackOf();
    const { p } = await settled(stack);
    for (const [prefix, group] of [
      [p, 'nope'],
      [uniquePrefix('missing'), 'nope'],
    ] as const) {
      const res = await repair(stack, prefix, { ...meta, mode: 'reset' }, group);
      expect(res.status).toBe(404);
      expect(res.body.errorCode).toBe('GROUP_NOT_FOUND');
    }
  });
});

describe('group repair > access', () => {
  it('is for ADMIN only: WRITE and READ are refused (Basic and bearer), anonymous is challenged', async () => {
    const s = makeAuthStack(backends[0]!, credentialsEnv());
    try {
      const p = uniquePrefix('repair-auth');
      const created = await s.send('POST', `/coord/v1/streams/${p}`, {
        authorization: basicFor('admin'),
        body: { initialShardCount: 2, ...meta },
      });
      expect(created.status).toBe(201);
      const body = { ...meta, mode: 'rebuild' };
      const writerToken = `Bearer ${await tokenFor(s, 'writer')}`;
      for (const [who, authorization, status] of [
        ['anonymous', undefined, 401],
        ['reader', basicFor('reader'), 403],
        ['writer', basicFor('writer'), 403],
        ['writer token', writerToken, 403],
      ] as const) {
        const res = await s.send('POST', repairPath(p, p), { authorization, body });
        expect(res.status, who).toBe(status);
      }
      const admin = await s.send('POST', repairPath(p, p), { authorization: basicFor('admin'), body });
      expect(admin.status, admin.text).toBe(200);
      expect(admin.json).toMatchObject({ streamPrefix: p, consumerGroup: p });
    } finally {
      await s.close();
    }
  });
});
