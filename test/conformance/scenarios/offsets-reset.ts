/**
 * The offsets reset (docs/operating.md#replaying-or-skipping-records) through the runtime's own
 * store: a dry run changes nothing, a reset moves the group exactly where asked with Redis's lag
 * kept, and a live member refuses it.
 */
import { expect } from 'vitest';
import { uniquePrefix } from '../../support/redis.js';
import { createStream, heartbeat, type Scenario } from '../scenario.js';
import type { ConformanceTarget } from '../target.js';

/** Record k (1-based) of each shard. */
const rec = (k: number) => `${1_700_000_000_000 + k * 1000}-0`;

function reset(t: ConformanceTarget, p: string, body: object) {
  return t.call(
    'POST',
    `/coord/v1/admin/streams/${encodeURIComponent(p)}/groups/${encodeURIComponent(p)}/offsets/reset`,
    {
      requestedBy: 'conformance',
      ...body,
    },
  );
}

/** `[last-delivered-id, entries-read, lag]` of group `p` on shard `i`. */
async function position(t: ConformanceTarget, p: string, i: number): Promise<unknown[]> {
  const [info] = (await t.redis.xinfo('GROUPS', `${p}:${i}`)) as unknown[][];
  return ['last-delivered-id', 'entries-read', 'lag'].map((f) => info![info!.indexOf(f) + 1]);
}

/** Scenarios about resetting a group's offsets. */
export const offsetsResetScenarios: Scenario[] = [
  {
    name: 'a dry run changes nothing; a reset moves the group where asked, keeping its lag; a live member refuses it',
    async run(t) {
      const p = uniquePrefix('reset');
      await createStream(t, p, 2);
      for (const i of [0, 1])
        for (let k = 1; k <= 4; k++) await t.redis.xadd(`${p}:${i}`, rec(k), 'k', String(k));

      const dry = await reset(t, p, { to: 'latest' });
      expect(dry.status, JSON.stringify(dry.body)).toBe(200);
      expect(dry.body).toMatchObject({ dryRun: true, totalSkippedRecords: 8, countsExact: true });
      expect(await position(t, p, 0)).toEqual(['0-0', 0, 4]);

      const moved = await reset(t, p, {
        to: 'timestamp',
        timestamp: 1_700_000_003_000,
        shards: [1],
        dryRun: false,
      });
      expect(moved.status, JSON.stringify(moved.body)).toBe(200);
      expect(moved.body.shards).toEqual([
        expect.objectContaining({
          lastDeliveredIdBefore: '0-0',
          lastDeliveredIdAfter: rec(2),
          skippedRecords: 2,
        }),
      ]);
      expect(await position(t, p, 0)).toEqual(['0-0', 0, 4]);
      expect(await position(t, p, 1)).toEqual([rec(2), 2, 2]);

      expect((await heartbeat(t, p, 'm1', { epoch: 0, mv: 0 })).body.status).toBe('OK');
      const refused = await reset(t, p, { to: 'earliest', dryRun: false });
      expect([refused.status, refused.body.errorCode]).toEqual([409, 'GROUP_HAS_ACTIVE_MEMBERS']);
      expect(await position(t, p, 1)).toEqual([rec(2), 2, 2]);
    },
  },
];
