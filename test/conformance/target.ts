/**
 * What a conformance scenario runs against: one coordinator deployment (the Node adapter or
 * the built Worker), reached over HTTP, with a raw client on the same Redis for arranging and
 * checking, and a way to run the runtime's own scheduled housekeeping.
 */
import type { Redis } from 'ioredis';

/** Test timings every target runs with (heartbeat 500 ms, lease 3 s, as the brief asks). */
export const TIMINGS = {
  COORDINATOR_HEARTBEAT_INTERVAL_MS: '500',
  COORDINATOR_MEMBER_LEASE_TTL_MS: '3000',
  COORDINATOR_REBALANCE_TIMEOUT_MS: '10000',
} as const;

/** Lease TTL of `TIMINGS`, ms. */
export const LEASE_MS = 3000;

/** A response as scenarios look at it. */
export interface TargetResponse {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: scenarios index JSON bodies freely.
  body: any;
}

/** One running deployment under test. */
export interface ConformanceTarget {
  /** Which adapter serves the requests. */
  readonly runtime: 'node' | 'worker';
  /** The coordinator's key namespace (`COORDINATOR_KEY_PREFIX`). */
  readonly namespace: string;
  /** Sends one request; `body` is JSON-encoded unless it is a string. */
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<TargetResponse>;
  /** A raw RESP2 client on the Redis the deployment uses. */
  readonly redis: Redis;
  /**
   * Runs housekeeping as the runtime schedules it, with `now` as its clock: the Node sweep
   * (`Coordinator.sweep`, what the interval loop calls) or the Worker's `scheduled` handler.
   */
  triggerSweep(now?: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts a target with extra env variables / bindings (merged over `TIMINGS`). */
export type TargetFactory = (config?: Record<string, string>) => Promise<ConformanceTarget>;

/** Parses a fetch Response into a TargetResponse (JSON when possible, else text, null when empty). */
export async function toTargetResponse(res: Response): Promise<TargetResponse> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    // keep the text
  }
  return { status: res.status, headers: res.headers, body };
}

/** RequestInit for `call`. */
export function requestInit(
  method: string,
  body: unknown,
  headers: Record<string, string> = {},
): RequestInit {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.headers = { 'content-type': 'application/json', ...headers };
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
  }
  return init;
}
