/**
 * The Store contract against the Upstash store: the real @upstash/redis client → the REST
 * bridge → redis-server.
 */
import { inject } from 'vitest';
import { createUpstashClient } from '../../src/store/upstash-client.js';
import { UpstashStore } from '../../src/store/upstash-store.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import { startUpstashBridge } from '../support/upstash-bridge.js';
import { defineStoreContract } from './contract.js';

defineStoreContract(
  'upstash, REST bridge',
  async () => {
    const bridge = await startUpstashBridge({ redisUrl: inject('redisUrl') });
    const raw = standaloneClient();
    const ns = uniquePrefix('ns');
    const client = createUpstashClient({ url: bridge.url, token: bridge.token });
    const storeIn = (namespace: string) => new UpstashStore(client, { namespace });
    return {
      store: storeIn(ns),
      raw,
      ns,
      storeIn,
      close: async () => {
        await bridge.close();
        raw.disconnect();
      },
    };
  },
  // Every call is its own HTTP request: one sent earlier may reach Redis after a later one,
  // so nothing orders a contender's acquire before the section's release.
  { orderedRequests: false },
);
