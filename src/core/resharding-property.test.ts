import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReshardWorld } from './testing/reshard-world.js';

const CLIENTS = 4;
const client = fc.integer({ min: 0, max: CLIENTS - 1 });

type Action =
  | { kind: 'start'; client: number; drainBeats: number }
  | { kind: 'beat'; client: number }
  | { kind: 'round' }
  | { kind: 'leave'; client: number }
  | { kind: 'crash'; client: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'sweep' }
  | { kind: 'produce'; partition: number; count: number }
  | { kind: 'refresh' }
  | { kind: 'scale'; target: number }
  | { kind: 'rollback' }
  | { kind: 'failProvisioning' };

const action: fc.Arbitrary<Action> = fc.oneof(
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

function run(w: ReshardWorld, actions: Action[]): void {
  for (const a of actions) {
    switch (a.kind) {
      case 'start':
        w.start(a.client, a.drainBeats);
        break;
      case 'beat':
        w.beat(a.client);
        break;
      case 'round':
        w.round();
        break;
      case 'leave':
        w.leave(a.client);
        break;
      case 'crash':
        w.crash(a.client);
        break;
      case 'advance':
        w.now += a.ms;
        break;
      case 'sweep':
        w.sweep();
        break;
      case 'produce':
        for (let i = 0; i < a.count; i++) w.produce(a.partition + i);
        break;
      case 'refresh':
        w.refreshRouting();
        break;
      case 'scale':
        w.scale(a.target);
        break;
      case 'rollback':
        w.rollback();
        break;
      case 'failProvisioning':
        w.failProvisioning += 1;
        break;
    }
  }
}

describe('resharding > property: evidence never lies and migrations finish', () => {
  it('never deletes a shard with unread or pending entries, and finishes with honest members', () => {
    fc.assert(
      fc.property(fc.array(action, { maxLength: 60 }), (actions) => {
        const w = new ReshardWorld(['g1', 'g2'], CLIENTS / 2, 4);
        run(w, actions);
        // Settle: producers stop, provisioning works again, every member runs honestly.
        w.failProvisioning = 0;
        w.refreshRouting();
        w.clients.forEach((_, i) => {
          w.start(i, 0);
        });
        for (let r = 0; r < 80 && !w.finished(); r++) w.round();
        expect(w.finished()).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('finishes on evidence alone once every member has expired and a plain reader drains', () => {
    fc.assert(
      fc.property(fc.array(action, { maxLength: 60 }), (actions) => {
        const w = new ReshardWorld(['g1', 'g2'], CLIENTS / 2, 4);
        run(w, actions);
        w.failProvisioning = 0;
        w.refreshRouting();
        w.clients.forEach((_, i) => {
          w.crash(i);
        });
        w.now += w.config.memberLeaseTtlMs + 1;
        for (let r = 0; r < 40 && !w.finished(); r++) {
          for (const g of w.groupNames) w.plainReader(g);
          w.round();
        }
        expect(w.finished()).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
