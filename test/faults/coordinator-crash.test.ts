/**
 * A coordinator SIGKILLed while it holds a stream's mutex: another
 * instance serves stream-wide changes again once the dead holder's lock lease runs out.
 */
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { streamKeys } from '../../src/store/keys.js';
import { uniquePrefix } from '../support/redis.js';
import { startFaultProxy } from './support/fault-proxy.js';
import { type Answer, call, migrationState, must, scale, waitUntil } from './support/http.js';
import { printTable } from './support/invariants.js';
import { startKillableRedis } from './support/killable-redis.js';
import { type Coordinator, startFaultCoordinator } from './support/processes.js';

/** The lock lease under test: the configurable one when the service has it, else the fixed 10 s. */
const CONFIGURABLE = readFileSync(new URL('../../src/config.ts', import.meta.url), 'utf8').includes(
  'COORDINATOR_LOCK_TTL_MS',
);
const LOCK_TTL_MS = CONFIGURABLE ? 2000 : 10_000;
const MARGIN_MS = 1500;

describe('faults > coordinator SIGKILL while holding the stream mutex', () => {
  it(`lets another instance scale the stream within the lock lease (${LOCK_TTL_MS} ms) + ${MARGIN_MS} ms`, async () => {
    const redis = await startKillableRedis();
    const proxy = await startFaultProxy({ host: '127.0.0.1', port: redis.port });
    const direct = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    const ns = uniquePrefix('ns');
    const p = uniquePrefix('ck');
    const lockKey = streamKeys(ns, p).lock;
    const env = { COORDINATOR_LOCK_TTL_MS: String(LOCK_TTL_MS) };
    const coords: Coordinator[] = [];
    try {
      const [a, b] = await Promise.all([
        startFaultCoordinator(proxy.url, ns, env),
        startFaultCoordinator(redis.url, ns, env),
      ]);
      coords.push(a, b);
      await must(b.url, 'POST', `/streams/${p}`, { initialShardCount: 4, requestedBy: 'faults' }, 201);

      // Slow A's Redis path so its scale sits inside the critical section, then kill it there.
      proxy.setMode({ kind: 'delay', ms: 1500 });
      const doomed = scale(a.url, p, 6);
      // Every Redis round trip of A now costs 3 s (1.5 s each way), so its lock lands after 2-3 of
      // them: 7.5 s when the scripts it runs first are already loaded, 10.5 s when one falls back
      // from NOSCRIPT to EVAL (whether B loaded it first depends on B's sweep). 10 s was too tight.
      const lockSeenAt = await waitUntil(
        'A to hold the stream mutex',
        async () => (await direct.pttl(lockKey)) > 0,
        20_000,
        5,
      );
      await a.kill();
      const killedAt = Date.now();
      const doomedAnswer = await doomed;
      proxy.setMode({ kind: 'pass' });

      // B: reads never wait for the mutex; stream-wide changes answer a retryable 503 until it lapses.
      const readWhileHeld = await must(b.url, 'GET', `/streams/${p}/groups/${p}`);
      const answers: Answer[] = [];
      let done: (Answer & { id?: string }) | null = null;
      while (!done && Date.now() - killedAt < LOCK_TTL_MS + 15_000) {
        const r = await scale(b.url, p, 6);
        answers.push(r);
        if (r.status === 202) done = r;
      }
      const recoveredAt = done?.at ?? Date.now();
      const migrationDoneAt = done?.id
        ? await waitUntil(
            'migration DEPRECATED',
            async () => (await migrationState(b.url, p, done!.id!)) === 'DEPRECATED',
            15_000,
            100,
          ).catch(() => null)
        : null;

      printTable('coordinator kill with mutex', {
        'lock ttl ms': `${LOCK_TTL_MS}${CONFIGURABLE ? ' (COORDINATOR_LOCK_TTL_MS)' : ' (fixed)'}`,
        'lock seen → kill ms': killedAt - lockSeenAt,
        'kill → scale served ms': recoveredAt - killedAt,
        'lock seen → scale served ms': recoveredAt - lockSeenAt,
        'answers before':
          [...new Set(answers.slice(0, -1).map((x) => `${x.status} ${x.code}`))].join(',') || '-',
        'migration done ms': migrationDoneAt === null ? '-' : migrationDoneAt - recoveredAt,
      });

      expect(doomedAnswer.status, 'the killed instance never answers').toBe(0);
      expect(readWhileHeld.shardCount).toBe(4);
      expect(done, JSON.stringify(answers.map((x) => [x.status, x.code]))).not.toBeNull();
      for (const x of answers.slice(0, -1)) {
        expect({ status: x.status, code: x.code }).toEqual({
          status: 503,
          code: 'COORDINATOR_STATE_MUTEX_UNAVAILABLE',
        });
      }
      expect(recoveredAt - lockSeenAt).toBeLessThanOrEqual(LOCK_TTL_MS + MARGIN_MS);
      const g = await call(b.url, 'GET', `/streams/${p}/groups/${p}`);
      expect(migrationDoneAt, `migration not DEPRECATED in 15 s: ${JSON.stringify(g.body)}`).not.toBeNull();
    } finally {
      direct.disconnect();
      await Promise.all(coords.map((c) => c.kill()));
      await proxy.close();
      await redis.close();
    }
  }, 60_000);
});
