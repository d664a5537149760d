/**
 * Two coordinator instances on one Redis, hundreds of interleaved heartbeats: single
 * ownership must hold during and after (docs/protocol.md#invariants invariants 1, 2, 6).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { doubleHeld, SimMember } from '../support/members.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { makeStack, manualClock, type Stack } from '../support/stack.js';

describe.each(backends)('two instances heartbeating one group ($name)', (backend) => {
  const stacks: Stack[] = [];
  afterEach(async () => {
    await Promise.all(stacks.splice(0).map((s) => s.close()));
  });

  it('never lets two live members hold a shard, during and after hundreds of interleaved requests', async () => {
    const clock = manualClock();
    const a = makeStack(backend, { clock });
    const b = makeStack(backend, { clock, namespace: a.config.keyPrefix });
    stacks.push(a, b);
    const p = uniquePrefix('conc');
    expect(
      (await a.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 8, requestedBy: 't' })).status,
    ).toBe(201);

    const members = Array.from({ length: 6 }, (_, i) => new SimMember(`m${i}`, p, p));
    let requests = 0;
    let violations = 0;
    const rounds = 45;
    for (let round = 0; round < rounds; round++) {
      // Members 4 and 5 go silent long enough to expire (18 rounds × 200 ms > 3 s lease), then
      // come back: stale epoch → fenced → epoch-0 rejoin, so ownership keeps moving.
      const active = members.filter((_, i) => i < 4 || round % 30 < 12);
      const results = await Promise.all(active.map((m, i) => m.beat((i + round) % 2 === 0 ? a : b)));
      requests += results.length;
      for (const r of results) expect(r.status).toBe(200);
      const snap = await a.store.load(p, [p]);
      if (doubleHeld(snap!.groups[p]!).length > 0) violations++;
      clock.advance(200);
    }
    // Settle: everyone alive heartbeats until stable.
    for (let i = 0; i < 6; i++) {
      for (const m of members) await m.beat(i % 2 === 0 ? a : b);
      clock.advance(200);
    }
    const snap = await b.store.load(p, [p]);
    const group = snap!.groups[p]!;
    expect(requests).toBeGreaterThanOrEqual(200);
    expect(violations).toBe(0);
    expect(doubleHeld(group)).toEqual([]);
    const owners = new Map<number, string[]>();
    for (const m of members) for (const s of m.owned) owners.set(s, [...(owners.get(s) ?? []), m.id]);
    for (const list of owners.values()) expect(list.length).toBe(1);
    const loads = members.map((m) => m.owned.length);
    expect(Math.max(...loads) - Math.min(...loads)).toBeLessThanOrEqual(1);
    expect(owners.size).toBe(8);
    const assignments = await a.call('GET', `/coord/v1/monitoring/streams/${p}/groups/${p}/assignments`);
    expect(assignments.body.invariantViolations).toEqual([]);
  });
});
