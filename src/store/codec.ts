/**
 * Parsing and validation of stored documents. Anything unreadable fails closed with
 * METADATA_CORRUPT (docs/protocol.md#invariants); stored values are never repaired or overwritten here.
 * Unknown fields are kept, so documents written by a newer version still load.
 */
import { z } from 'zod';
import { CoordinatorError } from '../core/errors.js';
import type { ShardProgress, StreamDoc } from '../core/model.js';

const num = z.number();

const shardProgressSchema: z.ZodType<ShardProgress> = z.looseObject({
  shard: num,
  streamKey: z.string(),
  lastDeliveredId: z.string().nullable(),
  lastAckedId: z.string().nullable(),
  pendingCount: num,
  updatedAt: z.string().nullable(),
});

const streamDocSchema: z.ZodType<StreamDoc> = z.looseObject({
  streamPrefix: z.string(),
  shardCount: num,
  removedShards: z.array(
    z.looseObject({
      shard: num,
      state: z.enum(['DRAINING', 'DRAINED', 'RETIRING', 'RETIRED']),
      reason: z.string().nullable(),
      updatedAt: num,
    }),
  ),
  migrations: z.array(
    z.looseObject({
      reshardingId: z.string(),
      fromShardCount: num,
      toShardCount: num,
      state: z.enum(['PREPARING', 'ACTIVE', 'DRAINING', 'ROLLING_BACK', 'ROLLED_BACK', 'DEPRECATED']),
      createdAt: num,
      updatedAt: num,
    }),
  ),
  activeReshardingId: z.string().nullable(),
  groups: z.array(z.string()),
  createdAt: num,
  updatedAt: num,
});

/** A live-hash entry: last heartbeat time and, when known, the progress reported then. */
export interface LiveEntry {
  at: number;
  progress?: ShardProgress[];
}

const liveEntrySchema: z.ZodType<LiveEntry> = z.object({
  at: num,
  progress: z.array(shardProgressSchema).optional(),
});

/** The METADATA_CORRUPT error for `prefix`, with a short reason (never a URL or secret). */
export function corrupt(prefix: string, reason: string): CoordinatorError {
  return new CoordinatorError(
    'METADATA_CORRUPT',
    `stored metadata for stream "${prefix}" is unreadable: ${reason}`,
  );
}

function parseWith<T>(schema: z.ZodType<T>, text: unknown, prefix: string, what: string): T {
  if (typeof text !== 'string') throw corrupt(prefix, `${what} is missing`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw corrupt(prefix, `${what} is not valid JSON`);
  }
  const r = schema.safeParse(json);
  if (!r.success) {
    const issue = r.error.issues[0];
    const path = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    throw corrupt(prefix, `${what} is invalid${path}: ${issue?.message ?? 'unknown problem'}`);
  }
  return r.data;
}

/** Parses a stored stream document of `prefix`; throws METADATA_CORRUPT when unreadable. */
export function parseStreamDoc(prefix: string, text: unknown): StreamDoc {
  const doc = parseWith(streamDocSchema, text, prefix, 'stream document');
  if (doc.streamPrefix !== prefix) throw corrupt(prefix, 'stream document belongs to another stream');
  return doc;
}

/** Parses one live-hash entry of `group`; throws METADATA_CORRUPT when unreadable. */
export function parseLiveEntry(prefix: string, group: string, text: unknown): LiveEntry {
  return parseWith(liveEntrySchema, text, prefix, `group "${group}" live entry`);
}

/** Parses a stored revision (a positive integer); throws METADATA_CORRUPT otherwise. */
export function parseRevision(prefix: string, text: unknown): number {
  const n = typeof text === 'number' ? text : typeof text === 'string' ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw corrupt(prefix, 'stream revision is missing or invalid');
  return n;
}
