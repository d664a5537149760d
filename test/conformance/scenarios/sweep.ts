/**
 * The runtime's scheduled housekeeping (Node interval sweep / Worker cron): every stream of the
 * namespace is visited, due expiries are written, and nothing is written when nothing is due.
 */
import { expect } from 'vitest';
import { streamKeys } from '../../../src/store/keys.js';
import { uniquePrefix } from '../../support/redis.js';
import { createStream, heartbeat, members, type Scenario, sleep } from '../scenario.js';
import { LEASE_MS } from '../target.js';

/** Scenarios about the scheduled sweep. */
export const sweepScenarios: Scenario[] = [
  {
    name: 'sweeps every stream on schedule and expires the silent members of each',
    async run(t) {
      const prefixes = [uniquePrefix('sw-a'), uniquePrefix('sw-b'), uniquePrefix('sw-c')];
      for (const p of prefixes) {
        await createStream(t, p, 1);
        expect((await heartbeat(t, p, 'm', { epoch: 0, mv: 0 })).body.status).toBe('OK');
      }
      await sleep(LEASE_MS + 300);
      await t.triggerSweep(Date.now());
      for (const p of prefixes) expect((await members(t, p)).m.state).toBe('EXPIRED');
    },
  },
  {
    name: 'writes nothing when no lease has lapsed',
    async run(t) {
      const p = uniquePrefix('idle');
      await createStream(t, p, 2);
      const j = await heartbeat(t, p, 'm', { epoch: 0, mv: 0 });
      await heartbeat(t, p, 'm', { epoch: j.body.memberEpoch, mv: j.body.metadataVersion, owned: [0, 1] });
      const key = streamKeys(t.namespace, p).stream;
      const before = await t.redis.hgetall(key);
      await t.triggerSweep(Date.now());
      expect(await t.redis.hgetall(key)).toEqual(before);
      expect((await members(t, p)).m.state).toBe('ACTIVE');
    },
  },
];
