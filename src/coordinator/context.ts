/**
 * What every use-case of the coordinator shares: the store, configuration, clock, logger,
 * random source, the event hook metrics subscribe to, and the tuning of its critical sections.
 */

import type { CoordinatorConfig } from '../config.js';
import type { HeartbeatStatus, ProtocolConfig } from '../core/model.js';
import type { CriticalSectionOptions } from '../store/critical-section.js';
import type { LockAttempt } from '../store/lock-lease.js';
import type { Store } from '../store/store.js';
import type { MemberChange, MigrationChange } from './lifecycle.js';

/** One-line structured logger. */
export type Logger = (
  level: 'debug' | 'info' | 'warn' | 'error',
  msg: string,
  fields?: Record<string, unknown>,
) => void;

/** Which way a heartbeat was answered: fast (one Redis round trip) or full (read and checked commit). */
export type HeartbeatPath = 'fast' | 'full';

/** What the coordinator reports as it works (metrics subscribe through `onEvent`). */
export type CoordinatorEvent =
  /** A heartbeat answered (status), or refused (the error code), for the group it addressed. */
  | {
      type: 'heartbeat';
      status: HeartbeatStatus | string;
      path: HeartbeatPath;
      streamPrefix?: string;
      consumerGroup?: string;
    }
  /** A steady heartbeat tried the fast path. */
  | { type: 'fast-path'; hit: boolean }
  /** A checked commit applied, or was refused because what it was decided on changed. */
  | { type: 'commit'; ok: boolean; scope: 'member' | 'group' | 'stream' }
  /** One attempt at a stream mutex: acquired at once, busy, or acquired after waiting `waitedMs`. */
  | ({ type: 'lock' } & LockAttempt)
  /** A housekeeping sweep ended after `ms` (monotonic), with its report, or null when it failed. */
  | { type: 'sweep'; report: SweepCounts | null; ms: number }
  /** An assignment round was decided over `members` live members, changing `changed` targets. */
  | { type: 'assignment'; members: number; changed: number }
  /** Due maintenance (expiry, deadlines, timers) of `members` members committed. */
  | { type: 'maintenance'; members: number }
  /**
   * A group was found to have lost part of its Redis state (`lost` key parts): rebuilt from its
   * member records, or refused (`rebuilt: false`) until an operator repairs it.
   */
  | { type: 'integrity'; streamPrefix: string; consumerGroup: string; lost: string[]; rebuilt: boolean }
  /** A committed change of a member's or a migration's state (lifecycle.ts writes their lines). */
  | MemberChange
  | MigrationChange;

/** What a sweep event reports (the counts of `SweepReport`). */
export interface SweepCounts {
  streams: number;
  groupsChanged: number;
  skippedBusy: number;
  /** Streams still due when the sweep ended. */
  backlog: number;
}

/** What the coordinator needs to run. */
export interface CoordinatorDeps {
  store: Store;
  config: CoordinatorConfig;
  /** Epoch-ms clock, read once per use-case. @default Date.now */
  now?: () => number;
  /** @default no-op */
  log?: Logger;
  /** Random source for jitter. @default Math.random */
  random?: () => number;
  /** Called for every event the coordinator reports. @default no-op */
  onEvent?: (event: CoordinatorEvent) => void;
  /** Monotonic ms clock for the durations events report (lock waits, sweeps). @default performance.now */
  monotonic?: () => number;
  /**
   * Redis requests the store has made so far (count them with its `onRequest` option, e.g. via
   * `requestCounter()`): the sweep's `maxCalls` budget and `SweepReport.calls` are measured with
   * it. @default none (a sweep then refuses `maxCalls` and reports 0 calls)
   */
  requestCount?: () => number;
}

/** The shared context of the use-cases. */
export interface Ctx {
  store: Store;
  config: CoordinatorConfig;
  protocol: ProtocolConfig;
  now: () => number;
  log: Logger;
  random: () => number;
  emit: (event: CoordinatorEvent) => void;
  monotonic: () => number;
  /** `emit` of a lock attempt as an event (made once per coordinator, not per section). */
  onLock: (attempt: LockAttempt) => void;
}

/** Critical-section tuning for requests (they wait for the mutex) and for the sweep (it does not). */
export function criticalOptions(ctx: Ctx, lockWaitMs: number, maxAttempts = 5): CriticalSectionOptions {
  return {
    lockWaitMs,
    lockTtlMs: ctx.config.lockTtlMs,
    maxAttempts,
    random: ctx.random,
    clock: ctx.now,
    onCommit: (ok) => ctx.emit({ type: 'commit', ok, scope: 'stream' }),
    onLock: ctx.onLock,
    monotonic: ctx.monotonic,
    maxStreams: ctx.config.maxStreams,
  };
}

/** A short random pause before retrying a conflicting commit (a few milliseconds, growing). */
export function backoff(ctx: Ctx, attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.floor(ctx.random() * 4 * attempt)));
}

/** `Error: message` text of anything thrown. */
export function errorText(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}
