/**
 * The steady heartbeats of one batch to one group in one store call (docs/protocol.md#batched-heartbeats):
 * the fast path of every member the batch names, answered and renewed exactly as each single
 * heartbeat's fast path would be. Members it does not answer take the full path after it.
 */
import { heartbeatKey, progressOf, wellFormed } from '../core/fast-path.js';
import type { HeartbeatInput, HeartbeatOutput } from '../core/heartbeat-types.js';
import type { Ctx } from './context.js';

/** Per input, in order, its fast-path answer, or null when it must take the full path (`heartbeat` with `fastPathTried`). */
export async function steadyHeartbeats(
  ctx: Ctx,
  prefix: string,
  group: string,
  inputs: readonly HeartbeatInput[],
): Promise<Array<HeartbeatOutput | null>> {
  const out: Array<HeartbeatOutput | null> = inputs.map(() => null);
  const members: Array<{ memberId: string; fastKey: string; progressJson: string }> = [];
  const at: number[] = [];
  inputs.forEach((input, i) => {
    if (!wellFormed(input) || input.memberEpoch <= 0) return;
    members.push({ memberId: input.memberId, fastKey: heartbeatKey(input), progressJson: progressOf(input) });
    at.push(i);
  });
  if (!ctx.store.readSteady || members.length === 0) return out;
  const now = ctx.now();
  const leaseExpiresAt = now + ctx.protocol.memberLeaseTtlMs;
  const answers = await ctx.store.readSteady({ prefix, group, now, leaseExpiresAt, members });
  answers.forEach((answer, j) => {
    ctx.emit({ type: 'fast-path', hit: answer !== null });
    if (answer === null) return;
    out[at[j] as number] = answer;
    ctx.emit({
      type: 'heartbeat',
      status: answer.status,
      path: 'fast',
      streamPrefix: prefix,
      consumerGroup: group,
    });
  });
  return out;
}
