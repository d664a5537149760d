/**
 * Hand-off bench (docs/performance.md#hand-off): how long shards go unprocessed during a
 * rebalance, with real processes and the consumer SDK. A coordinator started as `npm start` runs
 * it (its default heartbeat interval and lease), four consumer processes with one member each
 * (bench/handoff-member.ts, SDK defaults) read 8 shards while a producer publishes one record to
 * every shard each 20 ms (400 records/s). After a steady spell one member leaves gracefully
 * (SIGTERM → `close()`), then another is SIGKILLed. From the records the members handled: the
 * longest gap of the shards each event did not move, and the gap of each moved shard (last record
 * handled by the old owner → first by the new one). BENCH_TRIALS trials (default 3), medians.
 */
import { Redis } from 'ioredis';
import { parseConfig } from '../src/config.js';
import {
  byShard,
  type EventFigures,
  eventFigures,
  type Handled,
  longestGapOfAll,
  ownerAt,
} from './handoff-gaps.js';
import {
  type MemberProcess,
  type ShardEvent,
  spawnMember,
  startSteadyProducer,
} from './handoff-processes.js';
import { startCoordinator } from './scale/coordinators.js';

/** KCL: `failoverTimeMillis` defaults to 10,000 ms (docs.aws.amazon.com/streams/latest/dev/kcl-configuration.html). */
const KCL_FAILOVER_MS = 10_000;
/** KCL 3.x: `gracefulLeaseHandoffTimeoutMillis` defaults to 30,000 ms, the longest wait for the old owner before the lease moves anyway (same page). */
const KCL_GRACEFUL_HANDOFF_MS = 30_000;
/** Kafka consumer: `session.timeout.ms` defaults to 45,000 ms since 3.0 (cwiki.apache.org/confluence/display/KAFKA/KIP-735). */
const KAFKA_SESSION_TIMEOUT_MS = 45_000;
/** Azure Event Hubs (.NET): `EventProcessorClientOptions.LoadBalancingUpdateInterval` defaults to 30 s (learn.microsoft.com/dotnet/api/azure.messaging.eventhubs.eventprocessorclientoptions.loadbalancingupdateinterval). */
const EVENT_HUBS_LOAD_BALANCING_MS = 30_000;

const SHARDS = 8;
const MEMBERS = ['a', 'b', 'c', 'd'];
/** One record per shard each period: 8 × 50 = 400 records/s. */
const PERIOD_MS = 20;
const STEADY_MS = 3000;
/** Kept after each event's moved shards are taken over, so a late stall of the others shows. */
const SETTLE_MS = 1500;
const TRIALS = Number(process.env.BENCH_TRIALS ?? 3);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What one trial measured, ms. */
interface Trial {
  steadyLongest: number;
  leave: EventFigures;
  kill: EventFigures;
  /** SIGTERM → the leaving member stopped reading and finished its last shard (`revoked`). */
  leaverReleased: number | null;
  /** SIGTERM → its `close()` resolved. */
  leaverClosed: number | null;
  /** Event → the last moved shard's new owner started reading it. */
  leaveToAssigned: number | null;
  killToAssigned: number | null;
  /** Longest pause between published batches over both events. */
  producerLongest: number;
  failed: number;
}

/** Runs the trials on the Redis at `redisUrl`; returns the table. */
export async function benchHandoff(redisUrl: string): Promise<string> {
  const env = { COORDINATOR_KEY_PREFIX: `handoff-${Date.now()}` };
  // The coordinator parses the same environment: these are the timings it runs with.
  const config = parseConfig({ ...process.env, ...env, REDIS_URL: redisUrl });
  const coordinator = await startCoordinator(redisUrl, env);
  const redis = new Redis(redisUrl);
  const trials: Trial[] = [];
  try {
    for (let i = 0; i < TRIALS; i++) {
      const t0 = Date.now();
      trials.push(await trial(i, coordinator.url.origin, redisUrl, redis, config.memberLeaseTtlMs));
      const took = ((Date.now() - t0) / 1000).toFixed(1);
      console.error(`handoff bench: trial ${i + 1} of ${TRIALS} done in ${took} s`);
    }
  } finally {
    redis.disconnect();
    await coordinator.stop();
  }
  return render(trials, config);
}

