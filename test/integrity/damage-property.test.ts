/**
 * Two coordinator instances on one Redis while a random coordinator key of the group is deleted
 * or damaged between random protocol steps (property, fast-check). After every step: no shard is
 * read by two members within their leases, the group epoch answered never goes backwards, and
 * monitoring never says STABLE while a consumable shard is read by nobody or by two. After the
 * damage stops the group converges — rebuilt by itself, or, when what it lost cannot be rebuilt,
 * after the operator's repair.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { isCoordinatorError } from '../../src/core/errors.js';
import { damageOf } from '../../src/store/damage.js';
import { type GroupKeys, groupKeys, streamKeys } from '../../src/store/keys.js';
import { hb } from '../support/heartbeat-fixtures.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { makeStack, manualClock, type Stack } from '../support/stack.js';

const LEASE = 3000;
const MEMBERS = ['A', 'B', 'C'] as const;
const SHARDS = 4;
const KEY_PARTS: ReadonlyArray<keyof GroupKeys> = [
  'header',
  'members',
  'status',
  'targets',
  'owners',
  'leases',
  'live',
  'fast',
  'deadlines',
  'timers',
  'acks',
];

type Step =
  | { kind: 'beat'; member: number; via: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'sweep'; via: number }
  | { kind: 'damage'; part: number; how: 'del' | 'drop-one' | 'garble-one' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({ kind: fc.constant('beat' as const), member: fc.nat(2), via: fc.nat(1) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.constantFrom(200, 500, 1000, 3500),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('sweep' as const), via: fc.nat(1) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('damage' as const),
      part: fc.nat(KEY_PARTS.length - 1),
      how: fc.constantFrom('del' as const, 'drop-one' as const, 'garble-one' as const),
    }),
  },
);

interface Told {
  epoch: number;
  mv: number;
  owned: number[];
  /** Until when the member may keep reading without a newer answer (its lease). */
  until: number;
}

/** A request failed closed: the group's stored state was found damaged. */
function refusedAsCorrupt(err: unknown): boolean {
  return isCoordinatorError(err) && err.code === 'METADATA_CORRUPT';
}

