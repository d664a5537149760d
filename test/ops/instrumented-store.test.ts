/**
 * Metrics over a real Redis: mutex waits seen through the Store port, and what the coordinator
 * reports as events — heartbeat outcomes by status and path, fast-path attempts, checked
 * commits and their conflicts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { Coordinator } from '../../src/coordinator.js';
import type { HeartbeatInput } from '../../src/core/heartbeat-types.js';
import { CoordinatorMetrics } from '../../src/metrics/coordinator-metrics.js';
import { instrumentStore } from '../../src/metrics/instrumented-store.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { groupKeys } from '../../src/store/keys.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';

const client = standaloneClient();
afterAll(async () => {
  await client.quit();
});

function setup(config: Record<string, string> = {}) {
  const metrics = new CoordinatorMetrics();
  const ns = uniquePrefix('ns');
  const raw = new IoredisStore(client, { namespace: ns });
  const store = instrumentStore(raw, metrics);
  const coordinator = new Coordinator({
    store,
    config: parseConfig({ COORDINATOR_PROVISIONING: 'false', ...config }),
    onEvent: (e) => metrics.observeEvent(e),
  });
  return { metrics, raw, store, coordinator, ns };
}

function input(memberId: string, over: Partial<HeartbeatInput> = {}): HeartbeatInput {
  return {
    protocolVersion: 1,
    requestId: 'r1',
    memberId,
    pathMemberId: memberId,
    memberName: memberId,
    memberEpoch: 0,
    metadataVersion: 0,
    runtimeMaxConcurrency: 1,
    availableConcurrency: 1,
    ownedShards: [],
    revokingShards: [],
    shardProgress: [],
    ...over,
  };
}

async function createStream(coordinator: Coordinator, p: string): Promise<void> {
  await coordinator.createStream(p, {
    initialShardCount: 2,
    consumerGroup: null,
    requestedBy: 't',
    reason: null,
  });
}

describe('metrics > mutex attempts through the Store port', () => {
  it('counts immediate acquisitions, busy attempts, and a wait that ended in acquisition', async () => {
    const { metrics, store } = setup();
    const p = uniquePrefix('lock');
    expect(await store.tryLock(p, 'a', 10_000)).toBe(true);
    expect(await store.tryLock(p, 'b', 10_000)).toBe(false);
    expect(await store.tryLock(p, 'b', 10_000)).toBe(false);
    await store.unlock(p, 'a');
    expect(await store.tryLock(p, 'b', 10_000)).toBe(true);
    expect(metrics.lockAcquisitions.get({ waited: 'false' })).toBe(1);
    expect(metrics.lockAcquisitions.get({ waited: 'true' })).toBe(1);
    expect(metrics.lockBusy.get()).toBe(2);
    expect(metrics.lockWait.get().count).toBe(1);
  });

  it('sees a request wait for the mutex another holder has, then go through', async () => {
    const { metrics, store, coordinator } = setup();
    const p = uniquePrefix('wait');
    await createStream(coordinator, p);
    expect(await store.tryLock(p, 'someone-else', 10_000)).toBe(true);
    const deleting = coordinator.deleteGroup(p, p, { requestedBy: 't', reason: 'test', force: true });
    // Let the delete find the mutex busy at least once before it is released.
    while (metrics.lockBusy.get() === 0) await new Promise((r) => setTimeout(r, 5));
    await store.unlock(p, 'someone-else');
    await deleting;
    expect(metrics.lockWait.get().count).toBe(1);
    expect(metrics.lockAcquisitions.get({ waited: 'true' })).toBe(1);
  });

  it('does not count a group’s assignment lock as a stream mutex', async () => {
    const { metrics, store } = setup();
    const p = uniquePrefix('alock');
    expect(await store.tryLock(p, 'a', 1000, 'g')).toBe(true);
    expect(await store.tryLock(p, 'b', 1000, 'g')).toBe(false);
    expect(metrics.lockAcquisitions.get({ waited: 'false' })).toBe(0);
    expect(metrics.lockBusy.get()).toBe(0);
  });
});

describe('metrics > coordinator events', () => {
  it('labels heartbeats with their status and path, and counts fast-path hits and misses', async () => {
    const { metrics, coordinator } = setup();
    const p = uniquePrefix('hb');
    await createStream(coordinator, p);
    const join = await coordinator.heartbeat(p, p, input('m1'));
    expect(metrics.heartbeats.get({ status: join.status, path: 'full' })).toBe(1);
    const steady = {
      memberEpoch: join.memberEpoch,
      metadataVersion: join.metadataVersion,
      ownedShards: [0, 1],
    };
    await coordinator.heartbeat(p, p, input('m1', steady));
    expect(metrics.fastPath.get({ result: 'miss' })).toBe(1);
    await coordinator.heartbeat(p, p, input('m1', steady));
    expect(metrics.fastPath.get({ result: 'hit' })).toBe(1);
    expect(metrics.heartbeats.get({ status: 'OK', path: 'fast' })).toBe(1);
    expect(metrics.heartbeats.get({ status: 'OK', path: 'full' })).toBe(2);
    expect(metrics.commits.get({ result: 'ok' })).toBeGreaterThanOrEqual(3);
  });

  it('labels a refused heartbeat with its error code', async () => {
    const { metrics, coordinator, ns } = setup();
    const p = uniquePrefix('refused');
    await createStream(coordinator, p);
    await client.hset(groupKeys(ns, p, p).header, 'ge', 'garbage');
    await expect(coordinator.heartbeat(p, p, input('m2'))).rejects.toMatchObject({
      code: 'METADATA_CORRUPT',
    });
    expect(metrics.heartbeats.get({ status: 'METADATA_CORRUPT', path: 'full' })).toBe(1);
  });

  it('counts a commit refused because what it was decided on moved, and applies the retry', async () => {
    const metrics = new CoordinatorMetrics();
    const ns = uniquePrefix('ns');
    const raw = new IoredisStore(client, { namespace: ns });
    const p = uniquePrefix('cas');
    let armed = false;
    let raced = false;
    // Between m1's read and its first commit, another writer moves m1's record revision.
    const racing = new Proxy(raw, {
      get(target, prop) {
        const v = Reflect.get(target, prop, target);
        if (prop !== 'commit') return typeof v === 'function' ? v.bind(target) : v;
        return async (plan: Parameters<IoredisStore['commit']>[0]) => {
          const writesM1 = plan.groups[0]?.ops.some((op) => op.k === 'record' && op.member === 'm1');
          if (writesM1 && armed && !raced) {
            raced = true;
            const text = (await client.hget(groupKeys(ns, p, p).members, 'm1'))!;
            await client.hset(
              groupKeys(ns, p, p).members,
              'm1',
              text.replace(/^(\d+)\|/, (_, r) => `${Number(r) + 1}|`),
            );
          }
          return target.commit(plan);
        };
      },
    });
    const coordinator = new Coordinator({
      store: racing,
      config: parseConfig({ COORDINATOR_PROVISIONING: 'false' }),
      onEvent: (e) => metrics.observeEvent(e),
    });
    await createStream(coordinator, p);
    const join = await coordinator.heartbeat(p, p, input('m1'));
    const before = metrics.casConflicts.get({ reason: 'conflict' });
    armed = true;
    const out = await coordinator.heartbeat(
      p,
      p,
      input('m1', {
        memberEpoch: join.memberEpoch,
        metadataVersion: join.metadataVersion,
        ownedShards: [0, 1],
      }),
    );
    expect(raced).toBe(true);
    expect(out.status).toBe('OK');
    expect(metrics.casConflicts.get({ reason: 'conflict' })).toBe(before + 1);
    expect(metrics.commits.get({ result: 'conflict' })).toBe(before + 1);
  });

  it('forwards every other Store method unchanged', async () => {
    const { raw, store } = setup();
    expect(await store.ping()).toBe(await raw.ping());
    expect(await store.listStreams()).toEqual(await raw.listStreams());
  });
});
