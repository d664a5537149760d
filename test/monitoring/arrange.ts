/**
 * A group in a known Redis state for the monitoring suites: a 3-shard stream created through
 * the app, known records, one member owning every shard, and a raw reader that has read and
 * acknowledged part of shard 0, so lengths, lag and pending are exact numbers.
 */
import { expect } from 'vitest';
import { streamHeadOf } from '../../src/store/stream-head.js';
import { type Backend, uniquePrefix } from '../support/redis.js';
import { heartbeat, makeStack, type Stack, type TestResponse } from '../support/stack.js';

/** First record time; shard 0 uses even milliseconds, shard 1 odd ones, so merged order interleaves. */
export const T0 = 1_780_000_000_000;

/** What `arrangeGroup` built. */
export interface Arranged {
  stack: Stack;
  /** Stream prefix; the group has the same name. */
  p: string;
  /** Record ids per shard, oldest first. */
  ids: string[][];
  /** GET helper under /coord/v1/monitoring. */
  get: (path: string) => Promise<TestResponse>;
}

/** Shard 0: 10 records with `payload`; shard 1: 4 records without; shard 2: empty. */
export async function arrangeGroup(backend: Backend): Promise<Arranged> {
  // A lease longer than the simulated time the rate tests let pass (5 s): A stays live, as
  // views show a lapsed lease as EXPIRED at once.
  const stack = makeStack(backend, { config: { COORDINATOR_MEMBER_LEASE_TTL_MS: '9000' } });
  const p = uniquePrefix('mon');
  const created = await stack.call('POST', `/coord/v1/streams/${p}`, {
    initialShardCount: 3,
    requestedBy: 'test',
  });
  expect(created.status).toBe(201);

  const ids: string[][] = [[], [], []];
  for (let i = 0; i < 10; i++) {
    const id = `${T0 + 2 * i}-0`;
    ids[0]!.push((await stack.redis.xadd(`${p}:0`, id, 'payload', `p0-${i}`, 'n', String(i)))!);
  }
  for (let i = 0; i < 4; i++) {
    const id = `${T0 + 2 * i + 1}-0`;
    ids[1]!.push((await stack.redis.xadd(`${p}:1`, id, 'body', `b1-${i}`))!);
  }
  // A raw consumer reads 6 of shard 0 and acknowledges 4: pending 2, lag 4.
  await stack.redis.xreadgroup('GROUP', p, 'reader', 'COUNT', 6, 'STREAMS', `${p}:0`, '>');
  expect(await stack.redis.xack(`${p}:0`, p, ...ids[0]!.slice(0, 4))).toBe(4);

  const join = await heartbeat(stack, p, p, 'A', { epoch: 0, mv: 0 });
  expect(join.body.status).toBe('OK');
  const { memberEpoch, metadataVersion } = join.body;
  const confirm = await heartbeat(stack, p, p, 'A', {
    epoch: memberEpoch,
    mv: metadataVersion,
    owned: [0, 1, 2],
    progress: [{ shard: 0, lastDeliveredId: ids[0]![5]!, lastAckedId: ids[0]![3]! }],
  });
  expect(confirm.body.status).toBe('OK');

  const get = (path: string) => stack.call('GET', `/coord/v1/monitoring${path}`);
  return { stack, p, ids, get };
}

/** `XINFO GROUPS` of each key (consumer-group state that a pure read must leave alone). */
export async function groupStates(stack: Stack, keys: string[]): Promise<unknown[]> {
  return Promise.all(keys.map((k) => stack.redis.xinfo('GROUPS', k).catch((e: Error) => e.message)));
}

/** Marks `shard` as removed-but-consumable (DRAINING) in the stream document, as a scale-in would. */
export async function markRemoved(stack: Stack, p: string, shard: number): Promise<void> {
  const snap = await stack.store.load(p, []);
  expect(snap).not.toBeNull();
  const stream = snap!.stream;
  const removedShards = [
    ...stream.removedShards,
    { shard, state: 'DRAINING' as const, reason: 'draining', updatedAt: stack.clock.now() },
  ];
  const doc = { ...stream, removedShards };
  const r = await stack.store.commit({
    prefix: p,
    expect: { rev: snap!.revision },
    stream: { doc, head: streamHeadOf(doc, stack.config.heartbeatIntervalMs) },
    groups: [],
  });
  expect(r.ok).toBe(true);
}
