/**
 * Scenarios 1 and 2: Redis crashes (SIGKILL, restart from its AOF) or freezes (SIGSTOP ~3 s,
 * SIGCONT) while a producer publishes, two consumer processes consume through two coordinator
 * instances, a read load runs against both, and a scale-out has just been requested. Returns
 * the invariant findings and the recovery figures.
 */
import { uniquePrefix } from '../../support/redis.js';
import { call, migrationState, must, type ReadLoad, scale, sleep, startReadLoad, waitUntil } from './http.js';
import { check, type Findings, overlapTrace } from './invariants.js';
import { startKillableRedis } from './killable-redis.js';
import {
  type Coordinator,
  type JsonChild,
  startConsumer,
  startFaultCoordinator,
  startProducer,
} from './processes.js';

/** Which fault. */
export type RedisFault = 'kill' | 'stop';

/** Findings plus the recovery figures, ms. */
export interface RedisFaultResult extends Findings {
  /** Fault began → Redis answering again (kill: restarted and AOF loaded; stop: SIGCONT). */
  outageMs: number;
  /** Redis back → each coordinator's first 2xx group read. */
  serveAgainMs: number[];
  /** Redis back → each coordinator's readiness 200. */
  readyAgainMs: number[];
  /** Redis back → the first record any consumer handled. */
  firstHandledMs: number;
  /** Redis back → the scale's migration seen DEPRECATED. */
  migrationDoneMs: number;
  /** The last non-2xx answer of the read load, relative to Redis back (negative: before). */
  lastNon2xxMs: number | null;
  log: string[];
  /** Both members' lines around each overlap (empty when none). */
  trace: string[];
}

const COUNT = 400;
const RATE = 50;
/** After Redis is back, answers may still be 503 this long (reconnect ≤ 500 ms, caches). */
export const GRACE_MS = 2000;

/** Runs the scenario; cleans up every process and the Redis it started. */
export async function runRedisFault(fault: RedisFault): Promise<RedisFaultResult> {
  const t0 = Date.now();
  const log: string[] = [];
  const note = (m: string) => log.push(`${((Date.now() - t0) / 1000).toFixed(1)}s (${Date.now()}) ${m}`);
  const redis = await startKillableRedis();
  const ns = uniquePrefix('ns');
  const p = uniquePrefix('rf');
  const coords: Coordinator[] = [];
  const children: JsonChild[] = [];
  let load: ReadLoad | null = null;
  try {
    coords.push(...(await Promise.all([0, 1].map(() => startFaultCoordinator(redis.url, ns)))));
    const [c1, c2] = coords as [Coordinator, Coordinator];
    await must(c1.url, 'POST', `/streams/${p}`, { initialShardCount: 4, requestedBy: 'faults' }, 201);
    const a = startConsumer(`${p}-a`, { coordinatorUrl: c1.url, redisUrl: redis.url, prefix: p });
    const b = startConsumer(`${p}-b`, { coordinatorUrl: c2.url, redisUrl: redis.url, prefix: p });
    children.push(a, b);
    await waitUntil('four members, stable', async () => {
      const g = await must(c1.url, 'GET', `/streams/${p}/groups/${p}`);
      return g.state === 'STABLE' && Object.keys(g.currentAssignmentSummary).length === 4;
    });
    note('4 members stable');
    load = startReadLoad([c1.url, c2.url], p);
    const producer = startProducer({
      coordinatorUrl: c1.url,
      redisUrl: redis.url,
      prefix: p,
      count: COUNT,
      rate: RATE,
    });
    children.push(producer);
    await producer.waitFor((l) => l.t === 'p' && l.n >= 100);
    const sc = await scale(c2.url, p, 6);
    if (sc.status !== 202 || !sc.id)
      throw new Error(`scale answered ${sc.status}: ${JSON.stringify(sc.body)}`);
    note(`scale to 6 requested (${sc.id})`);

    const faultAt = Date.now();
    if (fault === 'kill') {
      await redis.kill();
      note('Redis SIGKILLed');
      await sleep(2000);
      await redis.restart();
      note('Redis restarted from AOF');
    } else {
      redis.pause();
      note('Redis SIGSTOPped');
      await sleep(3000);
      redis.resume();
      note('Redis SIGCONTed');
    }
    const backAt = Date.now();

    const [serveAgainMs, readyAgainMs] = await Promise.all([
      Promise.all(
        coords.map(async (c) => {
          const at = await waitUntil(
            'a 2xx group read',
            async () =>
              (await call(c.url, 'GET', `/streams/${p}/groups/${p}`, undefined, 2000)).status === 200,
            20_000,
            20,
          );
          return at - backAt;
        }),
      ),
      Promise.all(
        coords.map(async (c) => {
          const at = await waitUntil(
            'readiness 200',
            async () =>
              (await call(c.url, 'GET', '/actuator/health/readiness', undefined, 2000)).status === 200,
            20_000,
            20,
          );
          return at - backAt;
        }),
      ),
    ]);
    const firstHandled = await Promise.race(
      [a, b].map((c) => c.waitFor((l) => l.t === 'h' && l.at >= backAt, 20_000)),
    );
    const firstHandledMs = firstHandled.at - backAt;
    note(`serving again; first record handled ${firstHandledMs} ms after Redis came back`);

    const migrationDoneAt = await waitUntil(
      'the migration to DEPRECATED',
      async () => (await migrationState(c1.url, p, sc.id!)) === 'DEPRECATED',
      30_000,
      100,
    );
    note('migration DEPRECATED');
    await producer.waitFor((l) => l.t === 'done', 30_000);
    note('producer done');
    const published = () => new Set(producer.lines.filter((l) => l.t === 'p').map((l) => Number(l.n)));
    await waitUntil(
      'every published record handled',
      () => {
        const handled = new Set(
          [a, b].flatMap((c) => c.lines.filter((l) => l.t === 'h').map((l) => Number(l.n))),
        );
        return [...published()].every((n) => handled.has(n));
      },
      20_000,
      100,
    ).catch(() => note('not every record was handled in 20 s'));
    await load.stop();
    await Promise.all([a.stop(), b.stop()]);
    note('consumers closed');

    const findings = check({
      producer,
      consumers: [a, b],
      answers: load.answers,
      window: [faultAt, backAt + GRACE_MS],
    });
    const non2xx = load.answers.filter((x) => x.status < 200 || x.status >= 300);
    const last = non2xx.length > 0 ? Math.max(...non2xx.map((x) => x.at)) - backAt : null;
    return {
      ...findings,
      outageMs: backAt - faultAt,
      serveAgainMs,
      readyAgainMs,
      firstHandledMs,
      migrationDoneMs: migrationDoneAt - backAt,
      lastNon2xxMs: last,
      log,
      trace: overlapTrace(
        findings.overlaps,
        [a, b].flatMap((c) => c.lines),
        coords.flatMap((c) => c.lines),
      ),
    };
  } catch (err) {
    const tails = children.map((c) => `${c.name}: ${c.stderr().slice(-1500)}`).join('\n');
    throw new Error(`${err instanceof Error ? err.stack : err}\n${log.join('\n')}\n${tails}`);
  } finally {
    await load?.stop();
    await Promise.all(children.map((c) => c.kill()));
    await Promise.all(coords.map((c) => c.kill()));
    await redis.close();
  }
}
