/**
 * Query and path inputs of the Redis-backed monitoring routes: page direction, limit, cursors,
 * shard selectors and Grafana's name parameters. Anything malformed is a 400 INVALID_REQUEST.
 */
import type { Context } from 'hono';
import { CoordinatorError } from '../core/errors.js';
import type { RangeDirection, StreamInspector } from '../store/inspector.js';
import { describeIssues, invalidRequest } from './errors.js';
import { consumerGroupSchema, streamPrefixSchema } from './schemas.js';
import { normalizeStreamId } from './stream-id.js';

/** Default and bounds of a message page (PROTOCOL §2.9: clamped, never rejected). */
export const DEFAULT_PAGE_LIMIT = 25;
/** Largest message page. */
export const MAX_PAGE_LIMIT = 1000;

/** The inspector, or 503 REDIS_NOT_CONFIGURED when the app was built without one. */
export function requireInspector(inspector: StreamInspector | null): StreamInspector {
  if (inspector === null) {
    throw new CoordinatorError(
      'REDIS_NOT_CONFIGURED',
      'Redis stream inspection is not configured on this coordinator',
    );
  }
  return inspector;
}

/** A query parameter trimmed, or null when absent or blank. */
export function queryText(c: Context, name: string): string | null {
  const v = c.req.query(name)?.trim();
  return v ? v : null;
}

/** `direction`: FORWARD or BACKWARD (any case); blank → BACKWARD. */
export function parseDirection(raw: string | null): RangeDirection {
  if (raw === null) return 'BACKWARD';
  const v = raw.toUpperCase();
  if (v === 'FORWARD' || v === 'BACKWARD') return v;
  throw invalidRequest(['direction: must be FORWARD or BACKWARD']);
}

/** `limit`: an integer clamped to 1..1000; blank → 25. */
export function parseLimit(raw: string | null): number {
  if (raw === null) return DEFAULT_PAGE_LIMIT;
  if (!/^[+-]?\d+$/.test(raw)) throw invalidRequest(['limit: must be an integer']);
  const n = Number(raw);
  return Math.min(MAX_PAGE_LIMIT, Math.max(1, n));
}

/** A stream id from `field`, normalised to `ms-seq`; 400 when it is not a stream id. */
export function parseIdParam(field: string, raw: string): string {
  const id = normalizeStreamId(raw);
  if (id === null) throw invalidRequest([`${field}: must be a Redis stream id (<ms>-<seq>)`]);
  return id;
}

/** A shard index (decimal integer) from `field`; 400 when not numeric. */
export function parseShardNumber(field: string, raw: string): number {
  if (!/^[+-]?\d{1,9}$/.test(raw)) throw invalidRequest([`${field}: must be a shard index`]);
  return Number(raw);
}

/** `shard` when it is consumable, else 400 naming the consumable shards. */
export function requireConsumable(field: string, shard: number, consumable: readonly number[]): number {
  if (consumable.includes(shard)) return shard;
  const known =
    consumable.length === 0
      ? 'none'
      : consumable.length <= 20
        ? consumable.join(', ')
        : `${consumable.length} shards from ${consumable[0]} to ${consumable.at(-1)}`;
  throw invalidRequest([`${field}: shard ${shard} is not consumable (consumable shards: ${known})`]);
}

/** Grafana selectors meaning "every shard". */
export function isAllShards(selector: string): boolean {
  return (
    selector.toLowerCase() === 'all' || selector === '.*' || selector === '__all' || selector === '$__all'
  );
}

/**
 * A Grafana name parameter (`streamPrefix` / `consumerGroup`): null when blank (the protocol
 * answers `[]` or widens the scope), 400 when missing altogether or invalid.
 */
export function grafanaName(
  c: Context,
  name: 'streamPrefix' | 'consumerGroup',
  required: boolean,
): string | null {
  const raw = c.req.query(name);
  if (raw === undefined) {
    if (required) throw invalidRequest([`${name}: is required`]);
    return null;
  }
  if (raw.trim() === '') return null;
  const schema = name === 'streamPrefix' ? streamPrefixSchema : consumerGroupSchema;
  const r = schema.safeParse(raw);
  if (!r.success) throw invalidRequest(describeIssues(r.error.issues, name));
  return r.data;
}
