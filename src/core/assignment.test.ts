import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeTargetAssignment, targetAssignment } from './assignment.js';

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

function loads(t: Record<string, number[]>): number[] {
  return Object.values(t).map((s) => s.length);
}

describe('assignment > sticky, fully balanced targets', () => {
  it.each<{
    name: string;
    members: string[];
    shards: number[];
    previous: Record<string, number[]>;
    expected: Record<string, number[]>;
  }>([
    { name: 'no live members → no targets', members: [], shards: range(4), previous: {}, expected: {} },
    {
      name: 'one member takes every shard',
      members: ['a'],
      shards: range(3),
      previous: {},
      expected: { a: [0, 1, 2] },
    },
    {
      name: 'fresh group: ascending shards go to the least loaded, ties → smallest id',
      members: ['b', 'a'],
      shards: range(5),
      previous: {},
      expected: { a: [0, 2, 4], b: [1, 3] },
    },
    {
      name: 'a joiner takes the highest shards of the overloaded member',
      members: ['a', 'b'],
      shards: range(4),
      previous: { a: [0, 1, 2, 3] },
      expected: { a: [0, 1], b: [2, 3] },
    },
    {
      name: 'the extra slot stays with the member keeping the most shards',
      members: ['a', 'b', 'c'],
      shards: range(4),
      previous: { a: [0], b: [1, 2, 3] },
      expected: { a: [0], b: [1, 2], c: [3] },
    },
    {
      name: 'equal keepers: the extra slot goes to the smallest id',
      members: ['a', 'b', 'c'],
      shards: range(4),
      previous: { a: [0, 1], b: [2, 3] },
      expected: { a: [0, 1], b: [2], c: [3] },
    },
    {
      name: "a departed member's shards go to the least loaded, ascending",
      members: ['a', 'c'],
      shards: range(6),
      previous: { a: [0, 1], b: [2, 3], c: [4, 5] },
      expected: { a: [0, 1, 2], c: [3, 4, 5] },
    },
    {
      name: 'shards outside the assignable set are dropped from previous targets',
      members: ['a', 'b'],
      shards: range(2),
      previous: { a: [0, 2, 3], b: [1, 4] },
      expected: { a: [0], b: [1] },
    },
    {
      name: 'members with no shards still get an (empty) target',
      members: ['a', 'b', 'c'],
      shards: range(1),
      previous: {},
      expected: { a: [0], b: [], c: [] },
    },
    {
      name: 'a shard claimed twice in a corrupt previous map stays with the smaller id',
      members: ['a', 'b'],
      shards: range(2),
      previous: { a: [1], b: [1] },
      expected: { a: [1], b: [0] },
    },
  ])('$name', ({ members, shards, previous, expected }) => {
    expect(computeTargetAssignment(members, shards, previous)).toEqual(expected);
  });

  it('balances 4 members joined A, B, C, D on 16 shards scaled to 8 as 2/2/2/2', () => {
    let t: Record<string, number[]> = {};
    const live: string[] = [];
    for (const m of ['A', 'B', 'C', 'D']) {
      live.push(m);
      t = computeTargetAssignment(live, range(16), t);
    }
    expect(t).toEqual({ A: [0, 1, 2, 3], B: [8, 9, 10, 11], C: [6, 7, 13, 14], D: [4, 5, 12, 15] });
    const scaled = computeTargetAssignment(live, range(8), t);
    expect(loads(scaled)).toEqual([2, 2, 2, 2]);
    // A, C and D keep what they can; B, whose shards all went away, takes the freed ones.
    expect(scaled).toEqual({ A: [0, 1], B: [2, 3], C: [6, 7], D: [4, 5] });
  });

  it('does not depend on the order of the member ids', () => {
    expect(computeTargetAssignment(['c', 'a', 'b'], range(7), {})).toEqual(
      computeTargetAssignment(['a', 'b', 'c'], range(7), {}),
    );
  });

  const arbCase = fc
    .record({
      members: fc.uniqueArray(fc.constantFrom('m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6'), { maxLength: 7 }),
      shardCount: fc.integer({ min: 0, max: 24 }),
      previous: fc.dictionary(
        fc.constantFrom('m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6', 'gone'),
        fc.uniqueArray(fc.integer({ min: 0, max: 30 }), { maxLength: 12 }),
      ),
    })
    .map((c) => ({ ...c, shards: range(c.shardCount) }));

  it('assigns every shard exactly once with loads differing by at most one (property)', () => {
    fc.assert(
      fc.property(arbCase, ({ members, shards, previous }) => {
        const t = computeTargetAssignment(members, shards, previous);
        if (members.length === 0) {
          expect(t).toEqual({});
          return;
        }
        expect(Object.keys(t).sort()).toEqual([...members].sort());
        expect(
          Object.values(t)
            .flat()
            .sort((a, b) => a - b),
        ).toEqual(shards);
        const l = loads(t);
        expect(Math.max(...l) - Math.min(...l)).toBeLessThanOrEqual(1);
      }),
    );
  });

  it('is sticky and stable (property): a fixed point, and nobody at or under the floor loses a shard', () => {
    fc.assert(
      fc.property(arbCase, ({ members, shards, previous }) => {
        const t = computeTargetAssignment(members, shards, previous);
        expect(computeTargetAssignment(members, shards, t)).toEqual(t);
        if (members.length === 0) return;
        const floor = Math.floor(shards.length / members.length);
        const claimed = new Set<number>();
        for (const m of [...members].sort()) {
          const kept = (previous[m] ?? []).filter((s) => s < shards.length && !claimed.has(s));
          for (const s of kept) claimed.add(s);
          if (new Set(kept).size <= floor) for (const s of kept) expect(t[m]).toContain(s);
        }
      }),
    );
  });

  /** `targetAssignment` with members due in the order `dueOrder` (first = soonest). */
  const byDue = (
    members: string[],
    shards: number[],
    previous: Record<string, number[]>,
    dueOrder: string[],
  ) =>
    Object.fromEntries(
      targetAssignment(
        members,
        shards,
        (id) => previous[id],
        (id) => dueOrder.indexOf(id),
      ),
    );

  it('a join takes its shard from the equal keeper due soonest (it gives it up first)', () => {
    const previous = { a: [0, 1], b: [2, 3], c: [4, 5] };
    // By id, c (the largest) would give up shard 5; b comes back first, so b gives up shard 3.
    expect(computeTargetAssignment(['a', 'b', 'c', 'd'], range(6), previous)).toEqual({
      a: [0, 1],
      b: [2, 3],
      c: [4],
      d: [5],
    });
    expect(byDue(['a', 'b', 'c', 'd'], range(6), previous, ['b', 'c', 'a', 'd'])).toEqual({
      a: [0, 1],
      b: [2],
      c: [4, 5],
      d: [3],
    });
  });

  it("a departed member's shard goes to the equal keeper due soonest (it receives it first)", () => {
    const previous = { a: [0], b: [1], c: [2], x: [3] };
    expect(computeTargetAssignment(['a', 'b', 'c'], range(4), previous)).toEqual({
      a: [0, 3],
      b: [1],
      c: [2],
    });
    expect(byDue(['a', 'b', 'c'], range(4), previous, ['c', 'a', 'b'])).toEqual({
      a: [0],
      b: [1],
      c: [2, 3],
    });
  });

  it('moves as few shards with a due order as without one, balanced and stable (property)', () => {
    fc.assert(
      fc.property(
        arbCase.chain((c) =>
          fc.shuffledSubarray(c.members, { minLength: c.members.length }).map((due) => ({ ...c, due })),
        ),
        ({ members, shards, previous, due }) => {
          const t = byDue(members, shards, previous, due);
          const plain = computeTargetAssignment(members, shards, previous);
          expect(
            Object.values(t)
              .flat()
              .sort((a, b) => a - b),
          ).toEqual(
            Object.values(plain)
              .flat()
              .sort((a, b) => a - b),
          );
          expect(loads(t).sort()).toEqual(loads(plain).sort());
          // Stickiness is the same: as many shards stay with the member that kept them (a shard
          // claimed twice in a corrupt previous map counts for the first claimant in id order).
          const keeper = new Map<number, string>();
          for (const m of [...members].sort())
            for (const s of previous[m] ?? []) if (!keeper.has(s)) keeper.set(s, m);
          const stayed = (x: Record<string, number[]>) =>
            members.reduce((n, m) => n + (x[m] ?? []).filter((s) => keeper.get(s) === m).length, 0);
          expect(stayed(t)).toBe(stayed(plain));
          expect(byDue(members, shards, t, due)).toEqual(t);
        },
      ),
    );
  });
});
