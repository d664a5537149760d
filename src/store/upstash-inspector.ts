/**
 * The inspector over an @upstash/redis client, for the Worker's monitoring routes:
 * `RedisInspector` over `upstashPort`, under the name the Worker has always constructed.
 */
import { type UpstashClientLike, upstashPort } from '../redis/upstash-port.js';
import { RedisInspector } from './redis-inspector.js';

/** Options of UpstashInspector. */
interface UpstashInspectorOptions {
  /** Shard streams read per script call (each call is a subrequest). @default 256 */
  keysPerCall?: number;
  /** Called once per REST request. @default no-op */
  onRequest?: () => void;
  /** Run the scripts with Upstash's `allow-key-locking` flag (docs/workers.md#upstash-key-locking). @default false */
  keyLocking?: boolean;
}

/** Read-only monitoring access over one @upstash/redis client (the store's client is fine). */
export class UpstashInspector extends RedisInspector {
  constructor(client: UpstashClientLike, options: UpstashInspectorOptions = {}) {
    super(upstashPort(client, { onRequest: options.onRequest, keyLocking: options.keyLocking }), {
      keysPerCall: options.keysPerCall,
    });
  }
}
