/**
 * What every Store does the same way whatever the Redis client: the Lua scripts with their
 * shared argument encoders and reply decoders. Concrete stores (ioredis, Upstash) supply how a
 * script runs, how a failure maps to a CoordinatorError, and the few plain commands.
 */
import type { RetireOutcome, ShardReading } from '../core/drain-evidence.js';
import { CoordinatorError } from '../core/errors.js';
import { streamKeys } from './keys.js';
import { COMMIT } from './scripts/commit.js';
import { decodeCommitReply, encodeCommit, type ScriptCall } from './scripts/commit-args.js';
import { FAST_HEARTBEAT } from './scripts/fast-heartbeat.js';
import { decodeFastHeartbeatReply, encodeFastHeartbeat } from './scripts/fast-heartbeat-args.js';
import { LOAD } from './scripts/load.js';
import { decodeLoadReply, encodeLoad } from './scripts/load-reply.js';
import type { LuaScript } from './scripts/lua-script.js';
import { PROVISION } from './scripts/provision.js';
import { PROVISION_EXISTING } from './scripts/provision-existing.js';
import { RELEASE_LOCK } from './scripts/release-lock.js';
import { RETIRE_SHARD } from './scripts/retire-shard.js';
import { decodeProvisionExisting, decodeRetireReply, decodeShardReading } from './scripts/shard-args.js';
import { SHARD_EVIDENCE } from './scripts/shard-evidence.js';
import type { CommitRequest, CommitResult, FastHeartbeatRequest, StreamSnapshot } from './store.js';

/** The script-backed half of the Store port, shared by every client. */
export abstract class ScriptStore {
  /** Key namespace `K`. */
  protected abstract readonly ns: string;

  /** Runs `script` (EVALSHA with NOSCRIPT fallback), mapping failures to CoordinatorError. */
  protected abstract script(script: LuaScript, call: ScriptCall): Promise<unknown>;

  /** Maps a client failure to a CoordinatorError without connection details. */
  protected abstract failure(err: unknown): CoordinatorError;

  /** Releases the mutex if it still holds `token` (compare-and-delete). */
  async unlock(prefix: string, token: string): Promise<void> {
    await this.script(RELEASE_LOCK, { keys: [streamKeys(this.ns, prefix).lock], args: [token] });
  }

  /** One-round-trip consistent read of a stream and its groups. */
  async load(prefix: string, groups: string[] | 'all'): Promise<StreamSnapshot | null> {
    const reply = await this.script(LOAD, encodeLoad(this.ns, prefix, groups));
    return decodeLoadReply(prefix, reply, groups);
  }

  /** Compare-and-set write of documents, leases and the fast-path fingerprint. */
  async commit(req: CommitRequest): Promise<CommitResult> {
    return decodeCommitReply(await this.script(COMMIT, encodeCommit(this.ns, req)));
  }

  /** The steady-state heartbeat in one round trip. */
  async fastHeartbeat(req: FastHeartbeatRequest): Promise<string | null> {
    return decodeFastHeartbeatReply(await this.script(FAST_HEARTBEAT, encodeFastHeartbeat(this.ns, req)));
  }

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
}

function provisioningFailed(streamKey: string, group: string, reason: string): CoordinatorError {
  return new CoordinatorError(
    'REDIS_STREAM_PROVISIONING_FAILED',
    `could not create consumer group "${group}" on stream "${streamKey}": ${reason}`,
  );
}
