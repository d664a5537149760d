import { CoordinatorError } from '../core/errors.js';
import type { StreamInspector } from '../store/inspector.js';
import { invalidRequest } from './errors.js';
import { NOT_A_STREAM_ID, normalizeStreamId } from './stream-id.js';

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

/** A stream id from `field`, normalised to `ms-seq`; 400 when it is not a stream id. */
export function parseIdParam(field: string, raw: string): string {
  const id = normalizeStreamId(raw);
  if (id === null) throw invalidRequest([`${field}: ${NOT_A_STREAM_ID}`]);
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
