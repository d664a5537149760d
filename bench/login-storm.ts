/**
 * Heartbeat latency while wrong Basic passwords for a PBKDF2-hashed user pour in:
 * the real Node server on a private redis-server, heartbeats with a bearer token, quiet and
 * then under 16 concurrent attackers. Prints one table; the quiet run is the baseline.
 */
import { createLogger } from '../node/logger.js';
import { startServer } from '../node/server.js';
import { parseConfig } from '../src/config.js';
import { pbkdf2Sha256 } from '../src/http/auth/password.js';
import { heartbeatBody } from '../test/support/stack.js';

const ITERATIONS = 210_000;
const ATTACKERS = 16;
const BEATS = 200;

const pct = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

/** Median and p90 heartbeat latency (ms) of `BEATS` sequential heartbeats, and the storm's statuses. */
async function run(
  redisUrl: string,
  storm: boolean,
): Promise<{ p50: number; p90: number; statuses: Map<number, number> }> {
  const salt = new Uint8Array(16).fill(9);
  const hash = await pbkdf2Sha256('slow-right', salt, ITERATIONS, 32);
  const config = parseConfig({
    PORT: '0',
    REDIS_URL: redisUrl,
    COORDINATOR_KEY_PREFIX: `storm-${Date.now()}`,
    COORDINATOR_ADMIN_PASSWORD: 'admin-password',
    COORDINATOR_TOKEN_SECRET: 'bench-token-secret-0123456789',
    COORDINATOR_USERS: `slow:pbkdf2-sha256$${ITERATIONS}$${b64(salt)}$${b64(hash)}:READ,member:member-pw:MEMBER`,
  });
  const server = await startServer({
    config,
    log: createLogger({ level: 'error', write: () => {} }),
  });
  const api = `${server.url}/coord/v1`;
  try {
    await fetch(`${api}/streams/orders`, {
      method: 'POST',
      headers: { authorization: basic('admin', 'admin-password'), 'content-type': 'application/json' },
      body: JSON.stringify({ requestedBy: 'bench', initialShardCount: 4 }),
    });
    const login = await fetch(`${api}/auth/login`, {
      method: 'POST',
      headers: { authorization: basic('member', 'member-pw') },
    });
    const token = ((await login.json()) as { accessToken: string }).accessToken;
    let stop = false;
    const statuses = new Map<number, number>();
    const attacker = async (i: number) => {
      for (let n = 0; !stop; n++) {
        const r = await fetch(`${api}/monitoring/groups`, {
          headers: { authorization: basic('slow', `guess-${i}-${n}`) },
        });
        await r.arrayBuffer();
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      }
    };
    const attackers = storm ? Array.from({ length: ATTACKERS }, (_, i) => attacker(i)) : [];
    const times: number[] = [];
    for (let i = 0; i < BEATS; i++) {
      const m = `m-${i % 20}`;
      const t0 = performance.now();
      const r = await fetch(`${api}/streams/orders/groups/orders/members/${m}/heartbeat`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(heartbeatBody(m, 'orders', { epoch: 0, mv: 0 })),
      });
      await r.arrayBuffer();
      times.push(performance.now() - t0);
    }
    stop = true;
    await Promise.all(attackers);
    return { p50: pct(times, 0.5), p90: pct(times, 0.9), statuses };
  } finally {
    await server.close();
  }
}

/** The table of `npm run bench` (BENCH_ONLY=login). */
export async function benchLoginStorm(redisUrl: string): Promise<string> {
  const quiet = await run(redisUrl, false);
  const storm = await run(redisUrl, true);
  const answers = [...storm.statuses.entries()]
    .sort(([a], [b]) => a - b)
    .map(([s, n]) => `${s}×${n}`)
    .join(' ');
  return [
    `### Heartbeat latency under a wrong-password storm (${ATTACKERS} attackers, PBKDF2 ${ITERATIONS} iterations, ${BEATS} heartbeats)`,
    '| run | heartbeat p50 ms | p90 ms | p50 vs quiet | attacker answers |',
    '| --- | --- | --- | --- | --- |',
    `| quiet | ${quiet.p50.toFixed(1)} | ${quiet.p90.toFixed(1)} | 1.00× | – |`,
    `| storm | ${storm.p50.toFixed(1)} | ${storm.p90.toFixed(1)} | ${(storm.p50 / quiet.p50).toFixed(2)}× | ${answers} |`,
  ].join('\n');
}
