/**
 * Resharding under random churn, on the production path (`test/support/reshard-world.ts`):
 * honest clients of two groups that really read and acknowledge their shards, a producer with
 * stale routing, sweeps, scale and rollback requests, refused provisioning and time jumps. After
 * every step no entry is lost and no held shard is deleted; once the churn stops, the migration
 * finishes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ReshardAction, ReshardWorld } from '../support/reshard-world.js';

const CLIENTS = 4;
const client = fc.integer({ min: 0, max: CLIENTS - 1 });

const action: fc.Arbitrary<ReshardAction> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('start' as const),
      client,
      drainBeats: fc.constantFrom(0, 1, 3),
    }),
  },
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('beat' as const), client }) },
  { weight: 4, arbitrary: fc.constant({ kind: 'round' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('leave' as const), client }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('crash' as const), client }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.constantFrom(1000, 3000, 16_000) }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'sweep' as const }) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('produce' as const),
      partition: fc.integer({ min: 0, max: 1000 }),
      count: fc.integer({ min: 1, max: 5 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'refresh' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('scale' as const), target: fc.integer({ min: 0, max: 7 }) }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'rollback' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'failProvisioning' as const }) },
);

/**
 * Up to 60 actions, lengths spread over the whole range: short sequences seldom leave entries
 * pending under a crashed holder or let a write race a retirement.
 */
const sequences = fc.array(action, { maxLength: 60, size: 'max' });

/** A stream of 4 shards with groups g1 and g2, two clients each, after `actions`. */
async function churned(actions: ReshardAction[]): Promise<ReshardWorld> {
  const w = await ReshardWorld.open(['g1', 'g2'], CLIENTS / 2, 4);
  for (const a of actions) await w.apply(a);
  // Settle: producers stop, provisioning works again.
  w.failProvisioning = 0;
  await w.refreshRouting();
  return w;
}

/** What the runs of one property exercised, summed. */
type Tally = ReshardWorld['stats'];

function newTally(): Tally {
  return { produced: 0, deleted: 0, takenOver: 0, refusedRetirements: 0 };
}

function tally(into: Tally, w: ReshardWorld): void {
  for (const k of Object.keys(into) as Array<keyof Tally>) into[k] += w.stats[k];
}

/** The runs deleted shard keys, took over entries left pending and met late writes: the checks were not vacuous. */
function expectExercised(t: Tally): void {
  expect(t.produced).toBeGreaterThan(0);
  expect(t.deleted).toBeGreaterThan(0);
  expect(t.takenOver).toBeGreaterThan(0);
  expect(t.refusedRetirements).toBeGreaterThan(0);
}

describe('resharding > property: evidence never lies and migrations finish', () => {
  it('never deletes a shard with unread or pending entries, and finishes with honest members', async () => {
    const seen = newTally();
    await fc.assert(
      fc.asyncProperty(sequences, async (actions) => {
        const w = await churned(actions);
        try {
          // Every client runs honestly.
          for (let i = 0; i < CLIENTS; i++) await w.start(i, 0);
          for (let r = 0; r < 80 && !w.finished(); r++) await w.apply({ kind: 'round' });
          expect(w.finished()).toBe(true);
        } finally {
          tally(seen, w);
          await w.close();
        }
      }),
      { numRuns: 300 },
    );
    expectExercised(seen);
  }, 300_000);

  it('finishes on evidence alone once every member has expired and a plain reader drains', async () => {
    const seen = newTally();
    await fc.assert(
      fc.asyncProperty(sequences, async (actions) => {
        const w = await churned(actions);
        try {
          for (let i = 0; i < CLIENTS; i++) w.crash(i);
          w.advance(w.config.memberLeaseTtlMs + 1);
          for (let r = 0; r < 40 && !w.finished(); r++) {
            for (const g of w.groupNames) await w.plainReader(g);
            await w.apply({ kind: 'round' });
          }
          expect(w.finished()).toBe(true);
        } finally {
          tally(seen, w);
          await w.close();
        }
      }),
      { numRuns: 300 },
    );
    expectExercised(seen);
  }, 300_000);
});
