/**
 * Captures one example of every documented operation from a real coordinator: a private
 * redis-server on a free loopback port, the app in process, a small scenario (a stream with
 * four shards, two groups, two members, a few entries, an offsets reset's dry run, a scale-out, a
 * rollback, a group repair, a login), and writes what was sent and answered to `src/http/generated/openapi-examples.ts`,
 * which the OpenAPI document and the docs page's try-it forms show.
 * `test/ops/openapi-examples.test.ts` checks every example still parses with its operation's
 * schemas (rerun this when one does not).
 *
 * Usage: `npm run build:examples`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { startRedisServer } from '../node/redis-server.js';
import { parseConfig } from '../src/config.js';
import { Coordinator } from '../src/coordinator.js';
import { createApp } from '../src/http/app.js';
import type { OperationExample } from '../src/http/openapi-example-types.js';
import { API_ROUTES, matchRoute } from '../src/http/route-table.js';
import { SERVICE_ROUTES } from '../src/http/routes/service-api.js';
import { CoordinatorMetrics } from '../src/metrics/coordinator-metrics.js';
import { LagCache } from '../src/metrics/lag-cache.js';
import { IoredisInspector } from '../src/store/ioredis-inspector.js';
import { IoredisStore } from '../src/store/ioredis-store.js';
import { groupKeys } from '../src/store/keys.js';

const OUT = fileURLToPath(new URL('../src/http/generated/openapi-examples.ts', import.meta.url));
/** The example deployment's admin; the password shown in the login example is this placeholder. */
const ADMIN = { username: 'admin', password: 'change-me' };
/** Textual answers (HTML, Prometheus text) are shown by their first characters. */
const TEXT_HEAD = 240;

const examples: Record<string, OperationExample> = {};

function heartbeat(memberId: string, epoch: number, mv: number, owned: number[]) {
  return {
    protocolVersion: 1,
    requestId: `req-${memberId}-${epoch}-${owned.length}`,
    memberId,
    memberName: `billing-worker-${memberId.slice(-1)}`,
    memberEpoch: epoch,
    metadataVersion: mv,
    runtimeConsumerCapacity: { runtimeMaxConcurrency: 4, availableConcurrency: 4 },
    ownedShards: owned.map((shardIndex) => ({ shardIndex })),
    revokingShards: [],
    shardProgress: [],
  };
}

