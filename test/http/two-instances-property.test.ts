/**
 * Property: many members with random joins, leaves, crashes, lost answers, stale
 * replays, lease expiries, sweeps and reshards, driven through two coordinator instances on one
 * Redis with concurrent requests. After every step, read from Redis: no shard held by two members
 * whose holdings block (live, leaving, blocking fence), no answer granted a shard another member
 * held, epochs and versions never went backwards; after honest rounds, balanced to ±1 with every
 * running member reading exactly its target.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blocksOthers, holdings } from '../../src/core/group.js';
import { assignableShards, type GroupDoc, isLive, type StreamDoc } from '../../src/core/model.js';
import { SimMember } from '../support/members.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { makeStack, manualClock, type Stack, type TestResponse } from '../support/stack.js';

const MEMBERS = 6;
const RUNS = Number(process.env.RSC_PROPERTY_RUNS ?? 12);

type Action =
  | { kind: 'beats'; who: boolean[]; lose: boolean[]; via: number }
  | { kind: 'start'; member: number }
  | { kind: 'leave'; member: number }
  | { kind: 'crash'; member: number }
  | { kind: 'stale'; member: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'sweep'; via: number }
  | { kind: 'reshard'; shards: number; via: number };

const member = fc.integer({ min: 0, max: MEMBERS - 1 });
const mask = fc.array(fc.boolean(), { minLength: MEMBERS, maxLength: MEMBERS });
const via = fc.integer({ min: 0, max: 1 });
const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('beats' as const), who: mask, lose: mask, via }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('start' as const), member }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('leave' as const), member }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('crash' as const), member }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('stale' as const), member }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.constantFrom(200, 1000, 3500) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('sweep' as const), via }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('reshard' as const),
      shards: fc.integer({ min: 1, max: 6 }),
      via,
    }),
  },
);

/** A simulated member that a step can start, stop or crash. */
class LossyMember extends SimMember {
  running = false;
}

