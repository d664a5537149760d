/**
 * The files of a throw-away user project that depends on the packed tarball: ESM producer and
 * consumer scripts, a CommonJS `require()` probe, and TypeScript files (our own and the README's
 * "Use it in your project" snippet) with strict tsconfigs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The package under test, as users name it. */
export const PKG = 'redis-stream-coordinator-edge';

/** Publishes COUNT records to STREAM and prints `{"published": n}`. */
const PUBLISH = `import { Redis } from 'ioredis';
import { createProducer, ioredisAdapter } from '${PKG}/producer';

const { COORDINATOR_URL, REDIS_URL, STREAM, COUNT } = process.env;
const redis = new Redis(REDIS_URL);
try {
  const producer = createProducer({
    coordinatorUrl: COORDINATOR_URL,
    streamPrefix: STREAM,
    redis: ioredisAdapter(redis),
  });
  const results = await producer.publishBatch(
    Array.from({ length: Number(COUNT) }, (_, i) => ({ partitionKey: 'key-' + i, fields: { n: String(i) } })),
  );
  const failed = results.filter((r) => !r.ok);
  if (failed.length > 0) throw new Error('failed: ' + JSON.stringify(failed[0]));
  console.log(JSON.stringify({ published: results.length }));
} finally {
  redis.disconnect();
}
`;

/** Consumes STREAM until COUNT distinct records were handled (or 30 s), then leaves and prints them. */
const CONSUME = `import { Redis } from 'ioredis';
import { createConsumer } from '${PKG}/consumer';

const { COORDINATOR_URL, REDIS_URL, STREAM, COUNT } = process.env;
const redis = new Redis(REDIS_URL);
const handled = new Set();
let deliveries = 0;
let finish;
const enough = new Promise((resolve) => {
  finish = resolve;
});
const consumer = createConsumer({
  coordinatorUrl: COORDINATOR_URL,
  streamPrefix: STREAM,
  redis,
  handler: async (record) => {
    deliveries++;
    handled.add(record.fields.n);
    if (handled.size >= Number(COUNT)) finish();
  },
  listeners: { error: (e) => console.error(e.context + ': ' + e.error.message) },
});
consumer.start();
const timer = setTimeout(finish, 30_000);
await enough;
clearTimeout(timer);
await consumer.close();
redis.disconnect();
console.log(JSON.stringify({ handled: [...handled], deliveries }));
`;

/** CommonJS: Node 20.19+ loads our ESM entries with require() (none uses top-level await). */
const REQUIRE = `const producer = require('${PKG}/producer');
const edge = require('${PKG}/producer/edge');
const consumer = require('${PKG}/consumer');
const node = require('${PKG}/node');
const root = require('${PKG}');
const admin = require('${PKG}/admin');
console.log(JSON.stringify({
  createAdminClient: typeof admin.createAdminClient,
  createProducer: typeof producer.createProducer,
  upstashAdapter: typeof edge.upstashAdapter,
  createConsumer: typeof consumer.createConsumer,
  startServer: typeof node.startServer,
  Coordinator: typeof root.Coordinator,
}));
`;

/** Uses every public entry the way an application would, typed. */
const TYPED = `import { Redis as Upstash } from '@upstash/redis';
import { Cluster, Redis } from 'ioredis';
import { Coordinator } from '${PKG}';
import { type AdminClient, CoordinatorHttpError, createAdminClient } from '${PKG}/admin';
import { type Consumer, type ConsumerOptions, createConsumer, isClientError } from '${PKG}/consumer';
import { type RunningServer, startServer } from '${PKG}/node';
import { createProducer, ioredisAdapter, type Producer, type PublishResult } from '${PKG}/producer';
import { upstashAdapter } from '${PKG}/producer/edge';
import worker from '${PKG}/workers';

const redis = new Redis({ lazyConnect: true });
const cluster = new Cluster([{ host: '127.0.0.1', port: 7000 }], { lazyConnect: true });
const producer: Producer = createProducer({
  coordinatorUrl: 'http://127.0.0.1:8080',
  streamPrefix: 'orders',
  redis: ioredisAdapter(cluster),
  credentials: { token: 't' },
});
const edge: Producer = createProducer({
  coordinatorUrl: 'https://coordinator.example',
  streamPrefix: 'orders',
  redis: upstashAdapter(new Upstash({ url: 'https://x.upstash.io', token: 't', automaticDeserialization: false })),
  fetch: globalThis.fetch,
});
const options: ConsumerOptions = {
  coordinatorUrl: 'http://127.0.0.1:8080',
  streamPrefix: 'orders',
  redis,
  concurrency: 2,
  // Optional settings straight from the environment (string | undefined) under exactOptionalPropertyTypes.
  memberBase: process.env.MEMBER_BASE,
  consumerGroup: process.env.GROUP,
  handler: async (record) => (record.fields.kind === 'tombstone' ? 'ack-delete' : undefined),
  listeners: { assigned: (e) => console.log(e.memberId, e.streamKey) },
};
const consumer: Consumer = createConsumer(options);
const admin: AdminClient = createAdminClient({ coordinatorUrl: 'http://127.0.0.1:8080', credentials: { token: 't' } });
export async function scaleOrders(): Promise<number | undefined> {
  try {
    const res = await admin.scaleStream('orders', { targetShardCount: 8, requestedBy: 'me', reason: 'more consumers' });
    return (await admin.groups()).groups.length + res.migrations.length;
  } catch (err) {
    if (err instanceof CoordinatorHttpError) return err.status;
    throw err;
  }
}
export async function main(): Promise<PublishResult | undefined> {
  const server: RunningServer | undefined = undefined;
  try {
    return await producer.publish({ partitionKey: 'k', fields: { a: '1' }, eventId: 'e-1' });
  } catch (err) {
    if (isClientError(err)) return undefined;
    throw err;
  } finally {
    await consumer.close();
    void [server, edge, Coordinator, startServer, worker.fetch];
  }
}
`;

/** The TypeScript block under the README's "Use it in your project": what newcomers copy must compile. */
function readmeSnippet(): string {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.split('## Use it in your project')[1] ?? '';
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error('README.md: no ts block under "Use it in your project"');
  return block;
}

/** Writes the user project into `dir` (already holding package.json and node_modules). */
export function writeUserProject(dir: string, typeRoots: string): void {
  writeFileSync(join(dir, 'readme.ts'), readmeSnippet());
  writeFileSync(join(dir, 'publish.mjs'), PUBLISH);
  writeFileSync(join(dir, 'consume.mjs'), CONSUME);
  writeFileSync(join(dir, 'require.cjs'), REQUIRE);
  writeFileSync(join(dir, 'app.ts'), TYPED);
  for (const [name, module] of [
    ['NodeNext', 'NodeNext'],
    ['Bundler', 'ESNext'],
  ] as const) {
    const compilerOptions = {
      target: 'ES2022',
      module,
      moduleResolution: name,
      lib: ['ES2022'],
      strict: true,
      exactOptionalPropertyTypes: true,
      skipLibCheck: false,
      noEmit: true,
      // ioredis's declarations need @types/node: the repository's copy, nothing installed here.
      types: ['node'],
      typeRoots: [typeRoots],
    };
    writeFileSync(
      join(dir, `tsconfig.${name}.json`),
      JSON.stringify({ compilerOptions, files: ['app.ts', 'readme.ts'] }),
    );
  }
}
