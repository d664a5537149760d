/**
 * Real-time scale benchmark (docs/performance.md#targets): coordinator processes started as `npm start`
 * runs them, on a private Redis; N members heartbeating over real HTTP on their own timers at the
 * default 3 s interval and 15 s lease. Per size it measures cold start, one join and one leave
 * to convergence (every shard held — current, granted or revoking — by exactly its target owner,
 * no revoke in progress, no invariant violation), non-2xx answers, heartbeat latency, and — with the members paused — CPU
 * of the coordinator process and Redis bytes per full-path and per fast-path heartbeat.
 */
import { Redis } from 'ioredis';
import { groupKeys } from '../../src/store/keys.js';
import { decodeShards } from '../../src/store/shard-ranges.js';
import { type CoordinatorProcess, cpuMs, redisNetBytes, startCoordinator } from './coordinators.js';
import { postJson, RealMember, Tally } from './member.js';

const SHARDS = 1024;
/** The steady heartbeat interval the coordinators answer (BENCH_INTERVAL_MS; the lease is 5×). @default 3000 */
export const INTERVAL_MS = Number(process.env.BENCH_INTERVAL_MS ?? 3000);

/** One row of the scale table. */
export interface ScaleRow {
  members: number;
  instances: number;
  coldStartMs: number | null;
  joinMs: number | null;
  leaveMs: number | null;
  non2xx: Record<string, number>;
  errors: number;
  heartbeats: number;
  p50Ms: number;
  p99Ms: number;
  /** p99 of the heartbeats after the cold start converged (steady state, one join, one leave). */
  p99AfterColdMs: number;
  cpuFullMs: number | null;
  cpuFastMs: number | null;
  bytesFull: number | null;
  bytesFast: number | null;
}

/** Limits of one size's run (all bounded: nothing here waits forever). */
interface Limits {
  coldStartMs: number;
  changeMs: number;
}