describe('two instances > random concurrent churn (property)', () => {
  const clock = manualClock();
  let a: Stack;
  let b: Stack;
  beforeAll(() => {
    a = makeStack(backends[0]!, { clock });
    b = makeStack(backends[0]!, { clock, namespace: a.config.keyPrefix });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  async function group(p: string): Promise<{ stream: StreamDoc; g: GroupDoc }> {
    const snap = await a.store.load(p, [p]);
    return { stream: snap!.stream, g: snap!.groups[p]! };
  }

  /** Shards held by more than one member whose holdings block. */
  function doubleHeld(g: GroupDoc): number[] {
    const count = new Map<number, number>();
    for (const m of Object.values(g.members)) {
      if (!blocksOthers(m)) continue;
      for (const s of holdings(m)) count.set(s, (count.get(s) ?? 0) + 1);
    }
    return [...count].filter(([, n]) => n > 1).map(([s]) => s);
  }

  it('keeps single ownership, revoke-before-assign and monotonic epochs at every step, and converges balanced', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.array(action, { minLength: 1, maxLength: 30 }),
        async (shards, actions) => {
          const p = uniquePrefix('prop');
          const created = await a.call('POST', `/coord/v1/streams/${p}`, {
            initialShardCount: shards,
            requestedBy: 'test',
          });
          expect(created.status).toBe(201);
          const stacks = [a, b];
          const members = Array.from({ length: MEMBERS }, (_, i) => new LossyMember(`m${i}`, p, p));
          let before = await group(p);

          const send = async (m: LossyMember, stack: Stack, lose: boolean): Promise<TestResponse> => {
            if (lose) {
              // The request reaches the coordinator, the answer is lost: the client keeps its state.
              const saved = { epoch: m.epoch, mv: m.mv, owned: [...m.owned] };
              const res = await m.beat(stack);
              Object.assign(m, saved);
              return res;
            }
            return m.beat(stack);
          };

          for (const act of actions) {
            const answers: Array<{ m: LossyMember; res: TestResponse }> = [];
            switch (act.kind) {
              case 'beats': {
                const chosen = members.flatMap((m, i) =>
                  m.running && act.who[i] ? [{ m, lose: act.lose[i]! }] : [],
                );
                const results = await Promise.all(
                  chosen.map(({ m, lose }, i) => send(m, stacks[(act.via + i) % 2]!, lose)),
                );
                for (const [i, { m }] of chosen.entries()) answers.push({ m, res: results[i]! });
                break;
              }
              case 'start': {
                const m = members[act.member]!;
                if (!m.running) {
                  Object.assign(m, { running: true, epoch: 0, mv: 0, owned: [] });
                  answers.push({ m, res: await m.beat(stacks[act.member % 2]!) });
                }
                break;
              }
              case 'leave': {
                const m = members[act.member]!;
                if (m.running) {
                  m.running = false;
                  await m.leave(stacks[act.member % 2]!);
                }
                break;
              }
              case 'crash':
                members[act.member]!.running = false;
                break;
              case 'stale': {
                // A delayed duplicate of the member's current request, racing its next one.
                const m = members[act.member]!;
                if (m.running) {
                  const copy = Object.assign(new LossyMember(m.id, p, p), {
                    epoch: m.epoch,
                    mv: m.mv,
                    owned: [...m.owned],
                  });
                  await Promise.all([copy.beat(a), m.beat(b)]);
                }
                break;
              }
              case 'advance':
                clock.advance(act.ms);
                break;
              case 'sweep':
                await stacks[act.via]!.coordinator.sweep(clock.now());
                break;
              case 'reshard': {
                const running = members.filter((m) => m.running);
                const [scaled] = await Promise.all([
                  stacks[act.via]!.call('POST', `/coord/v1/streams/${p}/scale`, {
                    targetShardCount: act.shards,
                    requestedBy: 'test',
                    reason: 'property',
                  }),
                  ...running.map((m, i) => m.beat(stacks[(act.via + i + 1) % 2]!)),
                ]);
                expect([202, 409]).toContain(scaled.status);
                break;
              }
            }
            for (const { res } of answers) expect(res.status).toBe(200);
            const after = await group(p);
            expect(doubleHeld(after.g)).toEqual([]);
            // Revoke-before-assign: nobody else holds what an answer of this step granted.
            for (const { m, res } of answers) {
              if (res.body?.status !== 'OK') continue;
              for (const { shardIndex } of res.body.assignment.assignedShards as Array<{
                shardIndex: number;
              }>) {
                for (const other of Object.values(after.g.members)) {
                  if (other.memberId === m.id || !blocksOthers(other)) continue;
                  expect(
                    holdings(other),
                    `${m.id} granted ${shardIndex} held by ${other.memberId}`,
                  ).not.toContain(shardIndex);
                }
              }
            }
            for (const k of ['groupEpoch', 'metadataVersion', 'assignmentEpoch'] as const) {
              expect(after.g[k]).toBeGreaterThanOrEqual(before.g[k]);
            }
            for (const [id, was] of Object.entries(before.g.members)) {
              const now = after.g.members[id];
              if (!now || now.state === 'LEAVING' || was.state === 'LEAVING') continue;
              expect(now.memberEpoch, `epoch of ${id}`).toBeGreaterThanOrEqual(was.memberEpoch);
            }
            before = after;
          }

          // Honest rounds: every running member heartbeats (no losses) until the group settles.
          let settled = false;
          for (let r = 0; r < 25 && !settled; r++) {
            for (const [i, m] of members.entries()) if (m.running) await m.beat(stacks[i % 2]!);
            await a.coordinator.sweep(clock.now());
            clock.advance(200);
            const { stream, g } = await group(p);
            const running = members.filter((m) => m.running);
            const liveIds = Object.values(g.members)
              .filter((x) => isLive(x.state))
              .map((x) => x.memberId)
              .sort();
            settled =
              stream.activeReshardingId === null &&
              liveIds.join() ===
                running
                  .map((m) => m.id)
                  .sort()
                  .join() &&
              running.every(
                (m) => (g.targetAssignments[m.id] ?? []).join() === [...m.owned].sort((x, y) => x - y).join(),
              ) &&
              (running.length === 0 || g.state === 'STABLE');
          }
          expect(settled).toBe(true);
          const { stream, g } = await group(p);
          const running = members.filter((m) => m.running);
          if (running.length > 0) {
            const loads = running.map((m) => g.targetAssignments[m.id]?.length ?? 0);
            expect(Math.max(...loads) - Math.min(...loads)).toBeLessThanOrEqual(1);
            const owners = new Map<number, number>();
            for (const m of running) for (const s of m.owned) owners.set(s, (owners.get(s) ?? 0) + 1);
            for (const s of assignableShards(stream)) expect(owners.get(s), `shard ${s}`).toBe(1);
          }
          expect(doubleHeld(g)).toEqual([]);
        },
      ),
      { numRuns: RUNS },
    );
  }, 600_000);
});
