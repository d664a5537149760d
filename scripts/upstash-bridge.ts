/**
 * A local Upstash REST endpoint in front of a Redis you run (for `wrangler dev`, the edge
 * producer, or curl). Not for production: no TLS, one token.
 *
 *   REDIS_URL=redis://127.0.0.1:6380 BRIDGE_PORT=8079 npx tsx scripts/upstash-bridge.ts
 *
 * Prints the URL and token to use as UPSTASH_REDIS_REST_URL / UPSTASH_REDIS_REST_TOKEN.
 */
import { startUpstashBridge } from '../test/support/upstash-bridge.js';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const port = Number(process.env.BRIDGE_PORT ?? 8079);
const bridge = await startUpstashBridge({ redisUrl, port, token: process.env.UPSTASH_REDIS_REST_TOKEN });
process.stdout.write(
  `Upstash REST bridge for ${redisUrl}\n` +
    `  UPSTASH_REDIS_REST_URL=${bridge.url}\n  UPSTASH_REDIS_REST_TOKEN=${bridge.token}\n`,
);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void bridge.close().then(() => process.exit(0));
  });
}
