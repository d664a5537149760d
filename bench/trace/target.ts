/**
 * The traced process of `trace-heartbeat.ts`: a coordinator on a private Redis with one stream,
 * member A settled on every shard; then, between two `debugger` statements, one steady heartbeat
 * of A (the fast path) and, between the next two, the heartbeat of a joining member B (the full
 * path: read, maintenance check, decision, commit, assignment round, grant).
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedisServer } from '../../node/redis-server.js';
import { parseConfig } from '../../src/config.js';
import { Coordinator } from '../../src/coordinator.js';
import { createIoredisClient, IoredisStore } from '../../src/store/ioredis-store.js';
import { hb } from '../../test/support/heartbeat-fixtures.js';

const redis = await startRedisServer({ baseDir: join(tmpdir(), 'rsc-trace') });
const config = parseConfig({ COORDINATOR_KEY_PREFIX: 'trace' });
const client = createIoredisClient({ url: redis.url });
const store = new IoredisStore(client, { namespace: config.keyPrefix, ownsClient: true });
const coordinator = new Coordinator({ store, config });
try {
  await coordinator.createStream('orders', {
    initialShardCount: 4,
    consumerGroup: 'orders',
    requestedBy: 'trace',
    reason: null,
  });
  const beat = (req: ReturnType<typeof hb>) => coordinator.heartbeat('orders', 'orders', req);
  const a = await beat(hb('A', { epoch: 0, mv: 0 }));
  const a2 = await beat(hb('A', { epoch: a.memberEpoch, mv: a.metadataVersion, owned: a.assignedShards }));
  const steady = hb('A', { epoch: a2.memberEpoch, mv: a2.metadataVersion, owned: a2.assignedShards });
  await beat(steady);
  await beat(steady);
  // biome-ignore lint/suspicious/noDebugger: the tracer starts stepping here.
  debugger;
  await beat(steady);
  // biome-ignore lint/suspicious/noDebugger: the tracer stops here.
  debugger;
  const joiner = hb('B', { epoch: 0, mv: 0 });
  // biome-ignore lint/suspicious/noDebugger: the tracer starts stepping here.
  debugger;
  await beat(joiner);
  // biome-ignore lint/suspicious/noDebugger: the tracer stops here.
  debugger;
} finally {
  await coordinator.close();
  await store.close();
  await redis.stop();
}