async function trial(
  n: number,
  url: string,
  redisUrl: string,
  redis: Redis,
  leaseMs: number,
): Promise<Trial> {
  const prefix = `handoff-${n}-${Date.now().toString(36)}`;
  await api(url, 'POST', `/streams/${prefix}`, { initialShardCount: SHARDS, requestedBy: 'bench' });
  const records: Handled[] = [];
  const shardEvents: ShardEvent[] = [];
  const members = MEMBERS.map((name) =>
    spawnMember({
      memberBase: `${prefix}-${name}`,
      coordinatorUrl: url,
      redisUrl,
      prefix,
      records,
      shardEvents,
    }),
  );
  let producer: ReturnType<typeof startSteadyProducer> | null = null;
  try {
    await Promise.all(members.map((m) => m.started));
    await waitFor('four members, stable', 60_000, () => stable(url, prefix, 4));
    producer = startSteadyProducer({
      coordinatorUrl: url,
      prefix,
      redis,
      shards: SHARDS,
      periodMs: PERIOD_MS,
    });
    const t = Date.now();
    await waitFor('every shard handled', 15_000, async () => {
      return new Set(records.filter((r) => r.at > t).map((r) => r.shard)).size === SHARDS;
    });
    const steadyFrom = Date.now();
    await sleep(STEADY_MS);

    const killed = members[2]!;
    const leaver = members[3]!;
    const leaveAt = Date.now();
    leaver.child.kill('SIGTERM');
    await waitFor('the leaver’s shards taken over', 60_000, async () => takenOver(records, leaver, leaveAt));
    await waitFor('three members, stable', 30_000, () => stable(url, prefix, 3));
    await sleep(SETTLE_MS);

    const killAt = Date.now();
    killed.child.kill('SIGKILL');
    await waitFor('the killed member’s shards taken over', leaseMs + 60_000, async () =>
      takenOver(records, killed, killAt),
    );
    await sleep(SETTLE_MS);
    const killEnd = Date.now();
    const { failed } = await producer.stop();
    const batches = producer.batchesAt.filter((at) => at >= leaveAt && at <= killEnd);
    producer = null;
    await leaver.exited;
    const closedAt = leaver.closedAt();
    const released = shardEvents.filter((e) => e.kind === 'R' && e.member === leaver.memberId);
    return {
      steadyLongest: longestGapOfAll(records, steadyFrom, leaveAt),
      leave: eventFigures(records, leaver.memberId, leaveAt, killAt),
      kill: eventFigures(records, killed.memberId, killAt, killEnd),
      leaverReleased: released.length === 0 ? null : Math.max(...released.map((e) => e.at)) - leaveAt,
      leaverClosed: closedAt === null ? null : closedAt - leaveAt,
      leaveToAssigned: toAssigned(records, shardEvents, leaver.memberId, leaveAt),
      killToAssigned: toAssigned(records, shardEvents, killed.memberId, killAt),
      producerLongest: Math.max(0, ...batches.slice(1).map((at, i) => at - batches[i]!)),
      failed,
    };
  } catch (err) {
    const tails = members.map((m) => `${m.memberId}: ${m.stderrTail()}`).join('\n');
    throw new Error(`handoff bench: ${err instanceof Error ? err.message : err}\n${tails}`);
  } finally {
    await producer?.stop();
    for (const m of members) m.child.kill('SIGKILL');
    await Promise.all(members.map((m) => m.exited));
  }
}

/** Every shard `m` held at `from` has a record handled by another member since. */
function takenOver(records: readonly Handled[], m: MemberProcess, from: number): boolean {
  for (const list of byShard(records).values()) {
    if (ownerAt(list, from) === m.memberId && !list.some((r) => r.at > from && r.member !== m.memberId))
      return false;
  }
  return true;
}

/** Event → the latest first `assigned` among the new owners of the shards `member` held, ms. */
function toAssigned(records: Handled[], events: ShardEvent[], member: string, from: number): number | null {
  let latest: number | null = null;
  for (const [shard, list] of byShard(records)) {
    if (ownerAt(list, from) !== member) continue;
    const first = events.find(
      (e) => e.kind === 'A' && e.shard === shard && e.member !== member && e.at > from,
    );
    if (!first) return null;
    latest = Math.max(latest ?? 0, first.at - from);
  }
  return latest;
}

