/**
 * A full-path heartbeat together with the stream's lazy housekeeping (docs/architecture.md#source-layout): while
 * resharding work is pending, the member's group is processed first (its report may release a
 * drained shard) and then every other group is housekept and the migration advanced on the
 * Redis evidence gathered for this request. Without resharding work it is exactly
 * `processHeartbeat`.
 */

import { own, withEntry } from './dict.js';
import { processHeartbeat } from './heartbeat.js';
import type { HeartbeatInput, HeartbeatOutput } from './heartbeat-types.js';
import type { GroupDoc, ProtocolConfig } from './model.js';
import { type ReshardIo, reshardingInProgress, streamPass } from './resharding-advance.js';
import type { StreamState } from './stream-state.js';

/** Heartbeat of `request` to group `group` of `state` (a missing group answers UNKNOWN_MEMBER_ID). */
export function processStreamHeartbeat(args: {
  state: StreamState;
  group: string;
  request: HeartbeatInput;
  io: ReshardIo;
  config: ProtocolConfig;
  now: number;
}): {
  state: StreamState;
  response: HeartbeatOutput;
  /** The member's group as the answer saw it (before the pass); null for an unknown group. */
  answeredFrom: GroupDoc | null;
} {
  const { state, group, request, io, config, now } = args;
  const before = own(state.groups, group) ?? null;
  const out = processHeartbeat({ stream: state.stream, group: before, request, config, now });
  if (!before || !out.group) return { state, response: out.response, answeredFrom: null };
  const withOwn: StreamState =
    out.group === before
      ? state
      : { stream: state.stream, groups: withEntry(state.groups, group, out.group) };
  const answeredFrom = out.group;
  if (!reshardingInProgress(state.stream)) return { state: withOwn, response: out.response, answeredFrom };
  // The answer was decided before the pass; a bump made by the pass reaches the member next time.
  return { state: streamPass(withOwn, io, now, config, group), response: out.response, answeredFrom };
}
