/**
 * Lost replies on the coordinator → Redis path. Coordinator A reaches
 * Redis through the fault proxy and does no sweeps (so every command naming the stream is the
 * admin call's own); coordinator B talks to Redis directly and sweeps (it advances migrations).
 * For k = 1, 2, … the k-th command of an admin call loses its reply (or has it cut halfway),
 * until a call runs without reaching a k-th command.
 */
import { Redis } from 'ioredis';
import { uniquePrefix } from '../../support/redis.js';
import { type FaultProxy, startFaultProxy } from './fault-proxy.js';
import { type Answer, acceptable, call, sleep } from './http.js';
import { type KillableRedis, startKillableRedis } from './killable-redis.js';
import { type Coordinator, startFaultCoordinator } from './processes.js';

/** The running pieces. */
export interface LostReplyRig {
  redis: KillableRedis;
  proxy: FaultProxy;
  direct: Redis;
  ns: string;
  /** Through the proxy, no sweeps. */
  a: Coordinator;
  /** Direct, sweeping. */
  b: Coordinator;
  close(): Promise<void>;
}

/** Starts Redis, the proxy and both coordinators. */
export async function startRig(): Promise<LostReplyRig> {
  const redis = await startKillableRedis();
  const proxy = await startFaultProxy({ host: '127.0.0.1', port: redis.port });
  const ns = uniquePrefix('ns');
  const [a, b] = await Promise.all([
    startFaultCoordinator(proxy.url, ns, { COORDINATOR_SWEEP_INTERVAL_MS: '3600000' }),
    startFaultCoordinator(redis.url, ns),
  ]);
  const direct = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  return {
    redis,
    proxy,
    direct,
    ns,
    a,
    b,
    async close() {
      direct.disconnect();
      await Promise.all([a.kill(), b.kill()]);
      await proxy.close();
      await redis.close();
    },
  };
}

/** One faulted call: what it answered, and the retries it took to settle. */
export interface FaultedCall {
  k: number;
  kind: 'drop' | 'cut';
  hit: boolean;
  /** The command whose reply was hit. */
  command: string | null;
  first: Answer;
  retries: Answer[];
  /** Problems found (empty = the call behaved). */
  problems: string[];
}

/**
 * Runs `op` with the k-th matching command's reply hit. A retryable 503 is retried (without
 * fault) up to 5 times; a retry may find the in-doubt first attempt applied (`appliedCodes`).
 * `verify` checks the resulting state and returns problems.
 */
export async function faultedCall(
  rig: LostReplyRig,
  o: {
    k: number;
    kind: 'drop' | 'cut';
    match: RegExp;
    op: () => Promise<Answer>;
    appliedCodes: string[];
    verify: () => Promise<string[]>;
  },
): Promise<FaultedCall> {
  const before = rig.proxy.stats.hitCommands.length;
  void rig.proxy.armReplyFault({ kind: o.kind, match: o.match, skip: o.k - 1 });
  const first = await o.op();
  rig.proxy.disarm();
  const hit = rig.proxy.stats.hitCommands.length > before;
  const problems: string[] = [];
  const retries: Answer[] = [];
  if (!acceptable(first))
    problems.push(`answered ${first.status} ${first.code}: ${JSON.stringify(first.body)}`);
  let last = first;
  while (last.status === 503 && acceptable(last) && retries.length < 5) {
    await sleep(200);
    last = await o.op();
    retries.push(last);
  }
  if (retries.length > 0) {
    const ok = (last.status >= 200 && last.status < 300) || o.appliedCodes.includes(last.code ?? '');
    if (!ok) problems.push(`retry answered ${last.status} ${last.code}: ${JSON.stringify(last.body)}`);
  }
  if (problems.length === 0) problems.push(...(await o.verify()));
  return {
    k: o.k,
    kind: o.kind,
    hit,
    command: hit ? rig.proxy.stats.hitCommands.at(-1)! : null,
    first,
    retries,
    problems,
  };
}

/** Runs `faultedCall` for k = 1 … until a call is not hit (at most `maxK`), for both kinds. */
export async function sweepK(
  rig: LostReplyRig,
  maxK: number,
  make: (k: number, kind: 'drop' | 'cut') => Promise<Parameters<typeof faultedCall>[1]>,
): Promise<FaultedCall[]> {
  const out: FaultedCall[] = [];
  for (const kind of ['drop', 'cut'] as const) {
    for (let k = 1; k <= maxK; k++) {
      const r = await faultedCall(rig, await make(k, kind));
      out.push(r);
      if (!r.hit) break;
    }
  }
  return out;
}

/** Problems unless every shard stream `prefix:0..n-1` exists with consumer group `group`. */
export async function shardGroupsProblems(
  direct: Redis,
  prefix: string,
  n: number,
  group: string,
): Promise<string[]> {
  const problems: string[] = [];
  for (let i = 0; i < n; i++) {
    try {
      const groups = (await direct.call('XINFO', 'GROUPS', `${prefix}:${i}`)) as unknown[][];
      const names = groups.map((g) => String(g[1]));
      if (!names.includes(group))
        problems.push(`${prefix}:${i} lacks consumer group ${group} (has ${names})`);
    } catch (err) {
      problems.push(`${prefix}:${i}: ${err instanceof Error ? err.message : err}`);
    }
  }
  return problems;
}

/** Problems unless the group route answers 200 with `shardCount`. */
export async function groupProblems(
  base: string,
  prefix: string,
  group: string,
  shardCount: number,
): Promise<string[]> {
  const g = await call(base, 'GET', `/streams/${prefix}/groups/${group}`);
  if (g.status !== 200) return [`GET group ${group} answered ${g.status} ${g.code}`];
  return g.body.shardCount === shardCount
    ? []
    : [`group ${group} has shardCount ${g.body.shardCount}, not ${shardCount}`];
}

/** One line per faulted call, for the report. */
export function summarise(name: string, calls: FaultedCall[]): string {
  return calls
    .map(
      (c) =>
        `${name} ${c.kind} k=${c.k} hit=${c.hit} first=${c.first.status}${c.first.code ? ` ${c.first.code}` : ''}` +
        (c.retries.length
          ? ` retries=${c.retries.map((r) => `${r.status}${r.code ? ` ${r.code}` : ''}`).join(',')}`
          : '') +
        (c.problems.length ? ` PROBLEMS: ${c.problems.join('; ')}` : ' ok') +
        (c.command ? ` [${c.command.slice(0, 90)}]` : ''),
    )
    .join('\n');
}
