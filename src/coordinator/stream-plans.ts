/**
 * Stream-wide changes in layout 2: the pure resharding functions decide on whole documents
 * (`StreamState`); what reaches Redis is the new stream document and, per group, the counter
 * bumps the decision made. Targets follow in each bumped group's assignment round, as they do
 * after any membership change, so a stream-wide commit never rewrites member records.
 */

import { own } from '../core/dict.js';
import type { GroupDoc, StreamDoc } from '../core/model.js';
import type { StreamState } from '../core/stream-state.js';
import type { StreamHead } from '../store/records.js';
import type { StreamPlan } from '../store/store.js';
import { streamHeadOf } from '../store/stream-head.js';
import type { Ctx } from './context.js';
import { runAssignment } from './group-steps.js';

/** The commit taking a stream from `before` to `after` (document and per-group bumps). */
export function streamChange(
  ctx: Ctx,
  before: StreamState,
  after: StreamState,
  now: number,
): Omit<StreamPlan, 'prefix' | 'expect'> {
  const plan: Omit<StreamPlan, 'prefix' | 'expect'> = { groups: [] };
  if (after.stream !== before.stream) plan.stream = streamWrite(ctx, { ...after.stream, updatedAt: now });
  for (const [name, g] of Object.entries(after.groups)) {
    const b = own(before.groups, name);
    if (!b) continue;
    const group = g.groupEpoch - b.groupEpoch;
    const metadata = g.metadataVersion - b.metadataVersion;
    if (group !== 0 || metadata !== 0) {
      plan.groups.push({
        name,
        ops: [{ k: 'group-exists' }, { k: 'bump', group, metadata, at: now }, { k: 'touch', at: now }],
      });
    }
  }
  return plan;
}

/** A stream document write with its heartbeat view. */
export function streamWrite(ctx: Ctx, doc: StreamDoc): { doc: StreamDoc; head: StreamHead } {
  return { doc, head: streamHeadOf(doc, ctx.protocol.heartbeatIntervalMs) };
}

/** Groups whose epoch a stream-wide change moved (their assignment round is due). */
export function bumpedGroups(before: StreamState, after: StreamState): string[] {
  return Object.entries(after.groups)
    .filter(([name, g]) => {
      const b: GroupDoc | undefined = own(before.groups, name);
      return b !== undefined && g.groupEpoch > b.groupEpoch;
    })
    .map(([name]) => name);
}

/** Runs the assignment round of each group (skipping ones somebody else is running). */
export async function assignGroups(
  ctx: Ctx,
  prefix: string,
  groups: readonly string[],
  now: number,
): Promise<void> {
  for (const g of groups) await runAssignment(ctx, prefix, g, now);
}
