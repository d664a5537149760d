/**
 * `npm run demo`: a coordinator (private Redis unless REDIS_URL is set), a producer and three consumers
 * (two members each), resharding 4 → 8 → 2 while records flow, with a live summary every second
 * and a correctness line at the end. Exits 0 only when nothing was lost. Loopback only, bounded
 * in time (about a minute), stops by itself.
 */
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { ensureLocalRedis } from '../node/local-redis.js';
import { silentLogger } from '../node/logger.js';
import { startServer } from '../node/server.js';
import { type Consumer, createConsumer } from '../src/client/consumer-index.js';
import { createProducer, ioredisAdapter } from '../src/client/producer-index.js';
import { parseConfig } from '../src/config.js';

const STREAM = `demo-${Date.now().toString(36)}`;
const DATA_DIR = fileURLToPath(new URL('../.data/redis', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const config = parseConfig({
  ...process.env,
  PORT: '0',
  COORDINATOR_HEARTBEAT_INTERVAL_MS: '500',
  COORDINATOR_MEMBER_LEASE_TTL_MS: '3000',
  COORDINATOR_REBALANCE_TIMEOUT_MS: '10000',
  COORDINATOR_SWEEP_INTERVAL_MS: '200',
});
const local = await ensureLocalRedis(config, { dataDir: DATA_DIR, log: silentLogger });
const server = await startServer({ config: local.config, log: silentLogger });
const base = server.url;
const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${base}/coord/v1${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json().catch(() => null);
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${JSON.stringify(json)}`);
  return json;
};
const group = `/streams/${STREAM}/groups/${STREAM}`;
const monitoring = `/monitoring${group}`;

console.log(`coordinator ${base}${local.privateRedis ? ' (private Redis)' : ''}; stream ${STREAM}`);
await api('POST', `/streams/${STREAM}`, { initialShardCount: 4, requestedBy: 'demo' });

const redisUrl = local.config.redisUrl;
const producerRedis = new Redis(redisUrl);
const producer = createProducer({
  coordinatorUrl: base,
  streamPrefix: STREAM,
  redis: ioredisAdapter(producerRedis),
});
const handled = new Map<string, number>();
const consumerClients: Redis[] = [];
const consumers: Consumer[] = [0, 1, 2].map((i) => {
  const client = new Redis(redisUrl);
  consumerClients.push(client);
  return createConsumer({
    coordinatorUrl: base,
    streamPrefix: STREAM,
    redis: client,
    concurrency: 2,
    memberBase: `consumer-${i}`,
    handler: (record) => {
      const id = record.fields.eventId ?? record.id;
      handled.set(id, (handled.get(id) ?? 0) + 1);
    },
  });
});
for (const c of consumers) c.start();

let produced = 0;
let producing = true;
const producerLoop = (async () => {
  while (producing) {
    const records = Array.from({ length: 20 }, () => {
      const n = produced++;
      return { partitionKey: `customer-${n % 97}`, fields: { eventId: `e${n}`, payload: `order ${n}` } };
    });
    const results = await producer.publishBatch(records);
    for (const [i, r] of results.entries())
      if (!r.ok) console.log(`publish failed: ${records[i]!.fields.eventId}`);
    await sleep(50);
  }
})();

let lastProduced = 0;
let lastHandled = 0;
async function summary(phase: string): Promise<void> {
  const [offsets, migrations] = await Promise.all([
    api('GET', `${monitoring}/offsets`),
    api('GET', `${monitoring}/migrations`),
  ]);
  const active = migrations.migrations.find(
    (m: { reshardingId: string }) => m.reshardingId === migrations.activeReshardingId,
  );
  const handledNow = handled.size;
  const shards = offsets.shards
    .map(
      (s: {
        shard: { shardIndex: number };
        lag: number | null;
        ownerMemberIds: string[];
        removed?: boolean;
      }) =>
        `:${s.shard.shardIndex}${s.removed ? '(removed)' : ''} ${s.ownerMemberIds.join('+') || '—'} lag ${s.lag ?? '?'}`,
    )
    .join(' | ');
  console.log(
    `[${phase}] produced ${produced} (+${produced - lastProduced}/s) handled ${handledNow} (+${handledNow - lastHandled}/s) ` +
      `migration ${active ? `${active.fromShardCount}→${active.toShardCount} ${active.state}` : 'none'}\n    ${shards}`,
  );
  lastProduced = produced;
  lastHandled = handledNow;
}

async function scaleTo(n: number): Promise<void> {
  const res = await api('POST', `/streams/${STREAM}/scale`, {
    targetShardCount: n,
    requestedBy: 'demo',
    reason: `demo scale to ${n}`,
  });
  const id = res.migrations[0].reshardingId;
  for (let t = 0; t < 40; t++) {
    await summary(`scale→${n}`);
    const m = await api('GET', `${group}/migrations/${id}`);
    if (m.state === 'DEPRECATED') return;
    await sleep(1000);
  }
  throw new Error(`scale to ${n} did not finish in 40 s`);
}

let exitCode = 0;
try {
  for (let t = 0; t < 5; t++) {
    await summary('4 shards');
    await sleep(1000);
  }
  await scaleTo(8);
  for (let t = 0; t < 3; t++) {
    await summary('8 shards');
    await sleep(1000);
  }
  await scaleTo(2);
  producing = false;
  await producerLoop;
  for (let t = 0; t < 30 && handled.size < produced; t++) {
    await summary('draining');
    await sleep(1000);
  }
  const duplicates = [...handled.values()].reduce((a, n) => a + n - 1, 0);
  let lost = 0;
  for (let n = 0; n < produced; n++) if (!handled.has(`e${n}`)) lost++;
  console.log(`\nproduced ${produced}, handled ${handled.size}, duplicates ${duplicates}, lost ${lost}`);
  if (lost > 0) exitCode = 1;
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  exitCode = 1;
} finally {
  producing = false;
  await Promise.all(consumers.map((c) => c.close()));
  for (const c of consumerClients) c.disconnect();
  producerRedis.disconnect();
  await server.close();
  await local.privateRedis?.stop();
}
process.exit(exitCode);
