/**
 * The Store contract, the stream mutex as a short lease renewed while its critical section runs
 *: a long section keeps it and commits; a section that lost it never
 * commits. Declared inside `defineStoreContract`, so every store runs it.
 */
import type { Cluster, Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { isCoordinatorError } from '../../src/core/errors.js';
import type { StreamDoc } from '../../src/core/model.js';
import { type CriticalSectionOptions, runCritical } from '../../src/store/critical-section.js';
import { streamKeys } from '../../src/store/keys.js';
import type { Store } from '../../src/store/store.js';
import { streamHeadOf } from '../../src/store/stream-head.js';
import { uniquePrefix } from '../support/redis.js';
import type { ContractTarget, StoreCapabilities } from './contract.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const protocol = { heartbeatIntervalMs: 500 };

function createPlan(prefix: string) {
  const doc: StreamDoc = {
    streamPrefix: prefix,
    shardCount: 1,
    removedShards: [],
    migrations: [],
    activeReshardingId: null,
    groups: ['g'],
    createdAt: 1,
    updatedAt: 1,
  };
  return {
    stream: { doc, head: streamHeadOf(doc, protocol.heartbeatIntervalMs) },
    groups: [
      { name: 'g', create: { groupEpoch: 1, assignmentEpoch: 1, metadataVersion: 1, at: 1 }, ops: [] },
    ],
  };
}

/** Declares the mutex lease cases on the target `get` returns. */
export function defineLeaseContract(get: () => ContractTarget, caps: StoreCapabilities): void {
  describe('stream mutex lease', () => {
    let store: Store;
    let client: Redis | Cluster;
    let ns: string;
    beforeAll(() => {
      ({ store, raw: client, ns } = get());
    });
    const opts = (lockTtlMs: number): CriticalSectionOptions => ({
      lockWaitMs: 5000,
      lockTtlMs,
      maxAttempts: 3,
    });

    // The contender shares the section's connection: only then is an acquire sent before the commit
    // answered before the release (see `StoreCapabilities.orderedRequests`).
    // Registered only where the capability holds, so no store reports it as skipped.
    if (caps.orderedRequests)
      it('renews the lease of a section that runs longer than it, and commits', async () => {
        const p = uniquePrefix('long');
        let running = true;
        let stolen = 0;
        // Tries the mutex every 25 ms from the moment the section holds it until its commit; on the
        // section's own connection, so an acquire sent before the commit is answered before the release.
        const contend = async () => {
          while (running) {
            const during = running;
            if (await store.tryLock(p, 'contender', 10_000)) {
              if (during) stolen++;
              await store.unlock(p, 'contender');
            }
            await sleep(25);
          }
        };
        let contender: Promise<void> = Promise.resolve();
        const o = { ...opts(300), onCommit: () => (running = false) };
        await runCritical(store, p, [], o, async (s) => {
          expect(s).toBeNull();
          contender = contend();
          await sleep(1000);
          return { commit: createPlan(p), result: undefined };
        });
        await contender;
        expect(stolen).toBe(0);
        expect(await store.load(p, [])).not.toBeNull();
        expect(await client.exists(streamKeys(ns, p).lock)).toBe(0);
      });

    it('never commits after its lease was lost and taken by another holder', async () => {
      const p = uniquePrefix('lost');
      const key = streamKeys(ns, p).lock;
      const err = await runCritical(store, p, [], opts(300), async () => {
        // The lease ran out (say, a stalled process) and someone else holds the mutex now.
        await client.del(key);
        expect(await store.tryLock(p, 'other', 10_000)).toBe(true);
        return { commit: createPlan(p), result: undefined };
      }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isCoordinatorError(err) && err.code).toBe('COORDINATOR_STATE_MUTEX_UNAVAILABLE');
      expect(await store.load(p, [])).toBeNull();
      expect(await client.get(key)).toBe('other');
    });

    it('stops a section whose renewal found the lease lost before it commits', async () => {
      const p = uniquePrefix('lost-renewal');
      const key = streamKeys(ns, p).lock;
      const err = await runCritical(store, p, [], opts(300), async () => {
        await client.del(key);
        expect(await store.tryLock(p, 'other', 10_000)).toBe(true);
        await sleep(400);
        return { commit: createPlan(p), result: undefined };
      }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isCoordinatorError(err) && err.code).toBe('COORDINATOR_STATE_MUTEX_UNAVAILABLE');
      expect(await store.load(p, [])).toBeNull();
    });
  });
}
