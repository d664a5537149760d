/**
 * The Store on ioredis (Node, standalone Redis or Redis Cluster): `RedisStore` over
 * `ioredisPort`, under the name Node code has always constructed, and the client the Node
 * service builds from its configuration.
 */
import { type IoredisClient, ioredisPort } from '../redis/ioredis-port.js';
import { RedisStore, type RedisStoreOptions } from './redis-store.js';

export { createIoredisClient } from '../redis/ioredis-port.js';

/** Options of IoredisStore. */
interface IoredisStoreOptions extends RedisStoreOptions {
  /**
   * Called once per Redis call the store makes (a script run counts once, even when it had to be
   * loaded first: that happens once per node); the sweep budgets its round trips with it. @default no-op
   */
  onRequest?: () => void;
}

/** Store implementation over one ioredis client (standalone or Cluster). */
export class IoredisStore extends RedisStore {
  /** ioredis can always send INFO. */
  declare readonly evictionPolicy: () => Promise<string | null>;

  constructor(client: IoredisClient, options: IoredisStoreOptions) {
    super(ioredisPort(client, { onRequest: options.onRequest }), options);
  }
}