function limitsFor(n: number): Limits {
  // Measured in intervals: a longer interval gets proportionally longer (the defaults at 3 s).
  const k = Math.max(1, INTERVAL_MS / 3000);
  return n >= 3000
    ? { coldStartMs: 120_000 * k, changeMs: 45_000 * k }
    : { coldStartMs: 60_000 * k, changeMs: 30_000 * k };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

function median(xs: number[]): number {
  return percentile(xs, 50);
}

/** Runs one size: `n` members over `instances` coordinator processes on the Redis at `redisUrl`. */
export async function benchScale(redisUrl: string, n: number, instances: number): Promise<ScaleRow> {
  const namespace = `scale-${n}-${Date.now()}`;
  const coordinators: CoordinatorProcess[] = [];
  const info = new Redis(redisUrl, { protocol: 2 });
  try {
    for (let i = 0; i < instances; i++) {
      coordinators.push(
        await startCoordinator(redisUrl, {
          COORDINATOR_KEY_PREFIX: namespace,
          COORDINATOR_HEARTBEAT_INTERVAL_MS: String(INTERVAL_MS),
          COORDINATOR_MEMBER_LEASE_TTL_MS: String(5 * INTERVAL_MS),
        }),
      );
    }
    return await run(n, coordinators, info, namespace);
  } finally {
    info.disconnect();
    await Promise.all(coordinators.map((c) => c.stop()));
  }
}

async function run(
  n: number,
  coordinators: CoordinatorProcess[],
  info: Redis,
  namespace: string,
): Promise<ScaleRow> {
  const prefix = `orders-${n}`;
  const admin = coordinators[0]!.url;
  const created = await postJson(admin, `/coord/v1/streams/${prefix}`, {
    initialShardCount: SHARDS,
    requestedBy: 'bench',
  });
  if ('error' in created || created.status !== 201)
    throw new Error(`create failed: ${JSON.stringify(created)}`);

  const tally = new Tally();
  const members = Array.from(
    { length: n },
    (_, i) =>
      new RealMember(
        `m${String(i).padStart(5, '0')}`,
        coordinators[i % coordinators.length]!.url,
        prefix,
        tally,
      ),
  );
  const limits = limitsFor(n);
  const converged = (list: RealMember[], since: number, limitMs: number) =>
    waitConverged({ base: admin, redis: info, namespace, prefix }, list, since, limitMs);

  // Cold start: every member starts within the first second.
  const t0 = performance.now();
  for (const m of members) m.start(Math.random() * 1000);
  const coldStartMs = await converged(members, t0, limits.coldStartMs);
  const coldEnd = performance.now();

  // One join.
  const joiner = new RealMember('m-joiner', coordinators[0]!.url, prefix, tally);
  await sleep(INTERVAL_MS);
  const tJoin = performance.now();
  joiner.start(0);
  const all = [...members, joiner];
  const joinMs = coldStartMs === null ? null : await converged(all, tJoin, limits.changeMs);

  // The same member leaves gracefully.
  await sleep(INTERVAL_MS);
  const tLeave = performance.now();
  await joiner.leave();
  const leaveMs = joinMs === null ? null : await converged(members, tLeave, limits.changeMs);

  // Costs of single heartbeats with the members paused (well within their 15 s lease).
  const costs = coldStartMs === null ? null : await measureCosts(members, coordinators, info);

  await Promise.all(members.map((m) => m.pause()));
  if (tally.errors > 0)
    console.error(`scale bench: transport errors ${JSON.stringify([...tally.errorKinds])}`);
  if (process.env.BENCH_DEBUG) {
    const phase = (from: number, to: number) => {
      const xs = tally.latencies.filter((_, i) => tally.at[i]! >= from && tally.at[i]! < to);
      return `${xs.length} hb, p50 ${median(xs).toFixed(1)} p99 ${percentile(xs, 99).toFixed(1)} max ${Math.max(0, ...xs).toFixed(0)}`;
    };
    console.error(`latency by second since start:`);
    for (let sec = 0; sec < 12; sec++)
      console.error(`  ${sec}s: ${phase(t0 + sec * 1000, t0 + (sec + 1) * 1000)}`);
    console.error(`  join: ${phase(tJoin, tLeave)}; leave and after: ${phase(tLeave, performance.now())}`);
  }
  return {
    members: n,
    instances: coordinators.length,
    coldStartMs,
    joinMs,
    leaveMs,
    non2xx: tally.non2xx(),
    errors: tally.errors,
    heartbeats: tally.sent,
    p50Ms: median(tally.latencies),
    p99Ms: percentile(tally.latencies, 99),
    p99AfterColdMs: percentile(
      tally.latencies.filter((_, i) => tally.at[i]! > coldEnd),
      99,
    ),
    cpuFullMs: costs?.cpuFullMs ?? null,
    cpuFastMs: costs?.cpuFastMs ?? null,
    bytesFull: costs?.bytesFull ?? null,
    bytesFast: costs?.bytesFast ?? null,
  };
}

/** Where convergence is checked: a coordinator's monitoring API, and the Redis it stores in. */
interface Observed {
  base: URL;
  redis: Redis;
  namespace: string;
  prefix: string;
}

/**
 * Milliseconds from `since` until the group has converged, or null after `limitMs`. Checked on
 * the members' side first, then in the coordinator's ownership and target indexes in Redis
 * (read directly, so polling does not load the coordinators under test), and finally confirmed
 * once from the coordinator's own monitoring views.
 */
async function waitConverged(
  at: Observed,
  members: RealMember[],
  since: number,
  limitMs: number,
): Promise<number | null> {
  let lastCheck = 0;
  let clientAt: number | null = null;
  for (;;) {
    const now = performance.now();
    if (now - since > limitMs) return null;
    if (clientSideConverged(members)) {
      clientAt ??= now;
      if (now - lastCheck > 100) {
        lastCheck = now;
        if (await redisConverged(at, members)) {
          const doneAt = performance.now() - since;
          if (await serverConverged(at.base, at.prefix, members)) {
            if (process.env.BENCH_DEBUG)
              console.error(
                `converged: client-side after ${(clientAt - since).toFixed(0)} ms, in Redis after ${doneAt.toFixed(0)} ms`,
              );
            return doneAt;
          }
        }
      }
    } else {
      clientAt = null;
    }
    await sleep(20);
  }
}

/**
 * The coordinator's indexes in Redis: every member live, every target shard's ownership entry
 * naming its target owner as current or granted holder, and no shard revoking.
 */
async function redisConverged(at: Observed, members: RealMember[]): Promise<boolean> {
  const k = groupKeys(at.namespace, at.prefix, at.prefix);
  const [owners, targets, statuses] = (await at.redis
    .multi()
    .hgetall(k.owners)
    .hgetall(k.targets)
    .hgetall(k.status)
    .exec()
    .then((r) => r?.map(([, v]) => v))) as Array<Record<string, string>>;
  if (!owners || !targets || !statuses) return false;
  if (members.some((m) => statuses[m.id] !== 'A')) return false;
  if (Object.values(owners).some((o) => o.endsWith('|r'))) return false;
  let covered = 0;
  for (const m of members) {
    for (const s of decodeShards(targets[m.id] ?? '') ?? []) {
      const o = owners[String(s)];
      if (o !== `${m.id}|c` && o !== `${m.id}|g`) return false;
      covered++;
    }
  }
  return covered === SHARDS;
}

/** Every member settled on its last answer, and together they hold every shard exactly once. */
function clientSideConverged(members: RealMember[]): boolean {
  const seen = new Set<number>();
  for (const m of members) {
    if (!m.settled()) return false;
    for (const s of m.owned) {
      if (seen.has(s)) return false;
      seen.add(s);
    }
  }
  return seen.size === SHARDS;
}

/**
 * The coordinator's view: every target shard held (current, granted or revoking) by exactly its
 * target owner, nothing revoking, no invariant violation, and every member live.
 */
async function serverConverged(base: URL, prefix: string, members: RealMember[]): Promise<boolean> {
  const p = encodeURIComponent(prefix);
  const root = `/coord/v1/monitoring/streams/${p}/groups/${p}`;
  const [a, m] = await Promise.all([
    fetch(new URL(`${root}/assignments`, base)).then((r) => r.json()),
    fetch(new URL(`${root}/members`, base)).then((r) => r.json()),
  ]);
  const assignments = a as {
    targetAssignment: Record<string, Array<{ shardIndex: number }>>;
    revokeProgress: Record<string, unknown[]>;
    invariantViolations: string[];
  };
  type Shards = Array<{ shardIndex: number }>;
  const records = (
    m as {
      members: Array<{
        memberId: string;
        state: string;
        currentAssignment: Shards;
        grantedAssignment: Shards;
        revoking: Shards;
      }>;
    }
  ).members;
  if (assignments.invariantViolations.length > 0) return false;
  if (Object.keys(assignments.revokeProgress).length > 0) return false;
  const live = new Set(records.filter((x) => x.state === 'ACTIVE').map((x) => x.memberId));
  const expected = new Set(members.map((x) => x.id));
  if (live.size !== expected.size || [...expected].some((id) => !live.has(id))) return false;
  const holder = new Map<number, string[]>();
  for (const r of records) {
    if (r.state !== 'ACTIVE' && r.state !== 'LEAVING') continue;
    const held = new Set(
      [...r.currentAssignment, ...r.grantedAssignment, ...r.revoking].map((x) => x.shardIndex),
    );
    for (const s of held) holder.set(s, [...(holder.get(s) ?? []), r.memberId]);
  }
  let covered = 0;
  for (const [id, target] of Object.entries(assignments.targetAssignment)) {
    if (!live.has(id)) continue;
    for (const t of target) {
      const h = holder.get(t.shardIndex);
      if (h?.length !== 1 || h[0] !== id) return false;
    }
    covered += target.length;
  }
  return covered === SHARDS;
}

/** CPU (coordinator processes) and Redis bytes per full-path and per fast-path heartbeat. */
async function measureCosts(
  members: RealMember[],
  coordinators: CoordinatorProcess[],
  info: Redis,
): Promise<{ cpuFullMs: number; cpuFastMs: number; bytesFull: number; bytesFast: number }> {
  await Promise.all(members.map((m) => m.pause()));
  const started = performance.now();
  const budgetMs = 9000;
  const cpu = async () =>
    (await Promise.all(coordinators.map((c) => cpuMs(c.pid)))).reduce((a, b) => a + b, 0);
  await sleep(300);

  // Background cost of the coordinators doing nothing but their sweep.
  const idleMs = 1500;
  const idle0 = await cpu();
  await sleep(idleMs);
  const idleRate = ((await cpu()) - idle0) / idleMs;

  // INFO's own bytes, calibrated.
  const overheads: number[] = [];
  for (let i = 0; i < 5; i++) {
    const b0 = await redisNetBytes(info);
    overheads.push((await redisNetBytes(info)) - b0);
  }
  const overhead = median(overheads);
  const bytesOf = async (m: RealMember, toggle: boolean): Promise<number> => {
    const b0 = await redisNetBytes(info);
    await m.beatOnce(toggle);
    return (await redisNetBytes(info)) - b0 - overhead;
  };

  // Full path: a heartbeat whose capacity report changed. The identical heartbeat right after it
  // is steady (the coordinator answers it from its fast path, if it has one for this state).
  const pick = members.filter((m) => m.settled());
  const fullBytes: number[] = [];
  const fastBytes: number[] = [];
  // A member that has not heartbeated since the last epoch bump (the leave above) is moved to the
  // new epoch by its next answer and confirms it with the one after, and neither is steady: it
  // would be measured as full twice. One unmeasured heartbeat each first catches them up.
  const sample = pick.slice(0, 15);
  for (const m of sample) await m.beatOnce(false);
  for (const m of sample) {
    fullBytes.push(await bytesOf(m, true));
    fastBytes.push(await bytesOf(m, false));
  }

  // 200 heartbeats each way, cycling over the settled members (a toggle is a full path every
  // time), after as many unmeasured ones: a small group's coordinator has seen few requests, and
  // its first ones pay for just-in-time compilation.
  const batch = Array.from({ length: 200 }, (_, i) => pick[i % pick.length]!);
  for (const m of batch) {
    await m.beatOnce(true);
    await m.beatOnce(false);
    if (performance.now() - started > budgetMs * 0.25) break;
  }
  let c0 = await cpu();
  let w0 = performance.now();
  let fullCount = 0;
  for (const m of batch) {
    await m.beatOnce(true);
    fullCount++;
    if (performance.now() - started > budgetMs * 0.5) break;
  }
  const cpuFullMs = ((await cpu()) - c0 - idleRate * (performance.now() - w0)) / Math.max(1, fullCount);

  // One unmeasured steady round first: a design whose fast path needs a quiet round gets it.
  const fastPick = [...new Set(batch.slice(0, fullCount))];
  for (const m of fastPick) await m.beatOnce(false);
  c0 = await cpu();
  w0 = performance.now();
  let fastCount = 0;
  for (let i = 0; i < 1000 && fastPick.length > 0; i++) {
    await fastPick[i % fastPick.length]!.beatOnce(false);
    fastCount++;
    if (performance.now() - started > budgetMs) break;
  }
  const cpuFastMs = ((await cpu()) - c0 - idleRate * (performance.now() - w0)) / Math.max(1, fastCount);
  return { cpuFullMs, cpuFastMs, bytesFull: median(fullBytes), bytesFast: median(fastBytes) };
}
