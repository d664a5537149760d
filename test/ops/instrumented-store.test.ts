/**
 * Metrics recorded through the Store port over a real Redis: mutex waits, CAS conflicts and
 * fast-path attempts, and heartbeat outcomes around the use-cases.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { Coordinator } from '../../src/coordinator.js';
import type { HeartbeatInput } from '../../src/core/heartbeat-types.js';
import { CoordinatorMetrics } from '../../src/metrics/coordinator-metrics.js';
import { instrumentCoordinator } from '../../src/metrics/instrumented-coordinator.js';
import { FastPathMarks, instrumentStore } from '../../src/metrics/instrumented-store.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';

const client = standaloneClient();
afterAll(async () => {
  await client.quit();
});

function setup(config: Record<string, string> = {}) {
  const metrics = new CoordinatorMetrics();
  const marks = new FastPathMarks();
  const raw = new IoredisStore(client, { namespace: uniquePrefix('ns') });
  const store = instrumentStore(raw, metrics, marks);
  const coordinator = new Coordinator({
    store,
    config: parseConfig({ COORDINATOR_PROVISIONING: 'false', ...config }),
  });
  return { metrics, marks, raw, store, coordinator, api: instrumentCoordinator(coordinator, metrics, marks) };
}

function joinInput(memberId: string): HeartbeatInput {
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
  };
}

describe('metrics > through the Store port', () => {
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
    await coordinator.createStream(p, {
      initialShardCount: 2,
      consumerGroup: null,
      requestedBy: 't',
      reason: null,
    });
    expect(await store.tryLock(p, 'someone-else', 10_000)).toBe(true);
    const deleting = coordinator.deleteGroup(p, p, { requestedBy: 't', reason: 'test', force: true });
    // Let the delete find the mutex busy at least once before it is released.
    while (metrics.lockBusy.get() === 0) await new Promise((r) => setTimeout(r, 5));
    await store.unlock(p, 'someone-else');
    await deleting;
    expect(metrics.lockWait.get().count).toBe(1);
    expect(metrics.lockAcquisitions.get({ waited: 'true' })).toBe(1);
  });

  it('counts a commit against a stale revision as a CAS conflict', async () => {
    const { metrics, store, coordinator } = setup();
    const p = uniquePrefix('cas');
    await coordinator.createStream(p, {
      initialShardCount: 2,
      consumerGroup: null,
      requestedBy: 't',
      reason: null,
    });
    const okBefore = metrics.commits.get({ result: 'ok' });
    expect(okBefore).toBeGreaterThanOrEqual(1);
    const snap = await store.load(p, 'all');
    expect(await store.commit({ prefix: p, expectedRevision: snap!.revision + 7 })).toEqual({
      ok: false,
      reason: 'conflict',
    });
    expect(metrics.casConflicts.get({ reason: 'conflict' })).toBe(1);
    expect(metrics.commits.get({ result: 'conflict' })).toBe(1);
  });

  it('counts fast-path misses without marking the member', async () => {
    const { metrics, marks, store } = setup();
    const p = uniquePrefix('fast');
    const reply = await store.fastHeartbeat({
      prefix: p,
      group: p,
      memberId: 'm',
      key: 'k',
      now: Date.now(),
      leaseExpiresAt: Date.now() + 1000,
      progressJson: '[]',
    });
    expect(reply).toBeNull();
    expect(metrics.fastPath.get({ result: 'miss' })).toBe(1);
    expect(marks.claim(p, p, 'm')).toBe(false);
  });

  it('labels heartbeats with their status, and refusals with their error code', async () => {
    const { metrics, store, coordinator, api } = setup({ COORDINATOR_LOCK_WAIT_MS: '20' });
    const p = uniquePrefix('hb');
    await coordinator.createStream(p, {
      initialShardCount: 2,
      consumerGroup: null,
      requestedBy: 't',
      reason: null,
    });
    const out = await api.heartbeat(p, p, joinInput('m1'));
    expect(metrics.heartbeats.get({ status: out.status, path: 'full' })).toBe(1);
    expect(await store.tryLock(p, 'blocker', 10_000)).toBe(true);
    await expect(api.heartbeat(p, p, joinInput('m2'))).rejects.toMatchObject({
      code: 'COORDINATOR_STATE_MUTEX_UNAVAILABLE',
    });
    expect(metrics.heartbeats.get({ status: 'COORDINATOR_STATE_MUTEX_UNAVAILABLE', path: 'full' })).toBe(1);
  });

  it('forwards every other Store method unchanged', async () => {
    const { raw, store } = setup();
    expect(await store.ping()).toBe(await raw.ping());
    expect(await store.listStreams()).toEqual(await raw.listStreams());
  });
});
