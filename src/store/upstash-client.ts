/**
 * The @upstash/redis client the Worker store uses, with every option chosen on purpose.
 * Imports the `cloudflare` entry: plain `fetch`, no `process.env`, no Node built-ins, and it
 * works unchanged on Node (tests talk to a local REST bridge with it).
 */
import { Redis } from '@upstash/redis/cloudflare';
import type { UpstashClientLike } from '../redis/upstash-port.js';

/** Where the Upstash REST endpoint is and how to authenticate. */
export interface UpstashClientOptions {
  /** `UPSTASH_REDIS_REST_URL` (https://…; http://127.0.0.1:… for a local bridge). */
  url: string;
  /** `UPSTASH_REDIS_REST_TOKEN`. */
  token: string;
  /** Network-error retries per command. @default 2 */
  retries?: number;
}

/** The commands of an @upstash/redis client the store and the inspector send (a real `Redis` satisfies it). */
export type UpstashCommands = UpstashClientLike;

/** Builds the client with the options the store relies on. */
export function createUpstashClient(opts: UpstashClientOptions): Redis {
  const retries = opts.retries ?? 2;
  return new Redis({
    url: opts.url,
    token: opts.token,
    // Stream fields, documents and Lua replies must stay the exact strings Redis holds; the
    // default would JSON-parse anything that looks like JSON or a number.
    automaticDeserialization: false,
    // Each call is one request we count and reason about (one steady heartbeat = one EVALSHA;
    // the sweep budgets Worker subrequests per call). Auto-pipelining would batch calls across
    // concurrent requests behind our back and make one failure fail unrelated commands.
    enableAutoPipelining: false,
    // A few quick retries, on network errors only (Redis error replies are never retried). The
    // default (5 retries, exponential, ~4 s) would hold a stream's mutex that long, spend up to
    // 6 subrequests per command, and outlast the member's own retry at its next heartbeat.
    // Commands stay correct when retried: scripts are compare-and-set, and a lock SET whose
    // first response was lost merely looks busy until its TTL.
    retry: retries === 0 ? false : { retries, backoff: (n) => 40 * 2 ** n },
    // No telemetry headers: requests carry only what the protocol needs.
    enableTelemetry: false,
  });
}
