import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONFIG } from '../support/protocol-driver.js';
import { type SimAction, World } from '../support/protocol-world.js';

const CLIENTS = 5;
const client = fc.integer({ min: 0, max: CLIENTS - 1 });

const action: fc.Arbitrary<SimAction> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('start' as const),
      client,
      drainBeats: fc.constantFrom(0, 1, 3, 30),
    }),
  },
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant('beat' as const),
      client,
      lose: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
    }),
  },
  { weight: 3, arbitrary: fc.constant({ kind: 'round' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('stale' as const),
      client,
      back: fc.integer({ min: 0, max: 4 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('leave' as const), client }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('crash' as const), client }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.constantFrom(500, 1000, 3000, 3000, 16_000, 61_000, 601_000),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'sweep' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('reshard' as const),
      shardCount: fc.integer({ min: 1, max: 8 }),
    }),
  },
);

/** Default timings, and short ones so rebalance timeouts and pruning happen within a sequence. */
const configs = fc.constantFrom(CONFIG, {
  heartbeatIntervalMs: 3000,
  memberLeaseTtlMs: 15_000,
  rebalanceTimeoutMs: 7000,
  staleMemberRetentionMs: 40_000,
});

/** Honest rounds with no churn; long enough for silent members to expire and revokes to finish. */
const SETTLE_ROUNDS = 14;

describe('protocol > simulated groups (property)', () => {
  it('keeps single ownership and revoke-before-assign at every step, and converges to a balanced, stable group', async () => {
    let fastPathHits = 0;
    await fc.assert(
      fc.asyncProperty(
        configs,
        fc.integer({ min: 1, max: 8 }),
        fc.array(action, { minLength: 1, maxLength: 40, size: 'max' }),
        async (config, shardCount, actions) => {
          const w = await World.open(shardCount, CLIENTS, config);
          for (const a of actions) await w.apply(a);
          await w.settle(SETTLE_ROUNDS);
          w.checkStable();
          await w.checkSteadyFastPath();
          fastPathHits += w.fastPathHits;
        },
      ),
      { numRuns: 250 },
    );
    // The fast path was exercised, not vacuously skipped.
    expect(fastPathHits).toBeGreaterThan(0);
  }, 180_000);

  it('lets every member join a fresh group and settle within a few rounds', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: CLIENTS }),
        async (shardCount, members) => {
          const w = await World.open(shardCount, CLIENTS);
          for (let i = 0; i < members; i++) await w.apply({ kind: 'start', client: i, drainBeats: i % 2 });
          for (let r = 0; r < 4; r++) await w.apply({ kind: 'round' });
          w.checkStable();
        },
      ),
      { numRuns: 50 },
    );
  }, 60_000);
});
