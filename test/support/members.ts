/**
 * An honest simulated member following docs/protocol.md#client-rules "correct client" rules, for driving the
 * coordinator over HTTP in integration tests and benchmarks.
 */
import type { GroupDoc } from '../../src/core/model.js';
import { isLive } from '../../src/core/model.js';
import { heartbeat, idx, type Stack, type TestResponse } from './stack.js';

/** Client-side state of one simulated member. */
export class SimMember {
  epoch = 0;
  mv = 0;
  owned: number[] = [];
  lastStatus = '';

  constructor(
    readonly id: string,
    readonly prefix: string,
    readonly group: string,
  ) {}

  /** Leaves the group (epoch -1) after dropping every shard. */
  async leave(stack: Pick<Stack, 'call'>): Promise<TestResponse> {
    const res = await heartbeat(stack, this.prefix, this.group, this.id, {
      epoch: -1,
      mv: this.mv,
      owned: [],
    });
    this.epoch = 0;
    this.mv = 0;
    this.owned = [];
    return res;
  }

  /** Sends one heartbeat through `stack` and applies the answer like a correct client. */
  async beat(stack: Pick<Stack, 'call'>): Promise<TestResponse> {
    const res = await heartbeat(stack, this.prefix, this.group, this.id, {
      epoch: this.epoch,
      mv: this.mv,
      owned: this.epoch === 0 ? [] : this.owned,
    });
    if (res.status !== 200) return res;
    const b = res.body;
    this.lastStatus = b.status;
    const assigned = idx(b.assignment.assignedShards);
    switch (b.status) {
      case 'OK':
        this.epoch = b.memberEpoch;
        this.mv = b.metadataVersion;
        this.owned = assigned;
        break;
      case 'SYNC_METADATA':
      case 'REVOKE_PENDING':
        this.epoch = b.memberEpoch;
        this.mv = b.metadataVersion;
        this.owned = this.owned.filter((s) => assigned.includes(s));
        break;
      case 'FENCED_MEMBER_EPOCH':
      case 'UNKNOWN_MEMBER_ID':
        this.epoch = 0;
        this.mv = 0;
        this.owned = [];
        break;
      default:
        break;
    }
    return res;
  }
}

/** Shards held (current, granted or revoking) by more than one live member of a group. */
export function doubleHeld(group: GroupDoc): number[] {
  const holders = new Map<number, number>();
  for (const m of Object.values(group.members)) {
    if (!isLive(m.state)) continue;
    const held = new Set([...m.currentAssignment, ...m.grantedAssignment, ...m.revoking]);
    for (const s of held) holders.set(s, (holders.get(s) ?? 0) + 1);
  }
  return [...holders].filter(([, n]) => n > 1).map(([s]) => s);
}
