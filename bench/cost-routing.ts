/**
 * The cost bench's producer-routing part (docs/producing.md#routing-after-a-scale): what keeping
 * a producer's routing fresh costs per producer-hour, with revalidation off (the lease alone: a
 * full answer every 25 s) and at the default `revalidateMs` (a conditional request every 3 s,
 * answered 304). The producer runs on a simulated clock that advances a second per step and asks
 * for its routing at each step, as a producer publishing at least once a second does; every
 * request goes to the built Worker, whose Upstash commands the bridge counts as Upstash bills them.
 */
import { createProducer } from '../src/client/producer.js';
import type { ProducerRedis } from '../src/client/redis-adapter.js';
import type { FetchLike } from '../src/client/transport.js';
import type { UpstashBridge } from '../test/support/upstash-bridge.js';
import type { RunningWorker } from '../test/support/worker.js';

const HOUR_MS = 3_600_000;
/** Simulated time per mode; the counts scale to an hour. */
const SIMULATED_MS = 600_000;
const STEP_MS = 1000;
/** The default `revalidateMs` (src/client/producer.ts). */
const DEFAULT_REVALIDATE_MS = 3000;

/** One mode's counts, per producer-hour. */
export interface RoutingCostRow {
  mode: string;
  requests: number;
  notModified: number;
  commands: number;
  commandNames: string;
  bodyBytes: number;
  /** Body bytes of one full (200) answer, for comparison. */
  fullAnswerBytes: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function measure(
  worker: RunningWorker,
  bridge: UpstashBridge,
  redis: ProducerRedis,
  p: string,
  revalidateMs: number,
): Promise<RoutingCostRow> {
  let t = Date.parse('2026-12-02T00:00:00Z');
  const seen = { requests: 0, notModified: 0, bodyBytes: 0 };
  const pending = new Set<Promise<unknown>>();
  const fetchFn: FetchLike = (url, init) => {
    const u = new URL(url);
    const { signal: _signal, ...rest } = init;
    const answer = worker.fetch(`${u.pathname}${u.search}`, rest).then(async (res) => {
      seen.requests++;
      if (res.status === 304) seen.notModified++;
      seen.bodyBytes += (await res.clone().arrayBuffer()).byteLength;
      return res;
    });
    pending.add(answer);
    void answer.finally(() => pending.delete(answer));
    return answer;
  };
  const producer = createProducer({
    coordinatorUrl: 'http://worker.test',
    streamPrefix: p,
    redis,
    fetch: fetchFn,
    revalidateMs,
    now: () => t,
  });
  await producer.routing();
  const fullAnswerBytes = seen.bodyBytes;
  bridge.reset();
  Object.assign(seen, { requests: 0, notModified: 0, bodyBytes: 0 });
  for (let elapsed = 0; elapsed < SIMULATED_MS; elapsed += STEP_MS) {
    t += STEP_MS;
    await producer.routing();
    // Let a background request land before the clock moves on.
    while (pending.size > 0) await Promise.all(pending);
    await sleep(1);
  }
  const names = new Map<string, number>();
  for (const r of bridge.requests) for (const c of r.commands) names.set(c[0]!, (names.get(c[0]!) ?? 0) + 1);
  const scale = HOUR_MS / SIMULATED_MS;
  return {
    mode:
      revalidateMs === 0
        ? 'revalidation off (lease 30 s, refresh 5 s ahead)'
        : `revalidateMs ${revalidateMs}`,
    requests: seen.requests * scale,
    notModified: seen.notModified * scale,
    commands: bridge.counts.commands * scale,
    commandNames: [...names.keys()].join(', ') || 'none',
    bodyBytes: seen.bodyBytes * scale,
    fullAnswerBytes,
  };
}

/** Both modes against the Worker: before (off) and after (the default period). */
export async function routingCost(
  worker: RunningWorker,
  bridge: UpstashBridge,
  redis: ProducerRedis,
  p: string,
): Promise<RoutingCostRow[]> {
  return [
    await measure(worker, bridge, redis, p, 0),
    await measure(worker, bridge, redis, p, DEFAULT_REVALIDATE_MS),
  ];
}
