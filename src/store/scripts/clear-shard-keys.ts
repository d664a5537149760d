/**
 * Deletes the keys kept beside a shard once its stream key is gone: the fenced-ack token hash
 * (`{<shard>}:owner`) and the idempotency incarnation (`{<shard>}:incarnation`). Run right after
 * the retire script deleted the key (scale-in, a plain stream delete), before the metadata says
 * so, and again after a crash in between (the retirement is repeated: the key is absent). The
 * retire script stays a pure check-and-delete of the stream; this one touches only our side keys
 * and only while the stream key does not exist, so it can never take a live shard's tokens.
 *
 * Why delete instead of namespacing them too: the token hash is one key per shard, so deleting
 * it is O(1) in the shard's own slot, and a claim on a re-created stream or a re-added shard then
 * finds no epoch of the dead incarnation to be refused by. The idempotency markers are many keys
 * and are namespaced instead (`idempotent-publish.ts`); deleting the incarnation key is what
 * makes them unreachable.
 *
 * A stream delete with provisioning off keeps the shard keys (the operator owns them) and their
 * incarnation (the markers still describe records of those streams), but the tokens go even so:
 * the stream's groups start their epochs again at 1 when it is created again. That call passes
 * only the token key and ARGV[1] = `kept`.
 *
 * KEYS[1] shard stream key; KEYS[2..] the keys to delete (`shardSideKeys`, or the token key)
 * ARGV[1] `kept` to delete them whether or not the stream key exists; absent otherwise
 * Returns 1 cleared (or nothing was there), 0 the stream key exists (nothing done).
 */
import { incarnationKey } from './idempotent-publish.js';
import type { LuaScript } from './lua-script.js';
import { ownerKey } from './shard-owner.js';

const lua = `if ARGV[1] ~= 'kept' and redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
if #KEYS > 1 then
  redis.call('DEL', unpack(KEYS, 2))
end
return 1
`;

/** Deletes the keys kept beside a shard whose stream key is gone (or only its tokens, when it stays). */
export const CLEAR_SHARD_KEYS: LuaScript = {
  name: 'clear-shard-keys',
  lua,
  sha1: '2abb7eeac7a9bb708acf29c1dcbe022041a3e624',
};

/** The keys kept beside shard `streamKey` in its Cluster slot: fenced-ack tokens, idempotency incarnation. */
export function shardSideKeys(streamKey: string): string[] {
  return [ownerKey(streamKey), incarnationKey(streamKey)];
}

/** KEYS and ARGV of the script for `streamKey`: every side key once it is gone, or only its tokens when it stays. */
export function clearShardKeysCall(
  streamKey: string,
  streamKept: boolean,
): { keys: string[]; args: string[] } {
  return streamKept
    ? { keys: [streamKey, ownerKey(streamKey)], args: ['kept'] }
    : { keys: [streamKey, ...shardSideKeys(streamKey)], args: [] };
}