const open: Stack[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

class World {
  private readonly told = new Map<string, Told>();
  private highestEpoch = 0;
  readonly violations: string[] = [];
  readonly refused = new Set<string>();
  private refusals = 0;

  private constructor(
    private readonly stacks: [Stack, Stack],
    private readonly prefix: string,
    private readonly keys: GroupKeys,
  ) {}

  static async open(): Promise<World> {
    const clock = manualClock();
    const ns = uniquePrefix('ns');
    const config = {
      COORDINATOR_MEMBER_LEASE_TTL_MS: String(LEASE),
      COORDINATOR_HEARTBEAT_INTERVAL_MS: '500',
    };
    const a = makeStack(backends[0]!, { clock, namespace: ns, config, monotonic: clock.now });
    const b = makeStack(backends[0]!, { clock, namespace: ns, config, monotonic: clock.now });
    open.push(a, b);
    const prefix = uniquePrefix('orders');
    await a.coordinator.createStream(prefix, {
      initialShardCount: SHARDS,
      consumerGroup: prefix,
      requestedBy: 'test',
      reason: null,
    });
    return new World([a, b], prefix, groupKeys(a.config.keyPrefix, prefix, prefix));
  }

  private get now(): number {
    return this.stacks[0].clock.now();
  }

  async apply(s: Step): Promise<void> {
    if (s.kind === 'advance') this.stacks[0].clock.advance(s.ms);
    else if (s.kind === 'sweep') await this.stacks[s.via]!.coordinator.sweep(this.now);
    else if (s.kind === 'beat') await this.beat(MEMBERS[s.member]!, s.via);
    else await this.damage(s);
    await this.check();
  }

  async beat(id: string, via: number): Promise<void> {
    const t = this.told.get(id);
    const spec =
      t && this.now <= t.until ? { epoch: t.epoch, mv: t.mv, owned: t.owned } : { epoch: 0, mv: 0 };
    try {
      const r = await this.stacks[via]!.coordinator.heartbeat(
        this.prefix,
        this.prefix,
        hb(id, spec, this.prefix),
      );
      if (r.status === 'OK' && r.groupEpoch < this.highestEpoch) {
        this.violations.push(`group epoch went back from ${this.highestEpoch} to ${r.groupEpoch}`);
      }
      if (r.status === 'OK') {
        this.highestEpoch = Math.max(this.highestEpoch, r.groupEpoch);
        this.told.set(id, {
          epoch: r.memberEpoch,
          mv: r.metadataVersion,
          owned: [...r.assignedShards],
          until: this.now + LEASE,
        });
      } else this.told.delete(id);
    } catch (err) {
      // A refused heartbeat changes nothing: the member keeps reading until its lease runs out.
      if (!refusedAsCorrupt(err)) throw err;
      this.refusals++;
      this.refused.add(damageOf(err)?.lost.join(',') ?? 'unreadable');
    }
  }

  private async damage(s: Extract<Step, { kind: 'damage' }>): Promise<void> {
    const redis = this.stacks[0].redis;
    const key = this.keys[KEY_PARTS[s.part]!];
    if (s.how === 'del') {
      await redis.del(key);
      return;
    }
    const type = await redis.type(key);
    if (type === 'hash') {
      const field = (await redis.hkeys(key))[0];
      if (field === undefined) return;
      if (s.how === 'drop-one') await redis.hdel(key, field);
      else await redis.hset(key, field, 'garbled');
    } else if (type === 'zset') {
      const [member] = (await redis.zrange(key, '0', '0')) as string[];
      if (member !== undefined) await redis.zrem(key, member);
    } else if (type === 'set') {
      const [member] = (await redis.smembers(key)) as string[];
      if (member !== undefined) await redis.srem(key, member);
    }
  }

  private async check(): Promise<void> {
    const holder = new Map<number, string>();
    for (const [id, t] of this.told) {
      if (this.now > t.until) continue;
      for (const s of t.owned) {
        const other = holder.get(s);
        if (other !== undefined) this.violations.push(`shard ${s}: ${other} and ${id}`);
        holder.set(s, id);
      }
    }
    let state: string | null = null;
    try {
      state = (await this.stacks[0].coordinator.getGroup(this.prefix, this.prefix)).group.state;
    } catch (err) {
      if (!refusedAsCorrupt(err)) throw err;
    }
    if (state === 'STABLE') {
      const snap = await this.stacks[0].coordinator.getGroup(this.prefix, this.prefix);
      const readers = new Map<number, number>();
      for (const m of Object.values(snap.group.members)) {
        if (m.state !== 'ACTIVE' && m.state !== 'STARTING') continue;
        for (const s of m.currentAssignment) readers.set(s, (readers.get(s) ?? 0) + 1);
      }
      for (let s = 0; s < SHARDS; s++) {
        if (readers.get(s) !== 1)
          this.violations.push(`STABLE while shard ${s} has ${readers.get(s) ?? 0} readers`);
      }
    }
  }

  /** Honest rounds without damage; repairs the group (reset) if it stays refused. */
  async settle(): Promise<void> {
    for (let round = 0; round < 30; round++) {
      for (const id of MEMBERS) await this.beat(id, round % 2);
      await this.stacks[round % 2]!.coordinator.sweep(this.now);
      this.stacks[0].clock.advance(500);
      await this.check();
      if (round === 5) this.refusals = 0;
      // Still refused after the damage stopped: what it lost cannot be rebuilt, the operator resets.
      if (round === 10 && (this.refusals > 0 || !(await this.readable()))) {
        await this.stacks[1].coordinator.repairGroup(this.prefix, this.prefix, {
          mode: 'reset',
          requestedBy: 'test',
          reason: 'property',
        });
      }
    }
  }

  private async readable(): Promise<boolean> {
    try {
      await this.stacks[0].coordinator.getGroup(this.prefix, this.prefix);
      return true;
    } catch {
      return false;
    }
  }

  /** Every shard read by exactly one member, and monitoring agrees. */
  async converged(): Promise<string[]> {
    const owned = [...this.told.values()].filter((t) => this.now <= t.until).flatMap((t) => t.owned);
    const problems: string[] = [];
    if (owned.sort().join() !== '0,1,2,3') problems.push(`shards read: ${owned.join()}`);
    const state = (await this.stacks[0].coordinator.getGroup(this.prefix, this.prefix)).group.state;
    if (state !== 'STABLE') problems.push(`state ${state}`);
    return problems;
  }

  /** Whether the stream's keys are still there (a deleted stream hash ends the scenario). */
  async streamExists(): Promise<boolean> {
    return (
      (await this.stacks[0].redis.exists(streamKeys(this.stacks[0].config.keyPrefix, this.prefix).stream)) ===
      1
    );
  }
}

describe('integrity > random damage to a group on two instances (property)', () => {
  it('never two readers of a shard, never an epoch going back, never STABLE over a lost shard; converges after', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 40 }), async (steps) => {
        const w = await World.open();
        for (const s of steps) await w.apply(s);
        expect(w.violations).toEqual([]);
        expect(await w.streamExists()).toBe(true);
        await w.settle();
        expect(w.violations).toEqual([]);
        expect(await w.converged()).toEqual([]);
        for (const s of open.splice(0)) await s.close();
      }),
      { numRuns: 60 },
    );
  }, 240_000);
});
