/**
 * The Store contract against the ioredis store, on standalone Redis and on a 6-node Cluster.
 */
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { defineStoreContract } from './contract.js';

for (const backend of backends) {
  defineStoreContract(`ioredis, ${backend.name}`, async () => {
    const client = backend.make();
    const raw = backend.make();
    const ns = uniquePrefix('ns');
    return {
      store: new IoredisStore(client, { namespace: ns }),
      raw,
      ns,
      storeIn: (namespace) => new IoredisStore(client, { namespace }),
      close: async () => {
        client.disconnect();
        raw.disconnect();
      },
    };
  });
}
