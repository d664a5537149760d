/**
 * Heartbeat benchmark (docs/performance.md#targets): Redis cost of a steady heartbeat and HTTP throughput against a
 * bare Hono + one EVALSHA baseline measured in the same run (both on the Redis client settings
 * `npm start` uses), at 100 and 1,000 members × 1,024 shards. Prints tables; asserts nothing.
 * Convergence is measured by the real-time scale benchmark (`scale/`), with real timers and
 * concurrent members: a sequential simulated clock hides contention.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { Redis } from 'ioredis';
import { parseConfig } from '../src/config.js';
import { MAX_DUE } from '../src/coordinator/group-steps.js';
import { Coordinator } from '../src/coordinator.js';
import { heartbeatKey, progressOf } from '../src/core/fast-path.js';
import type { GroupDoc } from '../src/core/model.js';
import { isLive } from '../src/core/model.js';
import { createApp } from '../src/http/app.js';
import { toHeartbeatInput } from '../src/http/routes/members.js';
import type { HeartbeatRequestBody } from '../src/http/schemas.js';
import { createIoredisClient, IoredisStore } from '../src/store/ioredis-store.js';
import type { ScriptCall } from '../src/store/scripts/commit-args.js';
import { MEMBER_READ } from '../src/store/scripts/member-read.js';
import { encodeMemberRead } from '../src/store/scripts/read-replies.js';
import { SimMember } from '../test/support/members.js';
import { heartbeatBody, manualClock, type TestResponse } from '../test/support/stack.js';

const SHARDS = 1024;
const INTERVAL = 3000;

/** One row of results for a group size. */
export interface HeartbeatBenchRow {
  members: number;
  roundTripsPerBeat: number;
  commandsPerBeat: number;
  bytesPerBeat: number;
  fastPathShare: number;
  rps: number[];
  baselineRps: number[];
  /** The bare server running this bench's steady-heartbeat script instead of a one-command one. */
  scriptBaselineRps: number[];
  p99Ms: number;
}

/** Runs the heartbeat benchmark against the Redis at `redisUrl`. */
export async function benchHeartbeats(
  redisUrl: string,
  sizes: number[],
  trials: number,
): Promise<HeartbeatBenchRow[]> {
  const rows: HeartbeatBenchRow[] = [];
  for (const n of sizes) rows.push(await benchSize(redisUrl, n, trials));
  return rows;
}

