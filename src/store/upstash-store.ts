/**
 * The Store on @upstash/redis (the Worker): `RedisStore` over `upstashPort`, under the name the
 * Worker has always constructed.
 */
import { type UpstashClientLike, upstashPort } from '../redis/upstash-port.js';
import { RedisStore, type RedisStoreOptions } from './redis-store.js';

/** Options of UpstashStore. */
interface UpstashStoreOptions extends Omit<RedisStoreOptions, 'ownsClient'> {
  /** Called once per REST request (each one is a Worker subrequest). @default no-op */
  onRequest?: () => void;
  /**
   * Run the scripts that declare every key with Upstash's `allow-key-locking` flag, so scripts of
   * different streams run in parallel (docs/workers.md#upstash-key-locking). Real Redis refuses
   * the flag. @default false
   */
  keyLocking?: boolean;
}

/** Store implementation over one @upstash/redis client (nothing to close: every call is a stateless HTTPS request). */
export class UpstashStore extends RedisStore {
  constructor(client: UpstashClientLike, options: UpstashStoreOptions) {
    super(upstashPort(client, { onRequest: options.onRequest, keyLocking: options.keyLocking }), options);
  }
}
