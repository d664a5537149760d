/**
 * The member protocol over a whole group document: the composition the Redis path performs in
 * steps, done here in one pure call — maintenance of due members, an assignment round when one
 * is due, the member's decision (`decideHeartbeat`), the assignment round a membership change
 * asks for, and a joiner's grant. With no concurrency the Redis path answers exactly what this
 * answers, so the protocol's unit tests and simulations run through it.
 */

import { roundCompleteWith } from './correction.js';
import { cloneGroup } from './group.js';
import { withEpochsOf } from './heartbeat-answer.js';
import type { HeartbeatInput, HeartbeatOutput } from './heartbeat-types.js';
import { applyRoundDecision, finishGroup, maintainGroupDraft, recomputeDraft } from './housekeeping.js';
import { decideGrant, decideHeartbeat, type MemberDecision } from './member-heartbeat.js';
import { type StreamView, streamViewOf, viewFromGroup } from './member-view.js';
import { type GroupDoc, PROTOCOL_VERSION, type ProtocolConfig, type StreamDoc } from './model.js';

/** docs/protocol.md#processing-order processing (with docs/protocol.md#lost-response-tolerance, docs/protocol.md#stale-epoch-fencing deviations). group null = unknown group → UNKNOWN_MEMBER_ID. */
export function processHeartbeat(args: {
  stream: StreamDoc;
  group: GroupDoc | null;
  request: HeartbeatInput;
  config: ProtocolConfig;
  now: number;
}): { group: GroupDoc | null; response: HeartbeatOutput } {
  const { stream, group, request, config, now } = args;
  const sv = streamViewOf(stream);
  // Refusals that need no group state leave the group untouched (no maintenance either).
  if (!group || request.protocolVersion !== PROTOCOL_VERSION || request.memberId !== request.pathMemberId) {
    const view = group ? viewFromGroup(sv, group, request.memberId) : null;
    return { group, response: decideHeartbeat(view, request, config, now).response };
  }
  const id = request.memberId;
  const draft = cloneGroup(group);
  maintainGroupDraft(sv, draft, config, now, new Set([id]));
  const decision = decideHeartbeat(
    viewFromGroup(sv, draft, id, (after, acked) => roundCompleteWith(draft, after, acked)),
    request,
    config,
    now,
  );
  const response = applyDecision(sv, draft, id, decision, config, now);
  return { group: finishGroup(draft, group, now), response };
}

/**
 * Applies a member's decision to a whole-group draft, runs the assignment round a membership
 * change asks for, and returns the answer the member gets (a joiner's grant once it has a
 * target; otherwise the decision's answer with the group's epochs after the round).
 */
export function applyDecision(
  sv: StreamView,
  draft: GroupDoc,
  id: string,
  decision: MemberDecision,
  config: ProtocolConfig,
  now: number,
): HeartbeatOutput {
  if (decision.member) draft.members[id] = decision.member;
  draft.groupEpoch += decision.bumps;
  draft.metadataVersion += decision.bumps;
  applyRoundDecision(draft, id, decision);
  if (decision.bumps === 0) return decision.response;
  recomputeDraft(sv, draft, config, now);
  if (decision.joined) {
    const grant = decideGrant(viewFromGroup(sv, draft, id), config, now);
    if (grant) {
      if (grant.member) draft.members[id] = grant.member;
      return grant.response;
    }
  }
  return withEpochsOf(decision.response, draft);
}
