import type { CoordinatorError } from '../core/errors.js';
import { streamsIndexKey, sweepCursorKey, tokenSecretKey } from './keys.js';
import { runScript, type ScriptRunner } from './run-script.js';
import { ScriptStore } from './script-store.js';
import type { ScriptCall } from './scripts/commit-args.js';
import type { LuaScript } from './scripts/lua-script.js';
import type { PingOutcome, ShardOps, Store } from './store.js';
import type { UpstashCommands } from './upstash-client.js';
import { upstashFailure, upstashPingError } from './upstash-errors.js';
import { upstashScriptRunner } from './upstash-script.js';

/** Options of UpstashStore. */
export interface UpstashStoreOptions {
  /** Key namespace `K` (config `keyPrefix`). */
  namespace: string;
  /** Called once per REST request (each one is a Worker subrequest). @default no-op */
  onRequest?: () => void;
  /** How long `ping()` waits before answering false. @default 1000 */
  pingTimeoutMs?: number;
}

/** Store implementation over one @upstash/redis client. */
export class UpstashStore extends ScriptStore implements Store, Required<ShardOps> {
  private readonly client: UpstashCommands;
  protected readonly ns: string;
  private readonly onRequest: () => void;
  private readonly pingTimeoutMs: number;
  private readonly scripts: ScriptRunner;

  constructor(client: UpstashCommands, options: UpstashStoreOptions) {
    super();
    this.client = client;
    this.ns = options.namespace;
    this.onRequest = options.onRequest ?? (() => undefined);
    this.pingTimeoutMs = options.pingTimeoutMs ?? 1000;
    this.scripts = upstashScriptRunner(client, this.onRequest);
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
      return await runScript(this.scripts, script, c.keys, c.args);
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

  // ---- Worker sweep cursor (outside the Store port) ----------------------------------------

  /** The prefix the next cron sweep starts at, or null when none was saved. */
  async readSweepCursor(): Promise<string | null> {
    const v = await this.call(() => this.client.get<string>(sweepCursorKey(this.ns)));
    return typeof v === 'string' && v !== '' ? v : null;
  }

  /** Saves the prefix the next cron sweep starts at. */
  async writeSweepCursor(prefix: string): Promise<void> {
    await this.call(() => this.client.set(sweepCursorKey(this.ns), prefix));
  }
}
