/**
 * Late heartbeats on the production path (docs/protocol.md#request-order): a heartbeat that
 * outlived the SDK's request timeout reaches the coordinator after the SDK's retry and after
 * later requests of the same member. Consumer processes talk to a real coordinator through a
 * loopback proxy that holds the first copy of every (re)join past the SDK's timeout and forwards
 * it while its member is giving up a shard, and holds every 3rd heartbeat of one consumer
 * 1.5–2.5 s, while consumers join and leave and the stream scales 8 → 12. No record is lost, no
 * shard is read by two members at once, and late copies really were decided.
 */
import { describe, expect, it } from 'vitest';
import { uniquePrefix } from '../support/redis.js';
import { migrationState, must, scale, waitUntil } from './support/http.js';
import { LateJoinPlan, startDelayProxy } from './support/http-delay-proxy.js';
import { check, describeFindings, overlapTrace, printTable } from './support/invariants.js';
import { startKillableRedis } from './support/killable-redis.js';
import { type JsonChild, startConsumer, startFaultCoordinator, startProducer } from './support/processes.js';

const COUNT = 900;
const RATE = 50;
/** The consumer child's `requestTimeoutMs`. */
const SDK_TIMEOUT_MS = 1000;

describe('faults > heartbeats decided after the SDK gave up on them', () => {
  it('loses no record and never lets two members read a shard while late joins and late heartbeats land during joins, a leave and a scale-out', async () => {
    const t0 = Date.now();
    const log: string[] = [];
    const note = (m: string) => log.push(`${((Date.now() - t0) / 1000).toFixed(1)}s (${Date.now()}) ${m}`);
    const redis = await startKillableRedis();
    const ns = uniquePrefix('ns');
    const p = uniquePrefix('lh');
    const c = await startFaultCoordinator(redis.url, ns);
    const plan = new LateJoinPlan({
      joinsOf: `${p}-`,
      steadyOf: `${p}-a-`,
      everyNth: 3,
      steadyDelaysMs: [1500, 2000, 2500],
      minHoldMs: SDK_TIMEOUT_MS + 200,
      maxHoldMs: 6000,
    });
    const proxy = await startDelayProxy(c.url, plan);
    const children: JsonChild[] = [];
    const consumer = (name: string) => {
      const child = startConsumer(`${p}-${name}`, {
        coordinatorUrl: proxy.url,
        redisUrl: redis.url,
        prefix: p,
      });
      children.push(child);
      return child;
    };
    const settled = async (members: number, what: string) => {
      await waitUntil(
        `${members} members, stable`,
        async () => {
          const g = await must(c.url, 'GET', `/streams/${p}/groups/${p}`);
          return g.state === 'STABLE' && Object.keys(g.currentAssignmentSummary).length === members;
        },
        6000,
        50,
      ).then(
        () => note(`${what}: ${members} members stable`),
        () => note(`${what}: not stable with ${members} members in 6 s`),
      );
    };
    try {
      await must(c.url, 'POST', `/streams/${p}`, { initialShardCount: 8, requestedBy: 'faults' }, 201);
      plan.armed = true;
      const armedAt = Date.now();
      note('armed');
      const a = consumer('a');
      const b = consumer('b');
      const producer = startProducer({
        coordinatorUrl: c.url,
        redisUrl: redis.url,
        prefix: p,
        count: COUNT,
        rate: RATE,
      });
      children.push(producer);
      await settled(4, 'a and b joined');
      const cc = consumer('c');
      await settled(6, 'c joined');
      const d = consumer('d');
      await settled(8, 'd joined');
      await b.stop();
      await settled(6, 'b left');
      const sc = await scale(c.url, p, 12);
      if (sc.status !== 202 || !sc.id)
        throw new Error(`scale answered ${sc.status}: ${JSON.stringify(sc.body)}`);
      note(`scale to 12 requested (${sc.id})`);
      await waitUntil(
        'the migration to DEPRECATED',
        async () => (await migrationState(c.url, p, sc.id!)) === 'DEPRECATED',
        15_000,
        100,
      ).then(
        () => note('migration DEPRECATED'),
        () => note('migration not DEPRECATED in 15 s'),
      );
      await settled(6, 'scaled');
      plan.disarm();
      const disarmedAt = Date.now();
      note('disarmed');

      await producer.waitFor((l) => l.t === 'done', 30_000);
      note('producer done');
      const consumers = [a, b, cc, d];
      const published = () => producer.lines.filter((l) => l.t === 'p').map((l) => Number(l.n));
      await waitUntil(
        'every published record handled',
        () => {
          const handled = new Set(
            consumers.flatMap((x) => x.lines.filter((l) => l.t === 'h').map((l) => Number(l.n))),
          );
          return published().every((n) => handled.has(n));
        },
        15_000,
        100,
      ).catch(() => note('not every record was handled in 15 s'));
      await Promise.all([a.stop(), cc.stop(), d.stop()]);
      note('consumers closed');

      const f = check({ producer, consumers, answers: [], window: [armedAt, disarmedAt + 3000] });
      const late = proxy.late;
      const lateJoins = late.filter((x) => x.request.items.some((it) => it.epoch === 0));
      const byStatus: Record<string, number> = {};
      const joinStatus: Record<string, number> = {};
      for (const x of late) {
        for (const [i, it] of x.request.items.entries()) {
          const s = x.statuses[i]!;
          byStatus[s] = (byStatus[s] ?? 0) + 1;
          if (it.epoch === 0) joinStatus[s] = (joinStatus[s] ?? 0) + 1;
        }
      }
      printTable('late heartbeats', {
        published: f.published,
        lost: f.lost.length,
        duplicates: f.duplicates,
        overlaps: f.overlaps.length,
        heartbeats: proxy.heartbeats,
        held: proxy.held.length,
        'late copies': late.length,
        'late joins': lateJoins.length,
        'joins forwarded at a revoke': plan.releasedAtRevoke,
        'held, answered in time': proxy.heldAnsweredInTime,
        'late join answers': JSON.stringify(joinStatus),
        'all late answers': JSON.stringify(byStatus),
      });
      console.log(log.join('\n'));
      const lateLog = late.map(
        (x) =>
          `late #${x.request.id} ${x.request.items.map((it, i) => `${it.memberId}@${it.epoch} owned=[${it.owned}] → ${x.statuses[i]}`).join(', ')}` +
          ` arrived ${x.request.arrivedAt} client gone ${x.request.clientClosedAt} forwarded ${x.forwardedAt} answered ${x.answeredAt}`,
      );
      const why = [
        describeFindings(f),
        ...log,
        ...lateLog,
        ...overlapTrace(
          f.overlaps,
          consumers.flatMap((x) => x.lines),
          c.lines,
        ),
      ].join('\n');
      expect(f.published, why).toBe(COUNT);
      expect(f.lost, why).toEqual([]);
      expect(f.overlaps, why).toEqual([]);
      // The scenario did what it is for: the coordinator decided copies the SDK had given up on,
      // joins among them, after the member's retry.
      expect(late.length, why).toBeGreaterThan(0);
      expect(lateJoins.length, why).toBeGreaterThan(0);
    } catch (err) {
      const tails = children.map((x) => `${x.name}: ${x.stderr().slice(-1500)}`).join('\n');
      if (err instanceof Error) err.message += `\n${log.join('\n')}\n${tails}`;
      throw err;
    } finally {
      plan.disarm();
      await Promise.all(children.map((x) => x.kill()));
      await c.kill();
      await proxy.close();
      await redis.close();
    }
  }, 60_000);
});
