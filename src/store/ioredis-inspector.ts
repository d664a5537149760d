/**
 * The inspector over an ioredis client (standalone or Cluster): `RedisInspector` over
 * `ioredisPort`, under the name Node code has always constructed.
 */
import { type IoredisClient, ioredisPort } from '../redis/ioredis-port.js';
import { RedisInspector, type RedisInspectorOptions } from './redis-inspector.js';

/** Read-only monitoring access over one ioredis client (the store's client is fine). */
export class IoredisInspector extends RedisInspector {
  constructor(client: IoredisClient, options: RedisInspectorOptions = {}) {
    super(ioredisPort(client), options);
  }
}
