/**
 * The store's operations on one shard stream (docs/protocol.md#resharding): provisioning its
 * consumer groups, reading drain evidence, retiring or deleting it, clearing the keys kept
 * beside it. Each is one script on the shard's own key, run through the store's script runner.
 */
import type { RetireOutcome, ShardReading } from '../core/drain-evidence.js';
import { CoordinatorError } from '../core/errors.js';
import { CLEAR_SHARD_KEYS, clearShardKeysCall, shardSideKeys } from './scripts/clear-shard-keys.js';
import type { ScriptCall } from './scripts/commit-args.js';
import { DELETE_SHARD } from './scripts/delete-shard.js';
import type { LuaScript } from './scripts/lua-script.js';
import { PROVISION } from './scripts/provision.js';
import { PROVISION_EXISTING } from './scripts/provision-existing.js';
import { RETIRE_SHARD } from './scripts/retire-shard.js';
import { decodeProvisionExisting, decodeRetireReply, decodeShardReading } from './scripts/shard-args.js';
import { SHARD_EVIDENCE } from './scripts/shard-evidence.js';
import type { ShardDeletion } from './store.js';

/** The shard scripts over a script runner that maps failures to `CoordinatorError`. */
export class RedisShardOps {
  constructor(
    private readonly script: (script: LuaScript, c: ScriptCall) => Promise<unknown>,
    private readonly failure: (err: unknown) => CoordinatorError,
  ) {}

  /** Creates `group` on `streamKey` at the tail (BUSYGROUP is success). */
  async provision(streamKey: string, group: string): Promise<void> {
    const reply = await this.script(PROVISION, { keys: [streamKey], args: [group] });
    const [code, text] = Array.isArray(reply) ? reply : [];
    if (Number(code) === 1 || Number(code) === 2) return;
    throw provisioningFailed(streamKey, group, String(text ?? 'unexpected reply'));
  }

  /** Creates `group` on `streamKey` only if the key exists; false when it does not. */
  async provisionExisting(streamKey: string, group: string): Promise<boolean> {
    const r = decodeProvisionExisting(
      await this.script(PROVISION_EXISTING, { keys: [streamKey], args: [group] }),
    );
    if (typeof r === 'boolean') return r;
    throw provisioningFailed(streamKey, group, r.error);
  }

  /** Drain evidence of one shard; a failed read is never evidence. */
  async readShard(streamKey: string): Promise<ShardReading> {
    try {
      return decodeShardReading(await this.script(SHARD_EVIDENCE, { keys: [streamKey], args: [] }));
    } catch (err) {
      return { kind: 'error', message: this.failure(err).message };
    }
  }

  /** Re-checks the evidence and deletes the shard key in one script. */
  async retireShard(streamKey: string, managedGroups: readonly string[]): Promise<RetireOutcome> {
    try {
      return decodeRetireReply(
        await this.script(RETIRE_SHARD, { keys: [streamKey], args: [...managedGroups] }),
      );
    } catch (err) {
      return { kind: 'error', message: this.failure(err).message };
    }
  }

  /** Deletes the shard key whatever it holds, if it is a stream (a forced stream delete), and its side keys. */
  async deleteShard(streamKey: string): Promise<ShardDeletion> {
    const keys = [streamKey, ...shardSideKeys(streamKey)];
    const reply = Number(await this.script(DELETE_SHARD, { keys, args: [] }));
    if (reply === 1) return 'deleted';
    if (reply === 2) return 'absent';
    return 'not-a-stream';
  }

  /** Deletes the keys kept beside a shard whose stream key is gone (`streamKept`: its tokens only); false while the key exists. */
  async clearShardKeys(streamKey: string, streamKept = false): Promise<boolean> {
    const reply = await this.script(CLEAR_SHARD_KEYS, clearShardKeysCall(streamKey, streamKept));
    return Number(reply) === 1;
  }
}

function provisioningFailed(streamKey: string, group: string, reason: string): CoordinatorError {
  return new CoordinatorError(
    'REDIS_STREAM_PROVISIONING_FAILED',
    `could not create consumer group "${group}" on stream "${streamKey}": ${reason}`,
  );
}