async function benchSize(redisUrl: string, n: number, trials: number): Promise<HeartbeatBenchRow> {
  const config = parseConfig({
    COORDINATOR_KEY_PREFIX: `bench-${n}-${Date.now()}`,
    COORDINATOR_MAX_SHARD_COUNT: String(SHARDS),
    PORT: '0',
  });
  const clock = manualClock();
  const client = createIoredisClient({ url: redisUrl }) as Redis;
  let sent = 0;
  const originalSend = client.sendCommand.bind(client);
  client.sendCommand = ((...args: Parameters<typeof client.sendCommand>) => {
    sent++;
    return originalSend(...args);
  }) as typeof client.sendCommand;
  const store = new IoredisStore(client, { namespace: config.keyPrefix, ownsClient: true });
  const coordinator = new Coordinator({ store, config, now: clock.now });
  const app = createApp({ coordinator, config, now: clock.now });
  const call = async (method: string, path: string, body?: unknown): Promise<TestResponse> => {
    const res = await app.request(path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  const stack = { call };
  const prefix = `orders-${n}`;
  const created = await call('POST', `/coord/v1/streams/${prefix}`, {
    initialShardCount: SHARDS,
    requestedBy: 'bench',
  });
  if (created.status !== 201) throw new Error(`create failed: ${JSON.stringify(created.body)}`);

  const members = Array.from(
    { length: n },
    (_, i) => new SimMember(`m${String(i).padStart(4, '0')}`, prefix, prefix),
  );
  const loadGroup = async (): Promise<GroupDoc> => (await store.load(prefix, [prefix]))!.groups[prefix]!;
  /** One heartbeat of each member in turn, spread over an interval of the simulated clock. */
  const round = async (list: SimMember[]): Promise<void> => {
    const step = Math.floor(INTERVAL / list.length);
    for (const m of list) {
      await m.beat(stack);
      clock.advance(step);
    }
  };

  // Join everyone and run rounds until the group is stable (setup only: not a convergence figure).
  for (let r = 0; r < 20 && !converged(await loadGroup()); r++) await round(members);

  // Steady state: rounds until one writes no document (revision unchanged), one more so every
  // member's fingerprint carries the final revision, then count one round.
  for (let r = 0; r < 10; r++) {
    const before = (await store.load(prefix, []))!.revision;
    await round(members);
    if ((await store.load(prefix, []))!.revision === before) break;
  }
  await round(members);
  const info = new Redis(redisUrl, { protocol: 2 });
  await info.config('RESETSTAT');
  const netBefore = await netBytes(info);
  sent = 0;
  let fast = 0;
  for (const m of members) {
    const before = sent;
    await m.beat(stack);
    if (sent - before === 1) fast++;
  }
  const netAfter = await netBytes(info);
  const stats = await commandStats(info);
  const roundTripsPerBeat = sent / n;
  // Subtract the INFO/CONFIG calls of this measurement itself.
  const commands = Object.entries(stats)
    .filter(([cmd]) => !['info', 'config'].includes(cmd))
    .reduce((a, [, v]) => a + v, 0);
  const infoBytesOverhead = netAfter.overhead;
  const bytesPerBeat = (netAfter.total - netBefore.total - infoBytesOverhead) / n;

  // Throughput through real HTTP, alternating with the baseline.
  const dir = await mkdtemp(join(tmpdir(), 'rsc-bench-'));
  const reqFile = join(dir, 'requests.json');
  await writeFile(
    reqFile,
    JSON.stringify(
      members.map((m) => ({
        path: `/coord/v1/streams/${prefix}/groups/${prefix}/members/${m.id}/heartbeat`,
        body: JSON.stringify(heartbeatBody(m.id, prefix, { epoch: m.epoch, mv: m.mv, owned: m.owned })),
      })),
    ),
  );
  const ours = await serve(app.fetch);
  const baseline = await baselineServer(redisUrl);
  // What the Redis side alone allows: the bare server running the script a steady heartbeat of
  // members[0] runs, with the arguments the coordinator sends for it (the clock stands still).
  const steady = toHeartbeatInput(
    heartbeatBody(members[0]!.id, prefix, {
      epoch: members[0]!.epoch,
      mv: members[0]!.mv,
      owned: members[0]!.owned,
    }) as HeartbeatRequestBody,
    members[0]!.id,
  );
  const steadyCall = encodeMemberRead(config.keyPrefix, {
    prefix,
    group: prefix,
    memberId: steady.memberId,
    now: clock.now(),
    fastKey: heartbeatKey(steady),
    leaseExpiresAt: clock.now() + config.memberLeaseTtlMs,
    progressJson: progressOf(steady),
    shards: steady.ownedShards,
    maxDue: MAX_DUE,
    recoveryHoldMs: config.memberLeaseTtlMs,
  });
  const scriptBaseline = await baselineServer(redisUrl, MEMBER_READ.lua, steadyCall);
  const rps: number[] = [];
  const baselineRps: number[] = [];
  const scriptBaselineRps: number[] = [];
  let p99Ms = 0;
  for (let t = 0; t < trials; t++) {
    const a = await runLoad(ours.url, reqFile);
    if (a.non2xx > 0 || a.errors > 0) throw new Error(`heartbeat load had failures: ${JSON.stringify(a)}`);
    rps.push(a.rps);
    p99Ms = Math.max(p99Ms, a.p99Ms);
    baselineRps.push((await runLoad(baseline.url, reqFile)).rps);
    scriptBaselineRps.push((await runLoad(scriptBaseline.url, reqFile)).rps);
  }
  await ours.close();
  await baseline.close();
  await scriptBaseline.close();
  await rm(dir, { recursive: true, force: true });
  info.disconnect();
  await coordinator.close();
  await store.close();
  return {
    members: n,
    roundTripsPerBeat,
    commandsPerBeat: commands / n,
    bytesPerBeat,
    fastPathShare: fast / n,
    rps,
    baselineRps,
    scriptBaselineRps,
    p99Ms,
  };
}

/** Every assignable shard has exactly one holder: its target owner (granted or current). */
function converged(g: GroupDoc): boolean {
  const holders = new Map<number, string[]>();
  for (const m of Object.values(g.members)) {
    if (!isLive(m.state) && m.fence !== 'BLOCKING') continue;
    for (const s of new Set([...m.currentAssignment, ...m.grantedAssignment, ...m.revoking])) {
      holders.set(s, [...(holders.get(s) ?? []), m.memberId]);
    }
  }
  let targeted = 0;
  for (const [member, shards] of Object.entries(g.targetAssignments)) {
    for (const s of shards) {
      targeted++;
      const h = holders.get(s);
      if (h?.length !== 1 || h[0] !== member) return false;
    }
  }
  return targeted === SHARDS;
}

async function netBytes(info: Redis): Promise<{ total: number; overhead: number }> {
  const text = await info.info('stats');
  const get = (k: string) => Number(new RegExp(`${k}:(\\d+)`).exec(text)?.[1] ?? 0);
  // The INFO reply itself is counted in output bytes; approximate it by its own length.
  return { total: get('total_net_input_bytes') + get('total_net_output_bytes'), overhead: text.length + 64 };
}

async function commandStats(info: Redis): Promise<Record<string, number>> {
  const text = await info.info('commandstats');
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/cmdstat_([^:]+):calls=(\d+)/g)) out[m[1]!] = Number(m[2]);
  return out;
}

async function serve(
  fetch: (req: Request) => Response | Promise<Response>,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createAdaptorServer({ fetch, hostname: '127.0.0.1' }) as Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A bare Hono endpoint doing one EVALSHA per request: of a one-command script, or of `lua` with
 * the fixed keys and arguments of `call` (it checks the script answers the fast path once).
 */
async function baselineServer(
  redisUrl: string,
  lua = "return redis.call('HGET', KEYS[1], ARGV[1])",
  call: ScriptCall = { keys: ['{bench}:baseline'], args: ['field'] },
): Promise<{ url: string; close: () => Promise<void> }> {
  const client = createIoredisClient({ url: redisUrl }) as Redis;
  const sha = (await client.script('LOAD', lua)) as string;
  const run = () => client.evalsha(sha, call.keys.length, ...call.keys, ...call.args);
  if (lua === MEMBER_READ.lua && ((await run()) as unknown[])[0] !== 3) {
    throw new Error('the steady script did not answer from the fast path');
  }
  const app = new Hono();
  app.post('*', async (c) => {
    const v = await run();
    return c.json({ ok: true, v });
  });
  const s = await serve(app.fetch);
  return {
    url: s.url,
    close: async () => {
      await s.close();
      client.disconnect();
    },
  };
}

function runLoad(
  url: string,
  reqFile: string,
): Promise<{ rps: number; p99Ms: number; non2xx: number; errors: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [new URL('./load.mjs', import.meta.url).pathname, url, reqFile, '16', '3000'],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`load generator exited ${code}`)),
    );
  });
}