async function stable(url: string, prefix: string, members: number): Promise<boolean> {
  const g = (await api(url, 'GET', `/streams/${prefix}/groups/${prefix}`)) as {
    state: string;
    targetAssignmentSummary: Record<string, number>;
  };
  return g.state === 'STABLE' && Object.keys(g.targetAssignmentSummary).length === members;
}

async function api(url: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${url}/coord/v1${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
  return text ? JSON.parse(text) : null;
}

async function waitFor(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(100);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** `median (t1, t2, …)` in seconds; a trial without a figure prints as `—` and is left out of the median. */
function figure(values: Array<number | null>, digits = 2): string {
  const secs = (ms: number) => `${(ms / 1000).toFixed(digits)} s`;
  const known = values.filter((v): v is number => v !== null);
  const all = values.map((v) => (v === null ? '—' : (v / 1000).toFixed(digits))).join(', ');
  return `${known.length === 0 ? 'none' : secs(median(known))} (${all})`;
}

/** The longest hand-off gap among an event's moved shards, null if one was never taken over. */
const worstMoved = (e: EventFigures) =>
  e.moved.some((m) => m.gapMs === null) ? null : Math.max(...e.moved.map((m) => m.gapMs!));

function render(trials: Trial[], config: ReturnType<typeof parseConfig>): string {
  const s = (ms: number) => `${ms / 1000} s`;
  const rows: Array<[string, string, string]> = [
    ['steady state, no rebalance: longest gap of any shard', figure(trials.map((t) => t.steadyLongest)), '—'],
    [
      'shards that do not move: longest gap during the graceful leave',
      figure(trials.map((t) => t.leave.unmovedLongestMs)),
      'target 0: they never stop (gaps as in the steady state)',
    ],
    [
      'shards that do not move: longest gap during the SIGKILL rebalance',
      figure(trials.map((t) => t.kill.unmovedLongestMs)),
      'target 0: they never stop (gaps as in the steady state)',
    ],
    [
      'moved shard, graceful leave (`close()`): last record of the old owner → first of the new',
      figure(trials.map((t) => worstMoved(t.leave))),
      `KCL graceful hand-off up to ${s(KCL_GRACEFUL_HANDOFF_MS)} (gracefulLeaseHandoffTimeoutMillis); Event Hubs load balancing every ${s(EVENT_HUBS_LOAD_BALANCING_MS)} (LoadBalancingUpdateInterval)`,
    ],
    [
      `moved shard, SIGKILL of a member (lease ${s(config.memberLeaseTtlMs)})`,
      figure(trials.map((t) => worstMoved(t.kill))),
      `KCL failover ${s(KCL_FAILOVER_MS)} (failoverTimeMillis); Kafka ${s(KAFKA_SESSION_TIMEOUT_MS)} (session.timeout.ms)`,
    ],
  ];
  const n = trials.length;
  const header = ['measure', `ours (median of ${n}, all trials)`, 'anchor'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  const unexpected = trials.flatMap((t) => [...t.leave.unexpectedlyMoved, ...t.kill.unexpectedlyMoved]);
  return [
    `### Hand-off (coordinator as \`npm start\`: heartbeat ${s(config.heartbeatIntervalMs)}, lease ${s(config.memberLeaseTtlMs)}, sweep ${s(config.sweepIntervalMs)}; ${MEMBERS.length} consumer processes × 1 member, SDK defaults; ${SHARDS} shards; producer ${(SHARDS * 1000) / PERIOD_MS} records/s, one per shard every ${PERIOD_MS} ms; ${n} trials)`,
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    '',
    `Per moved shard, the worst of the event's moved shards in each trial. The leaving member released its shards (last \`revoked\`) ${figure(trials.map((t) => t.leaverReleased))} after SIGTERM and its close() resolved after ${figure(trials.map((t) => t.leaverClosed))}; event → new owner reading: leave ${figure(trials.map((t) => t.leaveToAssigned))}, SIGKILL ${figure(trials.map((t) => t.killToAssigned))}. Producer: longest pause between batches during the events ${figure(trials.map((t) => t.producerLongest))}, ${trials.reduce((a, t) => a + t.failed, 0)} failed publishes. Shards that moved without being the event's: ${unexpected.length === 0 ? 'none' : unexpected.join(', ')}.`,
  ].join('\n');
}
