/**
 * Stored forms of layout 2 (docs/protocol.md#redis-key-layout): a member record as `<rev>|<compact JSON>`, the
 * group header's fields, an ownership entry `<member>|<kind>`, and the stream's heartbeat view.
 * Decoding validates everything and fails closed with METADATA_CORRUPT; nothing is repaired.
 */
import { z } from 'zod';
import type { OwnerEntry, OwnerKind } from '../core/commit-plan.js';
import type { CorrectionRound, GroupHeader, StreamView } from '../core/member-view.js';
import type { MemberRecord } from '../core/model.js';
import { corrupt } from './codec.js';
import { decodeShards, encodeShards } from './shard-ranges.js';

const num = z.number();
const shards = z.string();

const recordSchema = z.object({
  n: z.string(),
  s: z.enum(['STARTING', 'ACTIVE', 'LEAVING', 'EXPIRED', 'FENCED']),
  e: num,
  p: num.nullable(),
  v: num,
  c: num,
  w: num,
  cu: shards,
  gr: shards,
  rv: shards,
  lh: num,
  le: num,
  rt: num,
  f: z.enum(['BLOCKING', 'RELEASED']).nullable(),
  /** The member's instance id; absent in records written before it existed (= unknown). */
  i: z.string().min(1).optional(),
  /** The instance's highest recorded request sequence; absent = unknown. */
  q: z.int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
});

/** A member record as stored, with the revision compare-and-set writes check. */
export interface StoredMember {
  rev: number;
  record: MemberRecord;
}

/** `<rev>|<JSON>` of a record (progress and the rebalance deadline are stored beside it). */
export function encodeMember(rev: number, m: MemberRecord): string {
  const json: z.infer<typeof recordSchema> = {
    n: m.memberName,
    s: m.state,
    e: m.memberEpoch,
    p: m.previousEpoch,
    v: m.metadataVersion,
    c: m.runtimeMaxConcurrency,
    w: m.activeConsumerWorkers,
    cu: encodeShards(m.currentAssignment),
    gr: encodeShards(m.grantedAssignment),
    rv: encodeShards(m.revoking),
    lh: m.lastHeartbeatAt,
    le: m.memberLeaseExpiresAt,
    rt: m.rebalanceTimeoutMs,
    f: m.fence,
  };
  if (m.memberInstanceId) json.i = m.memberInstanceId;
  if (m.lastRequestSeq !== undefined) json.q = m.lastRequestSeq;
  return `${rev}|${JSON.stringify(json)}`;
}

/** Decodes a stored record of member `id` (progress empty, deadline null: the caller merges them). */
export function decodeMember(prefix: string, group: string, id: string, text: unknown): StoredMember {
  const what = `member "${id}" of group "${group}"`;
  if (typeof text !== 'string') throw corrupt(prefix, `${what} is missing`);
  const bar = text.indexOf('|');
  const rev = Number(text.slice(0, bar));
  if (bar < 1 || !Number.isSafeInteger(rev) || rev < 1) throw corrupt(prefix, `${what} has no revision`);
  let json: unknown;
  try {
    json = JSON.parse(text.slice(bar + 1));
  } catch {
    throw corrupt(prefix, `${what} is not valid JSON`);
  }
  const r = recordSchema.safeParse(json);
  if (!r.success) throw corrupt(prefix, `${what} is invalid at ${r.error.issues[0]?.path.join('.') ?? '?'}`);
  const d = r.data;
  const list = (t: string, field: string) => {
    const out = decodeShards(t);
    if (!out) throw corrupt(prefix, `${what} has an unreadable ${field} list`);
    return out;
  };
  return {
    rev,
    record: {
      memberId: id,
      memberName: d.n,
      state: d.s,
      memberEpoch: d.e,
      previousEpoch: d.p,
      metadataVersion: d.v,
      runtimeMaxConcurrency: d.c,
      activeConsumerWorkers: d.w,
      currentAssignment: list(d.cu, 'current'),
      grantedAssignment: list(d.gr, 'granted'),
      revoking: list(d.rv, 'revoking'),
      lastHeartbeatAt: d.lh,
      memberLeaseExpiresAt: d.le,
      rebalanceTimeoutMs: d.rt,
      rebalanceDeadlineAt: null,
      shardProgress: [],
      fence: d.f,
      ...(d.i === undefined ? {} : { memberInstanceId: d.i }),
      ...(d.q === undefined ? {} : { lastRequestSeq: d.q }),
    },
  };
}

