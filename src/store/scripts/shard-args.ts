/**
 * Replies of the shard scripts (`shard-evidence`, `retire-shard`, `provision-existing`) as
 * core values. Shared by every Store implementation; RESP2 arrays with nil elements for
 * unknown numbers.
 */
import type { GroupReading, RetireOutcome, ShardReading } from '../../core/drain-evidence.js';
import { integerOrNull, stringOrNull } from '../xinfo-reply.js';
import type { LuaScript } from './lua-script.js';
import { PROVISION_EXISTING } from './provision-existing.js';
import { RETIRE_SHARD } from './retire-shard.js';
import { SHARD_EVIDENCE } from './shard-evidence.js';

/** The shard scripts (also in `SCRIPTS`, whose pin test covers them). */
export const SHARD_SCRIPTS: readonly LuaScript[] = [SHARD_EVIDENCE, RETIRE_SHARD, PROVISION_EXISTING];

/** Values per group in a shard script reply: name, pending, lag, last-delivered-id, entry-after flag. */
const GROUP_STRIDE = 5;

/** The reply's entry-after flag: 1 an entry follows, 0 none does, nil unknown. */
function flagOrNull(v: unknown): boolean | null {
  const n = integerOrNull(v);
  return n === 1 ? true : n === 0 ? false : null;
}

/**
 * `{length, entriesAdded|nil, nGroups, (name, pending|nil, lag|nil, lastDeliveredId|nil,
 * after 1|0|nil)...}` from `offset` → a stream reading.
 */
function streamReading(reply: unknown[], offset: number): ShardReading {
  const length = integerOrNull(reply[offset]);
  const count = integerOrNull(reply[offset + 2]);
  if (length === null || count === null)
    return { kind: 'error', message: 'unexpected reply from a shard script' };
  const groups: GroupReading[] = [];
  for (let i = 0; i < count; i++) {
    const at = offset + 3 + i * GROUP_STRIDE;
    groups.push({
      name: stringOrNull(reply[at]) ?? '',
      pending: integerOrNull(reply[at + 1]),
      lag: integerOrNull(reply[at + 2]),
      lastDeliveredId: stringOrNull(reply[at + 3]),
      entryAfterLastDelivered: flagOrNull(reply[at + 4]),
    });
  }
  return { kind: 'stream', length, entriesAdded: integerOrNull(reply[offset + 1]), groups };
}

/** The `shard-evidence` reply as a reading. */
export function decodeShardReading(reply: unknown): ShardReading {
  const a = Array.isArray(reply) ? reply : [];
  const code = integerOrNull(a[0]);
  if (code === 0) return { kind: 'absent' };
  if (code === 1) return streamReading(a, 1);
  if (code === -1) return { kind: 'error', message: stringOrNull(a[1]) ?? 'shard read failed' };
  return { kind: 'error', message: 'unexpected reply from the shard-evidence script' };
}

/** The `retire-shard` reply as an outcome (a key that is not a stream is refused, never deleted). */
export function decodeRetireReply(reply: unknown): RetireOutcome {
  const a = Array.isArray(reply) ? reply : [];
  const code = integerOrNull(a[0]);
  if (code === 1) return { kind: 'deleted' };
  if (code === 2) return { kind: 'absent' };
  if (code === 0) return { kind: 'refused', reading: streamReading(a, 1) };
  if (code === -1) {
    return {
      kind: 'refused',
      reading: { kind: 'error', message: stringOrNull(a[1]) ?? 'shard read failed' },
    };
  }
  return { kind: 'error', message: 'unexpected reply from the retire-shard script' };
}

/** The `provision-existing` reply: true when the group exists now, false when the key is absent; else the error text. */
export function decodeProvisionExisting(reply: unknown): boolean | { error: string } {
  const a = Array.isArray(reply) ? reply : [];
  const code = integerOrNull(a[0]);
  if (code === 1 || code === 2) return true;
  if (code === 3) return false;
  return { error: stringOrNull(a[1]) ?? 'unexpected reply' };
}
