/**
 * The compact view of a stream that heartbeats read instead of its document.
 */
import { streamViewOf } from '../core/member-view.js';
import type { StreamDoc } from '../core/model.js';
import { activeMigrationOf, range } from '../core/stream-state.js';
import type { StreamHead } from './records.js';

/**
 * The heartbeat view of `stream`, written beside its document on every document write: the
 * shard sets, the groups, the shards a resharding pass watches (removed shards not yet retired,
 * the added shards of an active scale-out) and when a pass has Redis work due (drain evidence
 * older than `evidenceIntervalMs`, a retirement, a scale-in to start draining).
 */
export function streamHeadOf(stream: StreamDoc, evidenceIntervalMs: number): StreamHead {
  const watched = new Set<number>();
  let workAt: number | null = null;
  const due = (t: number) => {
    workAt = workAt === null ? t : Math.min(workAt, t);
  };
  for (const r of stream.removedShards) {
    if (r.state === 'RETIRED') continue;
    watched.add(r.shard);
    if (r.state === 'RETIRING') due(0);
    if (r.state === 'DRAINING')
      due(typeof r.evidence?.checkedAt === 'number' ? r.evidence.checkedAt + evidenceIntervalMs : 0);
  }
  const m = activeMigrationOf(stream);
  if (m?.state === 'ACTIVE') {
    if (m.toShardCount > m.fromShardCount)
      for (const s of range(m.fromShardCount, m.toShardCount)) watched.add(s);
    else due(0);
  }
  return {
    ...streamViewOf(stream),
    groups: [...stream.groups],
    watched: [...watched].sort((a, b) => a - b),
    workAt,
  };
}
