/**
 * One consumer process of the hand-off bench (bench/handoff.ts), run with `node --import tsx`:
 * `createConsumer` with the SDK's defaults and one member. It writes one line per fact to
 * stdout with `writeSync` (a SIGKILL loses nothing already written):
 *   `H <shard> <entry id> <handledAtMs>`  when the handler starts on a record,
 *   `A <shard> <ms>` / `R <shard> <reason> <ms>`  when the member starts / stops reading a shard,
 *   `C <ms>`  when `close()` has resolved.
 * SIGTERM closes the consumer (the graceful leave: stop reading, finish in-flight records, leave
 * with epoch -1) and exits.
 *
 * Env: COORDINATOR_URL, STREAM_PREFIX, MEMBER_BASE, REDIS_URL.
 */
import { writeSync } from 'node:fs';
import { Redis } from 'ioredis';
import { createConsumer } from '../src/client/consumer.js';

const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is required`);
  return v;
};

const line = (text: string) => writeSync(1, `${text}\n`);
const redis = new Redis(env('REDIS_URL'));

const consumer = createConsumer({
  coordinatorUrl: env('COORDINATOR_URL'),
  streamPrefix: env('STREAM_PREFIX'),
  memberBase: env('MEMBER_BASE'),
  redis,
  handler: (r) => {
    line(`H ${r.shard} ${r.id} ${Date.now()}`);
  },
  listeners: {
    assigned: (e) => line(`A ${e.shard} ${Date.now()}`),
    revoked: (e) => line(`R ${e.shard} ${e.reason} ${Date.now()}`),
    error: (e) => process.stderr.write(`${e.memberId} ${e.context}: ${e.error.message}\n`),
  },
});

consumer.start();
line('S');
// The bench holds our stdin open: when it closes, the bench died without stopping us.
process.stdin.on('end', () => process.exit(1));
process.stdin.resume();

process.on('SIGTERM', () => {
  void consumer
    .close()
    .catch(() => {})
    .finally(() => {
      line(`C ${Date.now()}`);
      redis.disconnect();
      process.exit(0);
    });
});
