import type { CoordinatorError } from '../core/errors.js';
import { streamsIndexKey, tokenSecretKey } from './keys.js';
import { runScript, type ScriptRunner } from './run-script.js';
import { ScriptStore } from './script-store.js';
import { ACQUIRE_LOCK } from './scripts/acquire-lock.js';
import { CLEAR_SHARD_KEYS } from './scripts/clear-shard-keys.js';
import { COMMIT } from './scripts/commit.js';
import type { ScriptCall } from './scripts/commit-args.js';
import { DELETE_SHARD } from './scripts/delete-shard.js';
import { DUE_CLAIM, DUE_MARK, DUE_SEED, DUE_SETTLE } from './scripts/due-index.js';
import { ASSIGNMENT_READ, DUE_READ, GROUP_RECORDS, MEMBERS_READ } from './scripts/group-reads.js';
import { LOAD } from './scripts/load.js';
import type { LuaScript } from './scripts/lua-script.js';
import { MEMBER_READ } from './scripts/member-read.js';
import { PROVISION } from './scripts/provision.js';
import { PROVISION_EXISTING } from './scripts/provision-existing.js';
import { REGISTER_STREAM } from './scripts/register-stream.js';
import { RELEASE_LOCK } from './scripts/release-lock.js';
import { RENEW_LOCK } from './scripts/renew-lock.js';
import { RETIRE_SHARD } from './scripts/retire-shard.js';
import { SHARD_EVIDENCE } from './scripts/shard-evidence.js';
import type { PingOutcome, ShardOps, Store } from './store.js';
import type { UpstashCommands } from './upstash-client.js';
import { upstashFailure, upstashPingError } from './upstash-errors.js';
import { keyLockingPicker, upstashScriptRunner } from './upstash-script.js';

/**
 * The store's scripts that touch only the keys they are passed (no key name built in Lua), so
 * they may run under Upstash's per-key locks: the locks, the group reads, the whole load, the
 * commit, the streams index, the due index and the shard scripts. Not the sweep's stream probe: it names each
 * group's keys itself from the stream's heartbeat view. The member read and the commit also call
 * INFO, which names no key and which they call under pcall (where it is refused, no restart is
 * detected, as before). A script not listed runs under the global lock, so a new one is safe
 * until it is checked and added here.
 */
const DECLARING: ReadonlySet<LuaScript> = new Set([
  ACQUIRE_LOCK,
  RENEW_LOCK,
  RELEASE_LOCK,
  LOAD,
  MEMBER_READ,
  ASSIGNMENT_READ,
  MEMBERS_READ,
  DUE_READ,
  GROUP_RECORDS,
  COMMIT,
  REGISTER_STREAM,
  PROVISION,
  PROVISION_EXISTING,
  SHARD_EVIDENCE,
  RETIRE_SHARD,
  DELETE_SHARD,
  CLEAR_SHARD_KEYS,
  DUE_MARK,
  DUE_CLAIM,
  DUE_SETTLE,
  DUE_SEED,
]);

/** Options of UpstashStore. */
export interface UpstashStoreOptions {
  /** Key namespace `K` (config `keyPrefix`). */
  namespace: string;
  /** Called once per REST request (each one is a Worker subrequest). @default no-op */
  onRequest?: () => void;
  /** How long `ping()` waits before answering false. @default 1000 */
  pingTimeoutMs?: number;
  /**
   * Run the scripts that declare every key with Upstash's `allow-key-locking` flag, so scripts of
   * different streams run in parallel (docs/workers.md#upstash-key-locking). Real Redis refuses
   * the flag. @default false
   */
  keyLocking?: boolean;
}

/** Store implementation over one @upstash/redis client. */
export class UpstashStore extends ScriptStore implements Store, Required<ShardOps> {
  private readonly client: UpstashCommands;
  protected readonly ns: string;
  /** Upstash runs a script over keys of any slot (it is not a Cluster). */
  protected readonly oneSlot = true;
  private readonly onRequest: () => void;
  private readonly pingTimeoutMs: number;
  private readonly scripts: ScriptRunner;
  private readonly variant: (script: LuaScript) => LuaScript;

  constructor(client: UpstashCommands, options: UpstashStoreOptions) {
    super();
    this.client = client;
    this.ns = options.namespace;
    this.onRequest = options.onRequest ?? (() => undefined);
    this.pingTimeoutMs = options.pingTimeoutMs ?? 1000;
    this.scripts = upstashScriptRunner(client, this.onRequest);
    this.variant = keyLockingPicker(options.keyLocking ?? false, DECLARING);
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    this.onRequest();
    try {
      return await fn();
    } catch (err) {
      throw upstashFailure(err);
    }
  }

  protected failure(err: unknown): CoordinatorError {
    return upstashFailure(err);
  }

  protected async script(script: LuaScript, c: ScriptCall): Promise<unknown> {
    try {
      return await runScript(this.scripts, this.variant(script), c.keys, c.args);
    } catch (err) {
      throw upstashFailure(err);
    }
  }

  async listStreams(): Promise<string[]> {
    const members = await this.call(() => this.client.smembers<string[]>(streamsIndexKey(this.ns)));
    return (Array.isArray(members) ? members.map(String) : []).sort();
  }

  async unregisterStream(prefix: string): Promise<void> {
    await this.call(() => this.client.srem(streamsIndexKey(this.ns), prefix));
  }

  async tokenSecret(candidate: string): Promise<string> {
    const key = tokenSecretKey(this.ns);
    // NX: the first instance's candidate wins; everyone then reads the winner.
    await this.call(() => this.client.set(key, candidate, { nx: true }));
    const stored = await this.call(() => this.client.get<string>(key));
    if (typeof stored !== 'string' || stored === '')
      throw this.failure(new Error('token secret missing after SET NX'));
    return stored;
  }

  async countExisting(keys: string[]): Promise<number> {
    if (keys.length === 0) return 0;
    // One EXISTS for all keys: Upstash is not slot-partitioned towards the client.
    return Number(await this.call(() => this.client.exists(...keys)));
  }

  async ping(): Promise<boolean> {
    return (await this.pingOutcome()).ok;
  }

  async pingOutcome(): Promise<PingOutcome> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('ping timed out')), this.pingTimeoutMs);
    });
    try {
      // Any reply proves reachability: the client's decoding of PONG is not compared.
      this.onRequest();
      await Promise.race([this.client.ping(), timeout]);
      return { ok: true };
    } catch (err) {
      return { ok: false, error: upstashPingError(err) };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Nothing to close: every call is a stateless HTTPS request. */
  async close(): Promise<void> {}
}