/** A stored target list; throws METADATA_CORRUPT when unreadable. */
export function decodeTarget(prefix: string, group: string, id: string, text: unknown): number[] {
  if (text === null || text === undefined) return [];
  const out = typeof text === 'string' ? decodeShards(text) : null;
  if (!out) throw corrupt(prefix, `the target of member "${id}" of group "${group}" is unreadable`);
  return out;
}

/** `<member>|<kind>`. */
export function encodeOwner(e: OwnerEntry): string {
  return `${e.memberId}|${e.kind}`;
}

/** Decodes an ownership entry (null when absent); throws METADATA_CORRUPT when unreadable. */
export function decodeOwner(prefix: string, group: string, text: unknown): OwnerEntry | null {
  if (text === null || text === undefined) return null;
  const m = typeof text === 'string' ? /^(.+)\|([cgr])$/s.exec(text) : null;
  if (!m) throw corrupt(prefix, `an ownership entry of group "${group}" is unreadable`);
  return { memberId: m[1]!, kind: m[2] as OwnerKind };
}

const roundSchema = z.object({
  targetMetadataVersion: num,
  observedMetadataVersion: num,
  requestedAt: num,
  updatedAt: num,
});

/** The round as the header stores it. */
export function encodeRound(r: CorrectionRound): string {
  return JSON.stringify({
    targetMetadataVersion: r.targetMetadataVersion,
    observedMetadataVersion: r.observedMetadataVersion,
    requestedAt: r.requestedAt,
    updatedAt: r.updatedAt,
  });
}

/** Decodes the header hash (a flat field/value list or a record). */
export function decodeHeader(prefix: string, group: string, fields: Record<string, string>): GroupHeader {
  const n = (f: string) => {
    const v = Number(fields[f]);
    if (fields[f] === undefined || !Number.isSafeInteger(v)) {
      throw corrupt(prefix, `the header of group "${group}" has no valid ${f}`);
    }
    return v;
  };
  let correction: CorrectionRound | null = null;
  if (fields.cr !== undefined) {
    let json: unknown;
    try {
      json = JSON.parse(fields.cr);
    } catch {
      json = null;
    }
    const r = roundSchema.safeParse(json);
    if (!r.success) throw corrupt(prefix, `the correction round of group "${group}" is unreadable`);
    correction = r.data;
  }
  return {
    groupEpoch: n('ge'),
    assignmentEpoch: n('ae'),
    metadataVersion: n('mv'),
    correction,
    createdAt: n('ca'),
    updatedAt: n('ua'),
    ...(fields.pa !== undefined ? { pendingSince: n('pa') } : {}),
    ...(fields.rc !== undefined ? { recoveringUntil: n('rc') } : {}),
  };
}

/** A flat `[field, value, …]` reply as a record. */
export function fieldsOf(flat: unknown): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  const a = Array.isArray(flat) ? flat : [];
  for (let i = 0; i + 1 < a.length; i += 2) out[String(a[i])] = String(a[i + 1]);
  return out;
}

/** What heartbeats read of the stream: its shard sets, group names and resharding triggers. */
export interface StreamHead extends StreamView {
  groups: string[];
  /** Shards whose holdings a resharding pass waits on (a heartbeat changing one triggers it). */
  watched: number[];
  /** When a resharding pass has Redis work due (null: none). */
  workAt: number | null;
}

const headSchema = z.object({
  n: num,
  c: shards,
  a: shards,
  r: z.union([z.literal(0), z.literal(1)]),
  g: z.array(z.string()),
  w: shards,
  t: num.nullable(),
});

/** The compact heartbeat view of a stream, stored beside its document. */
export function encodeStreamHead(v: StreamHead): string {
  return JSON.stringify({
    n: v.shardCount,
    c: encodeShards(v.extraConsumable),
    a: encodeShards(v.extraAssignable),
    r: v.resharding ? 1 : 0,
    g: v.groups,
    w: encodeShards(v.watched),
    t: v.workAt,
  });
}

/** Decodes the heartbeat view; throws METADATA_CORRUPT when unreadable. */
export function decodeStreamHead(prefix: string, text: unknown): StreamHead {
  let json: unknown;
  try {
    json = typeof text === 'string' ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  const r = headSchema.safeParse(json);
  const consumable = r.success ? decodeShards(r.data.c) : null;
  const assignable = r.success ? decodeShards(r.data.a) : null;
  const watched = r.success ? decodeShards(r.data.w) : null;
  if (!r.success || !consumable || !assignable || !watched) {
    throw corrupt(prefix, 'the stream heartbeat view is unreadable');
  }
  return {
    shardCount: r.data.n,
    extraConsumable: consumable,
    extraAssignable: assignable,
    resharding: r.data.r === 1,
    groups: r.data.g,
    watched,
    workAt: r.data.t,
  };
}
