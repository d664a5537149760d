/**
 * Scrape-time filling of the reference gauges: group, member and shard series from the stored
 * metadata and the cached lag readings (label slots given by `ReferenceMetrics.syncLabels` from
 * the same snapshot first). Pairs without a label slot, members past
 * `MEMBERS_PER_GROUP` and their shards are aggregated into `_other` series: counts and sizes
 * summed, ages and epochs as their maximum, ids left out (they do not aggregate).
 */
import type { GroupSnapshot } from '../coordinator-api.js';
import { invariantViolations } from '../core/group-view.js';
import type { MemberRecord } from '../core/model.js';
import type { GroupLag } from './group-lag.js';
import { idMillis } from './group-lag.js';
import { OTHER_LABEL } from './label-budget.js';
import type { ReferenceMetrics } from './reference-metrics.js';
import type { Gauge } from './registry.js';

/** Members of one group labelled by id; the rest of the group's members are `member="_other"`. */
const MEMBERS_PER_GROUP = 64;

type Mode = 'sum' | 'max';

/** Adds `v` (>= 0) into a series: summed, or kept as the maximum (how overflow series aggregate). */
function put<L extends string>(gauge: Gauge<L>, labels: Record<L, string>, v: number, mode: Mode): void {
  const before = gauge.get(labels);
  gauge.set(labels, mode === 'sum' ? before + v : Math.max(before, v));
}

const live = (m: MemberRecord) => m.state === 'ACTIVE' || m.state === 'STARTING';

/** Resets every state gauge of `m` and fills it from `snaps` and `lags` as of `now` (epoch ms). */
export function fillReferenceState(
  m: ReferenceMetrics,
  snaps: readonly GroupSnapshot[],
  lags: readonly GroupLag[],
  now: number,
): void {
  const perGroup = [
    m.groupEpoch,
    m.assignmentEpoch,
    m.members,
    m.migrationActive,
    m.migrationAge,
    m.revokePending,
    m.invariantViolations,
  ];
  const perMember = [
    m.memberActive,
    m.memberHeartbeatAge,
    m.memberLeaseRemaining,
    m.memberMaxConcurrency,
    m.memberActiveWorkers,
    m.memberCurrentShards,
    m.memberRevokingShards,
  ];
  const perShard = [
    m.shardLength,
    m.shardPending,
    m.shardLag,
    m.shardOldestPendingAge,
    m.shardMemory,
    m.shardLastRecordMs,
    m.shardLastRecordSeq,
    m.shardLastGeneratedMs,
    m.shardLastGeneratedSeq,
    m.shardDeliveredMs,
    m.shardDeliveredSeq,
  ];
  for (const g of [...perGroup, ...perMember, ...perShard]) g.reset();

  const coordinator = m.coordinatorId;
  const lagOf = new Map(lags.map((l) => [`${l.streamPrefix}\u0000${l.consumerGroup}`, l]));
  const sorted = [...snaps].sort((a, b) =>
    a.stream.streamPrefix === b.stream.streamPrefix
      ? a.group.consumerGroup < b.group.consumerGroup
        ? -1
        : 1
      : a.stream.streamPrefix < b.stream.streamPrefix
        ? -1
        : 1,
  );
  for (const { stream, group } of sorted) {
    const labels = { coordinator, ...m.budget.lookup(stream.streamPrefix, group.consumerGroup) };
    const other = labels.stream === OTHER_LABEL;
    const members = Object.values(group.members);
    put(m.groupEpoch, labels, group.groupEpoch, 'max');
    put(m.assignmentEpoch, labels, group.assignmentEpoch, 'max');
    put(m.members, { ...labels, state: 'total' }, members.length, 'sum');
    put(m.members, { ...labels, state: 'active' }, members.filter(live).length, 'sum');
    put(
      m.members,
      { ...labels, state: 'expired' },
      members.filter((x) => x.state === 'EXPIRED').length,
      'sum',
    );
    const active = stream.migrations.find((x) => x.reshardingId === stream.activeReshardingId);
    put(m.migrationActive, labels, active ? 1 : 0, 'max');
    put(m.migrationAge, labels, active ? Math.max(0, (now - active.createdAt) / 1000) : 0, 'max');
    put(
      m.revokePending,
      labels,
      members.reduce((n, x) => n + x.revoking.length, 0),
      'sum',
    );
    put(m.invariantViolations, labels, invariantViolations(stream, group).length, 'sum');

    const ids = members.map((x) => x.memberId).sort();
    for (const rec of members) {
      const own = !other && ids.indexOf(rec.memberId) < MEMBERS_PER_GROUP;
      const ml = { ...labels, member: own ? rec.memberId : OTHER_LABEL };
      put(m.memberActive, ml, live(rec) ? 1 : 0, 'sum');
      put(m.memberHeartbeatAge, ml, Math.max(0, (now - rec.lastHeartbeatAt) / 1000), 'max');
      put(m.memberLeaseRemaining, ml, Math.max(0, (rec.memberLeaseExpiresAt - now) / 1000), 'max');
      put(m.memberMaxConcurrency, ml, rec.runtimeMaxConcurrency, 'sum');
      put(m.memberActiveWorkers, ml, rec.activeConsumerWorkers, 'sum');
      put(m.memberCurrentShards, ml, rec.currentAssignment.length, 'sum');
      put(m.memberRevokingShards, ml, rec.revoking.length, 'sum');
    }

    const lag = lagOf.get(`${stream.streamPrefix}\u0000${group.consumerGroup}`);
    for (const s of lag?.shards ?? []) {
      const sl = other
        ? { ...labels, shard: OTHER_LABEL, stream_key: OTHER_LABEL }
        : { ...labels, shard: String(s.shardIndex), stream_key: s.streamKey };
      put(m.shardLength, sl, s.streamLength, 'sum');
      put(m.shardPending, sl, s.pending, 'sum');
      if (s.lag !== null) put(m.shardLag, sl, s.lag, 'sum');
      const oldest = idMillis(s.oldestPendingId);
      put(m.shardOldestPendingAge, sl, oldest === null ? 0 : Math.max(0, (now - oldest) / 1000), 'max');
      put(m.shardMemory, sl, s.memoryUsageBytes ?? 0, 'sum');
      if (other) continue;
      setId(m.shardLastRecordMs, m.shardLastRecordSeq, sl, s.lastRecordId);
      setId(m.shardLastGeneratedMs, m.shardLastGeneratedSeq, sl, s.lastGeneratedId);
      setId(m.shardDeliveredMs, m.shardDeliveredSeq, sl, s.lastDeliveredId);
    }
  }
  m.labelledGroups.set({ coordinator }, m.budget.size);
}

/** `ms-seq` into two gauges; -1 for both when there is no id (as the reference reports). */
function setId<L extends string>(
  ms: Gauge<L>,
  seq: Gauge<L>,
  labels: Record<L, string>,
  id: string | null,
): void {
  const [a, b] = (id ?? '').split('-');
  const msPart = id === null ? -1 : Number(a);
  const seqPart = id === null ? -1 : Number(b);
  ms.set(labels, Number.isFinite(msPart) ? msPart : -1);
  seq.set(labels, Number.isFinite(seqPart) ? seqPart : -1);
}
