/**
 * The Store contract (layout 2): one suite every Store implementation must pass, run against the
 * ioredis store on standalone Redis and on a 6-node Cluster, and against the Upstash store
 * through the REST bridge (BullMQ's adapter-conformance tests are the model). Each area of the
 * Store port is declared in its own `contract-*.ts` file; this one assembles them.
 */
import type { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { defineCorruptContract } from './contract-corrupt.js';
import { defineDueIndexContract } from './contract-due-index.js';
import { defineGroupStepsContract } from './contract-group-steps.js';
import { defineHeartbeatContract } from './contract-heartbeat.js';
import { defineLeaseContract } from './contract-lease.js';
import { defineMemberContract } from './contract-members.js';
import { defineMutexContract } from './contract-mutex.js';
import { defineQuotaContract } from './contract-quotas.js';
import { defineStreamOpsContract } from './contract-stream-ops.js';
import { defineStreamsContract } from './contract-streams.js';

/** A store under test, a raw client on the same data, and its namespace. */
export interface ContractTarget {
  store: Store;
  raw: Redis | Cluster;
  ns: string;
  /** The same kind of store on the same connection, in namespace `ns` (for cases that need an empty one). */
  storeIn(ns: string): Store;
  close(): Promise<void>;
}

/**
 * What a store may legitimately not offer. A case that needs a capability runs only where it is
 * set (it is registered only there), so a store that lacks it says so here, with the reason, at its call of
 * `defineStoreContract`, and never by skipping a case by hand.
 */
export interface StoreCapabilities {
  /**
   * Calls of one store reach Redis in the order they were sent and are answered in that order
   * (one connection, as ioredis has), so a call sent before another is served before it.
   * @default true
   */
  orderedRequests: boolean;
}

const FULL: StoreCapabilities = { orderedRequests: true };

/** Declares the contract suite for the target `make` builds, with what it `offers` (all by default). */
export function defineStoreContract(
  name: string,
  make: () => Promise<ContractTarget>,
  offers: Partial<StoreCapabilities> = {},
): void {
  const caps: StoreCapabilities = { ...FULL, ...offers };
  describe(`store contract (${name})`, () => {
    let t: ContractTarget;
    beforeAll(async () => {
      t = await make();
    });
    afterAll(async () => {
      await t.close();
    });
    const get = () => t;

    defineStreamsContract(get);
    defineMemberContract(get);
    defineHeartbeatContract(get);
    defineGroupStepsContract(get);
    defineMutexContract(get);
    defineLeaseContract(get, caps);
    defineQuotaContract(get);
    defineStreamOpsContract(get);
    defineCorruptContract(get);
    defineDueIndexContract(get);
  });
}
