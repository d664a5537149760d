/**
 * Honest members over a `Driver`: each one sends what its last answer told it (epoch, version,
 * the shards it was assigned) and adopts the next answer at once. After every answer the fleet
 * checks the one promise the coordinator exists for: no shard is in the assignment of two live
 * members. What a member was told is what it reads, so the check is on the answers, not on what
 * Redis holds.
 */
import type { HeartbeatOutput } from '../../src/core/heartbeat-types.js';
import type { Driver } from './protocol-driver.js';

interface Told {
  epoch: number;
  mv: number;
  owned: number[];
}

/** Members `ids` driven honestly through `d`, with the double-ownership check after each answer. */
export class HonestFleet {
  private readonly told = new Map<string, Told>();
  /** Every double ownership seen, as `shard N: A and B`. */
  readonly violations: string[] = [];

  constructor(private readonly d: Driver) {}

  /** Sends member `id`'s next heartbeat; a member not yet known joins at epoch 0. */
  async beat(id: string): Promise<HeartbeatOutput> {
    const t = this.told.get(id) ?? { epoch: 0, mv: 0, owned: [] };
    const r = await this.d.beat(id, { epoch: t.epoch, mv: t.mv, owned: t.owned });
    if (r.status === 'OK') {
      this.told.set(id, { epoch: r.memberEpoch, mv: r.metadataVersion, owned: [...r.assignedShards] });
    } else {
      // Fenced or unknown: the member stops reading and rejoins.
      this.told.delete(id);
    }
    this.check();
    return r;
  }

  /** One heartbeat of each member in turn, `rounds` times, moving the clock `stepMs` per round. */
  async rounds(ids: readonly string[], rounds: number, stepMs: number): Promise<void> {
    for (let i = 0; i < rounds; i++) {
      for (const id of ids) await this.beat(id);
      this.d.advance(stepMs);
    }
  }

  /** The shards member `id` was last told it may read. */
  owned(id: string): number[] {
    return this.told.get(id)?.owned ?? [];
  }

  /** Every shard some member was told it may read. */
  covered(): number[] {
    return [...new Set([...this.told.values()].flatMap((t) => t.owned))].sort((a, b) => a - b);
  }

  private check(): void {
    const holder = new Map<number, string>();
    for (const [id, t] of this.told) {
      for (const s of t.owned) {
        const other = holder.get(s);
        if (other !== undefined) this.violations.push(`shard ${s}: ${other} and ${id}`);
        holder.set(s, id);
      }
    }
  }
}
