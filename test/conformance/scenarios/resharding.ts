/**
 * Resharding (docs/protocol.md#resharding, docs/protocol.md#deviation-scale-in-drains): scale-out completes without live members, scale-in drains removed
 * shards on Redis evidence and retires them with an atomic check-and-delete (so a stale
 * producer's `XADD NOMKSTREAM` is refused), and rollback where metadata alone can undo it. The
 * drain evidence and the retirement go through each runtime's own store (ioredis / Upstash).
 */
import { expect } from 'vitest';
import { uniquePrefix } from '../../support/redis.js';
import { createStream, groupPath, heartbeat, type Scenario, sleep } from '../scenario.js';
import type { ConformanceTarget, TargetResponse } from '../target.js';

function scale(t: ConformanceTarget, p: string, target: number): Promise<TargetResponse> {
  return t.call('POST', `/coord/v1/streams/${encodeURIComponent(p)}/scale`, {
    targetShardCount: target,
    requestedBy: 'conformance',
    reason: 'resharding scenario',
  });
}

function rollback(t: ConformanceTarget, p: string, id: string): Promise<TargetResponse> {
  return t.call('POST', `${groupPath(p)}/migrations/${id}/rollback`, {
    requestedBy: 'conformance',
    reason: 'undo',
  });
}

async function migrationState(t: ConformanceTarget, p: string, id: string): Promise<string> {
  const res = await t.call('GET', `${groupPath(p)}/migrations/${id}`);
  expect(res.status).toBe(200);
  return res.body.state;
}

async function routedShards(t: ConformanceTarget, p: string): Promise<number> {
  const res = await t.call('GET', `${groupPath(p)}/producer-routing`);
  expect(res.body.shards).toHaveLength(res.body.shardCount);
  return res.body.shardCount;
}

/** Runs the scheduled sweep (a heartbeat interval apart, as evidence is re-read at that pace) until `done`. */
async function sweepUntil(t: ConformanceTarget, done: () => Promise<boolean>, tries = 6): Promise<void> {
  for (let i = 0; i < tries; i++) {
    await t.triggerSweep(Date.now());
    if (await done()) return;
    await sleep(600);
  }
  expect(await done(), 'condition not reached by the scheduled sweep').toBe(true);
}

/** Reads and acknowledges everything new on `key` for `group` (a consumer outside the coordinator). */
async function drain(t: ConformanceTarget, key: string, group: string): Promise<number> {
  const reply = (await t.redis.xreadgroup(
    'GROUP',
    group,
    'reader',
    'COUNT',
    100,
    'STREAMS',
    key,
    '>',
  )) as Array<[string, Array<[string, string[]]>]> | null;
  const ids = (reply?.[0]?.[1] ?? []).map(([id]) => id);
  if (ids.length > 0) await t.redis.xack(key, group, ...ids);
  return ids.length;
}

/** Scenarios about resharding. */
export const reshardingScenarios: Scenario[] = [
  {
    name: 'scales out 2 → 4: provisions the added shards, routes to 4 at once, completes without live members',
    async run(t) {
      const p = uniquePrefix('out');
      await createStream(t, p, 2);
      const res = await scale(t, p, 4);
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ streamPrefix: p, targetShardCount: 4, affectedConsumerGroups: [p] });
      const [m] = res.body.migrations;
      expect(m).toMatchObject({ fromShardCount: 2, toShardCount: 4, state: 'ACTIVE' });
      expect(await routedShards(t, p)).toBe(4);
      for (const i of [2, 3]) {
        const groups = (await t.redis.xinfo('GROUPS', `${p}:${i}`)) as unknown[][];
        expect(groups.map((g) => g[1])).toEqual([p]);
      }
      await sweepUntil(t, async () => (await migrationState(t, p, m.reshardingId)) === 'DEPRECATED');
      expect((await t.call('GET', groupPath(p))).body).toMatchObject({
        shardCount: 4,
        activeMigration: null,
      });
    },
  },
  {
    name: 'scales in 3 → 1: removed shards drain on Redis evidence, then are deleted so stale producers are refused',
    async run(t) {
      const p = uniquePrefix('in');
      await createStream(t, p, 3);
      await t.redis.xadd(`${p}:2`, 'NOMKSTREAM', '*', 'payload', 'late');
      const res = await scale(t, p, 1);
      expect(res.status).toBe(202);
      const id = res.body.migrations[0].reshardingId;
      expect(await routedShards(t, p)).toBe(1);

      // An unread entry on shard 2 is no drain evidence: the shard stays, the migration waits.
      for (let i = 0; i < 2; i++) {
        await t.triggerSweep(Date.now());
        await sleep(600);
      }
      expect(await migrationState(t, p, id)).toBe('DRAINING');
      expect(await t.redis.exists(`${p}:2`)).toBe(1);

      // Once it is read and acknowledged, the sweep retires both removed shards.
      expect(await drain(t, `${p}:2`, p)).toBe(1);
      await sweepUntil(t, async () => (await migrationState(t, p, id)) === 'DEPRECATED');
      expect(await t.redis.exists(`${p}:1`, `${p}:2`)).toBe(0);
      expect(await t.redis.xadd(`${p}:2`, 'NOMKSTREAM', '*', 'payload', 'stale')).toBeNull();
      expect(await t.redis.exists(`${p}:0`)).toBe(1);
    },
  },
  {
    name: 'rolls back a fresh scale-out (202, repeatable) and refuses a finished migration (422 ROLLBACK_NOT_ALLOWED)',
    async run(t) {
      const p = uniquePrefix('rollback');
      await createStream(t, p, 2);
      // A live member keeps the scale-out ACTIVE until it holds the added shard (without one,
      // the next housekeeping completes it and it can no longer be rolled back).
      const j = await heartbeat(t, p, 'A', { epoch: 0, mv: 0 });
      await heartbeat(t, p, 'A', { epoch: j.body.memberEpoch, mv: j.body.metadataVersion, owned: [0, 1] });
      const id = (await scale(t, p, 3)).body.migrations[0].reshardingId;
      const rb = await rollback(t, p, id);
      expect(rb.status).toBe(202);
      expect(rb.body).toMatchObject({
        reshardingId: id,
        fromShardCount: 2,
        toShardCount: 3,
        state: 'ROLLED_BACK',
      });
      expect(await routedShards(t, p)).toBe(2);
      const again = await rollback(t, p, id);
      expect(again.status).toBe(202);
      expect(again.body).toEqual(rb.body);

      const q = uniquePrefix('finished');
      await createStream(t, q, 2);
      const done = (await scale(t, q, 1)).body.migrations[0].reshardingId;
      await sweepUntil(t, async () => (await migrationState(t, q, done)) === 'DEPRECATED');
      const refused = await rollback(t, q, done);
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject({
        status: 'UNPROCESSABLE_ENTITY',
        errorCode: 'ROLLBACK_NOT_ALLOWED',
      });
      expect(refused.body.message).toContain('DEPRECATED');
    },
  },
];