async function main(): Promise<void> {
  const baseDir = await mkdtemp(join(tmpdir(), 'rsc-examples-'));
  const server = await startRedisServer({ baseDir });
  const client = new Redis({ host: '127.0.0.1', port: server.port, lazyConnect: false });
  const config = parseConfig({
    COORDINATOR_ADMIN_USERNAME: ADMIN.username,
    COORDINATOR_ADMIN_PASSWORD: ADMIN.password,
    COORDINATOR_AUTHENTICATE_MEMBER_API: 'false',
  });
  const store = new IoredisStore(client, { namespace: config.keyPrefix });
  const metrics = new CoordinatorMetrics({
    version: 'example',
    reference: { coordinatorId: config.coordinatorId, maxGroups: config.metricsMaxGroups },
  });
  const coordinator = new Coordinator({ store, config, onEvent: (e) => metrics.observeEvent(e) });
  metrics.watchGroups(() => coordinator.listGroups());
  const inspector = new IoredisInspector(client);
  const lag = new LagCache({ inspector, refreshMs: 1000, maxShards: config.metricsLagMaxShards });
  metrics.watchReference(() => coordinator.listGroups(), lag);
  const app = createApp({ coordinator, config, inspector, metrics });
  const basic = `Basic ${btoa(`${ADMIN.username}:${ADMIN.password}`)}`;

  /** Sends one request and records it as its operation's example (the first success wins). */
  // biome-ignore lint/suspicious/noExplicitAny: the scenario indexes JSON answers freely.
  async function call(method: string, url: string, body?: unknown, auth = basic): Promise<any> {
    const headers: Record<string, string> = { authorization: auth };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await app.request(url, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    const isJson = (res.headers.get('content-type') ?? '').includes('json');
    const answer = isJson ? JSON.parse(text) : text;
    if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 300)}`);
    const [path, qs] = url.split('?');
    // `/console/*` is a wildcard, which the matcher (it serves the role check) does not expand.
    const match = path!.startsWith('/console/')
      ? { route: SERVICE_ROUTES.consoleAsset, params: { path: path!.slice('/console/'.length) } }
      : matchRoute(method, path!);
    if (!match) throw new Error(`${method} ${path}: no declared operation`);
    const id = match.route.operationId;
    if (examples[id]) return answer;
    const example: OperationExample = {};
    if (Object.keys(match.params).length > 0) example.params = match.params;
    if (qs) example.query = Object.fromEntries(new URLSearchParams(qs));
    if (body !== undefined) example.request = body;
    example.response = isJson ? answer : `${text.slice(0, TEXT_HEAD)}…`;
    examples[id] = example;
    return answer;
  }

  /**
   * One call of every declared GET not captured yet whose path parameters `sample` fills (with
   * the query parameters it requires): a new read-only route gets its example without an edit here.
   */
  async function everyGet(sample: Record<string, string>): Promise<void> {
    for (const route of API_ROUTES) {
      if (route.method !== 'get' || examples[route.operationId] || route.path.includes('*')) continue;
      const names = [...route.path.matchAll(/\{([^}]+)\}/g)].map((x) => x[1]!);
      if (names.some((n) => !(n in sample))) continue;
      const path = route.path.replace(/\{([^}]+)\}/g, (_, n: string) => encodeURIComponent(sample[n]!));
      const query = new URLSearchParams();
      for (const q of route.query ?? [])
        if (q.required && q.name in sample) query.set(q.name, sample[q.name]!);
      await call('GET', query.size > 0 ? `${path}?${query}` : path);
    }
  }

  try {
    const g = '/coord/v1/streams/orders/groups/billing';
    const m = '/coord/v1/monitoring/streams/orders/groups/billing';
    await call('POST', '/coord/v1/streams/orders', {
      initialShardCount: 4,
      consumerGroup: 'billing',
      requestedBy: 'ops@example.com',
      reason: 'new orders pipeline',
    });
    await call('POST', '/coord/v1/streams/orders/groups/audit', {
      requestedBy: 'ops@example.com',
      reason: 'audit trail reader',
    });
    let a = await call('POST', `${g}/members/billing-m0/heartbeat`, heartbeat('billing-m0', 0, 0, []));
    let b = await call('POST', `${g}/members/billing-m1/heartbeat`, heartbeat('billing-m1', 0, 0, []));
    for (let round = 0; round < 3; round++) {
      const own = (x: { assignment: { assignedShards: Array<{ shardIndex: number }> } }) =>
        x.assignment.assignedShards.map((s) => s.shardIndex);
      a = await call(
        'POST',
        `${g}/members/billing-m0/heartbeat`,
        heartbeat('billing-m0', a.memberEpoch, a.metadataVersion, own(a)),
      );
      b = await call(
        'POST',
        `${g}/members/billing-m1/heartbeat`,
        heartbeat('billing-m1', b.memberEpoch, b.metadataVersion, own(b)),
      );
    }
    // Both members in one request, as the SDK batches them.
    await call('POST', `${g}/heartbeats`, {
      heartbeats: [
        heartbeat(
          'billing-m0',
          a.memberEpoch,
          a.metadataVersion,
          a.assignment.assignedShards.map((s: { shardIndex: number }) => s.shardIndex),
        ),
        heartbeat(
          'billing-m1',
          b.memberEpoch,
          b.metadataVersion,
          b.assignment.assignedShards.map((s: { shardIndex: number }) => s.shardIndex),
        ),
      ],
    });
    for (let i = 0; i < 6; i++) {
      await client.xadd(`orders:${i % 4}`, '*', 'orderId', `o-${1000 + i}`, 'amount', String(20 + i));
    }
    // Shard 0's owner reads its two records; the first kept failing and its consumer SDK
    // dead-lettered it (the fields `deadLetter` writes) and acknowledged it: one stays pending.
    const holder = a.assignment.assignedShards.some((s: { shardIndex: number }) => s.shardIndex === 0)
      ? 'billing-m0'
      : 'billing-m1';
    const read = (await client.xreadgroup(
      'GROUP',
      'billing',
      holder,
      'COUNT',
      2,
      'STREAMS',
      'orders:0',
      '>',
    )) as Array<[string, Array<[string, string[]]>]>;
    const [failed] = read[0]![1];
    await client.xadd(
      'orders:dlq',
      '*',
      ...['dlq.stream', 'orders:0', 'dlq.id', failed![0], 'dlq.group', 'billing', 'dlq.member', holder],
      ...['dlq.deliveryCount', '5', 'dlq.error', 'Error: payment service answered 502'],
      ...failed![1],
    );
    await client.xack('orders:0', 'billing', failed![0]);
    await call('GET', `${m}/pending-entries?shard=0&count=50`);
    await call('GET', `${m}/dead-letters?count=50`);
    // The audit group has no members: what skipping its backlog would do (a dry run, the default).
    await call('POST', '/coord/v1/admin/streams/orders/groups/audit/offsets/reset', {
      to: 'latest',
      requestedBy: 'ops@example.com',
      reason: 'skip the audit backlog',
    });
    // Those that need a query of their own; every other GET comes from the declarations below.
    await call('GET', `${m}/shards/0/messages?direction=BACKWARD&limit=2`);
    const grafana = '/coord/v1/monitoring/grafana';
    await call('GET', `${grafana}/options/consumer-groups?streamPrefix=orders`);
    const sel = 'streamPrefix=orders&consumerGroup=billing';
    await call('GET', `${grafana}/messages?${sel}&shardIndex=all&direction=BACKWARD&limit=2`);
    await call('GET', '/console/index.html');

    const scaled = await call('POST', '/coord/v1/streams/orders/scale', {
      targetShardCount: 6,
      requestedBy: 'ops@example.com',
      reason: 'Black Friday traffic',
    });
    const id = scaled.migrations[0].reshardingId;
    // Every other GET, while the scale-out is in progress (the views show it).
    await everyGet({
      streamPrefix: 'orders',
      consumerGroup: 'billing',
      memberId: 'billing-m0',
      reshardingId: id,
      shard: '0',
    });
    await call('POST', `${g}/migrations/${id}/rollback`, {
      requestedBy: 'ops@example.com',
      reason: 'traffic back to normal',
    });
    await call('POST', '/coord/v1/streams/orders/groups/audit/scale', {
      targetShardCount: 5,
      requestedBy: 'ops@example.com',
      reason: 'audit reader falls behind',
    });
    await call('DELETE', '/coord/v1/streams/orders/groups/audit', {
      requestedBy: 'ops@example.com',
      reason: 'audit moved to the warehouse',
      force: true,
    });
    await call('POST', '/coord/v1/streams/clicks', { initialShardCount: 2, requestedBy: 'ops@example.com' });
    await call('DELETE', '/coord/v1/streams/clicks', {
      requestedBy: 'ops@example.com',
      reason: 'click tracking retired',
    });
    // A group that lost a derived index (here its owners hash, as an eviction would drop it),
    // rebuilt by an operator.
    await client.del(groupKeys(config.keyPrefix, 'orders', 'billing').owners);
    await call('POST', `${g}/repair`, {
      mode: 'rebuild',
      requestedBy: 'ops@example.com',
      reason: 'owners hash evicted',
    });
    const login = await call('POST', '/coord/v1/auth/login', ADMIN, '');
    examples.login!.response = { ...login, accessToken: 'rsc1.eyJzdWIiOiJhZG1pbiJ9.c2lnbmF0dXJl' };
    const doc = await call('GET', '/coord/v1/openapi.json');
    examples.getOpenApi!.response = { openapi: doc.openapi, info: doc.info, tags: doc.tags.slice(0, 2) };
  } finally {
    await coordinator.close();
    await store.close();
    client.disconnect();
    await server.stop();
    await rm(baseDir, { recursive: true, force: true });
  }
  await writeFile(OUT, render(examples));
  console.log(`wrote ${OUT} (${Object.keys(examples).length} operations)`);
}

/** The module, one line per operation (so it stays a short file whatever the answers weigh). */
function render(all: Record<string, OperationExample>): string {
  const lines = Object.entries(all)
    .sort(([x], [y]) => x.localeCompare(y))
    .map(([id, example]) => `  ${JSON.stringify(id)}: ${JSON.stringify(example)},`);
  return `/**
 * Generated by \`npm run build:examples\` (scripts/capture-api-examples.ts) from a real run:
 * one example request and answer per operation, keyed by operationId. Do not edit by hand.
 */
import type { OperationExample } from '../openapi-example-types.js';

/** One captured example per operation. */
export const OPERATION_EXAMPLES: Readonly<Record<string, OperationExample>> = {
${lines.join('\n')}
};
`;
}

await main();
