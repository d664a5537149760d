/**
 * Metrics over a real Redis, all from what the coordinator reports as events: mutex attempts
 * (at once, busy, after a wait), heartbeat outcomes by status and path, fast-path attempts,
 * checked commits and their conflicts, and sweeps.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { Coordinator } from '../../src/coordinator.js';
import type { HeartbeatInput } from '../../src/core/heartbeat-types.js';
import { CoordinatorMetrics } from '../../src/metrics/coordinator-metrics.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { groupKeys } from '../../src/store/keys.js';
import { requestCounter } from '../../src/store/request-counter.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';

const client = standaloneClient();
afterAll(async () => {
  await client.quit();
});

function setup(config: Record<string, string> = {}) {
  const metrics = new CoordinatorMetrics();
  const ns = uniquePrefix('ns');
  const store = new IoredisStore(client, { namespace: ns });
  const coordinator = new Coordinator({
    store,
    config: parseConfig({ COORDINATOR_PROVISIONING: 'false', ...config }),
    onEvent: (e) => metrics.observeEvent(e),
  });
  return { metrics, store, coordinator, ns };
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

describe('metrics > mutex attempts as coordinator events', () => {
  it('counts an acquisition at once, busy attempts, and a wait that ended in acquisition', async () => {
    const { metrics, store, coordinator } = setup();
    const p = uniquePrefix('wait');
    await createStream(coordinator, p);
    expect(metrics.lockAcquisitions.get({ waited: 'false' })).toBe(1);
    expect(metrics.lockBusy.get()).toBe(0);
    expect(await store.tryLock(p, 'someone-else', 10_000)).toBe(true);
    const deleting = coordinator.deleteGroup(p, p, { requestedBy: 't', reason: 'test', force: true });
    // Let the delete find the mutex busy at least twice before it is released.
    while (metrics.lockBusy.get() < 2) await new Promise((r) => setTimeout(r, 5));
    await store.unlock(p, 'someone-else');
    await deleting;
    expect(metrics.lockAcquisitions.get({ waited: 'false' })).toBe(1);
    expect(metrics.lockAcquisitions.get({ waited: 'true' })).toBe(1);
    expect(metrics.lockBusy.get()).toBeGreaterThanOrEqual(2);
    expect(metrics.lockWait.get().count).toBe(1);
    expect(metrics.lockWait.get().sum).toBeGreaterThan(0);
  });

  it('records sweeps: the streams they visited, their duration, and failures', async () => {
    const { metrics, store, coordinator } = setup();
    const p = uniquePrefix('sweep');
    await createStream(coordinator, p);
    const report = await coordinator.sweep(Date.now(), { maxStreams: 1 });
    expect(metrics.sweeps.get({ result: 'ok' })).toBe(1);
    expect(report.streams).toBe(1);
    expect(metrics.sweepStreams.get()).toBe(report.streams);
    expect(metrics.sweepGroupsChanged.get()).toBe(report.groupsChanged);
    expect(metrics.sweepBacklog.get()).toBe(report.backlog);
    vi.spyOn(store, 'claimDue').mockRejectedValueOnce(new Error('Redis is down'));
    await expect(coordinator.sweep(Date.now())).rejects.toThrow('Redis is down');
    expect(metrics.sweeps.get({ result: 'error' })).toBe(1);
    expect(metrics.sweepDuration.get().count).toBe(2);
    expect(metrics.sweepStreams.get()).toBe(report.streams);
  });

  it('counts no mutex attempt for heartbeats: they never take the stream mutex', async () => {
    const { metrics, coordinator } = setup();
    const p = uniquePrefix('nolock');
    await createStream(coordinator, p);
    const before = metrics.lockAcquisitions.get({ waited: 'false' });
    await coordinator.heartbeat(p, p, input('m1'));
    await coordinator.heartbeat(p, p, input('m2'));
    expect(metrics.lockAcquisitions.get({ waited: 'false' })).toBe(before);
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
});

describe('sweep budget > Redis requests counted by the store’s onRequest', () => {
  it('spends one request when nothing is due, and claims no more streams than the budget can visit', async () => {
    const requests = requestCounter();
    const store = new IoredisStore(client, { namespace: uniquePrefix('ns'), onRequest: requests.onRequest });
    const coordinator = new Coordinator({
      store,
      config: parseConfig({ COORDINATOR_PROVISIONING: 'false' }),
      requestCount: requests.count,
    });
    const prefixes = [uniquePrefix('a'), uniquePrefix('b'), uniquePrefix('c')];
    for (const p of prefixes) await createStream(coordinator, p);
    await coordinator.sweep(Date.now()); // seeds the due index and loads the scripts
    const before = requests.count();
    expect(await coordinator.sweep(Date.now(), { maxCalls: 100 })).toMatchObject({
      streams: 0,
      calls: 1,
      backlog: 0,
    });
    expect(requests.count() - before).toBe(1);
    // All three due again: a budget of 5 claims two (1 + 2 × 2 requests) and leaves one.
    await store.seedDue(prefixes, Date.now());
    expect(await coordinator.sweep(Date.now(), { maxCalls: 5 })).toMatchObject({
      streams: 2,
      calls: 5,
      backlog: 1,
    });
    expect(await coordinator.sweep(Date.now(), { maxCalls: 5 })).toMatchObject({ streams: 1, backlog: 0 });
  });

  it('refuses a budget it cannot measure: maxCalls without requestCount', async () => {
    const { coordinator } = setup();
    await expect(coordinator.sweep(Date.now(), { maxCalls: 10 })).rejects.toThrow(/requestCount/);
    expect((await coordinator.sweep(Date.now())).calls).toBe(0);
  });
});
