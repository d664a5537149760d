/**
 * Throttling of failed password checks, in memory per instance: fixed one-minute
 * windows of failures per client address and per username. A client over its budget is refused
 * before any password is checked; a username over its budget is refused to every client except
 * those it accepted recently (so an attack on a username does not lock out the members already
 * using it). Unknown usernames count per name like known ones, so a 429 says nothing about
 * whether a name exists. Memory is bounded: windows are forgotten as a whole, and names beyond
 * `MAX_KEYS` in one window share an overflow bucket.
 */

import { CoordinatorError } from '../../core/errors.js';

const WINDOW_MS = 60_000;
/** Distinct clients (or usernames) counted per window before the overflow bucket. */
const MAX_KEYS = 10_000;
/** How long a client stays exempt from its username's budget after a success, ms. */
const TRUSTED_MS = 15 * 60_000;
/** Remembered (client, username) successes. */
const MAX_TRUSTED = 10_000;
const OVERFLOW = '\u0000overflow';

/**
 * A password check refused without being made: 429 with `Retry-After` — `LOGIN_THROTTLED` (too
 * many failures) or `AUTHENTICATION_BUSY` (too many checks at once).
 */
function loginRefused(
  code: 'LOGIN_THROTTLED' | 'AUTHENTICATION_BUSY',
  retryAfterSeconds: number,
): CoordinatorError {
  const message =
    code === 'LOGIN_THROTTLED'
      ? 'Too many failed logins; retry later'
      : 'Too many password checks at once; retry';
  return new CoordinatorError(code, message, { details: { retryAfterSeconds } });
}

/** Failure counts of one window, bounded in size. */
class FailureWindow {
  private window = -1;
  private readonly counts = new Map<string, number>();

  constructor(private readonly limit: number) {}

  /** Seconds until the window ends when `key` is over its budget, else null. */
  refusal(key: string, nowMs: number): number | null {
    if (this.limit <= 0) return null;
    this.roll(nowMs);
    const count = this.counts.get(key) ?? this.counts.get(OVERFLOW) ?? 0;
    if (count < this.limit) return null;
    return Math.max(1, Math.ceil(((this.window + 1) * WINDOW_MS - nowMs) / 1000));
  }

  record(key: string, nowMs: number): void {
    if (this.limit <= 0) return;
    this.roll(nowMs);
    const k = this.counts.has(key) || this.counts.size < MAX_KEYS ? key : OVERFLOW;
    this.counts.set(k, (this.counts.get(k) ?? 0) + 1);
  }

  private roll(nowMs: number): void {
    const window = Math.floor(nowMs / WINDOW_MS);
    if (window === this.window) return;
    this.window = window;
    this.counts.clear();
  }
}

/** Budgets of `LoginThrottle`, failures per minute; 0 = off. */
export interface LoginThrottleLimits {
  perClient: number;
  perUser: number;
}

/** Decides whether a password check may run, and learns from its outcome. */
export class LoginThrottle {
  private readonly byClient: FailureWindow;
  private readonly byUser: FailureWindow;
  /** `client \0 username` → until when that client is exempt from the username's budget. */
  private readonly trusted = new Map<string, number>();

  constructor(limits: LoginThrottleLimits) {
    this.byClient = new FailureWindow(limits.perClient);
    this.byUser = new FailureWindow(limits.perUser);
  }

  /** Throws `loginRefused(…)` when `client` (null = unknown) may not try `username` now. */
  check(client: string | null, username: string, nowMs: number): void {
    const clientWait = client === null ? null : this.byClient.refusal(client, nowMs);
    if (clientWait !== null) throw loginRefused('LOGIN_THROTTLED', clientWait);
    if (client !== null && (this.trusted.get(trustKey(client, username)) ?? 0) > nowMs) return;
    const userWait = this.byUser.refusal(username, nowMs);
    if (userWait !== null) throw loginRefused('LOGIN_THROTTLED', userWait);
  }

  /** A password check failed. */
  failed(client: string | null, username: string, nowMs: number): void {
    if (client !== null) this.byClient.record(client, nowMs);
    this.byUser.record(username, nowMs);
  }

  /** A password check succeeded: the client is exempt from the username's budget for a while. */
  succeeded(client: string | null, username: string, nowMs: number): void {
    if (client === null) return;
    const key = trustKey(client, username);
    this.trusted.delete(key);
    if (this.trusted.size >= MAX_TRUSTED) {
      const oldest = this.trusted.keys().next().value;
      if (oldest !== undefined) this.trusted.delete(oldest);
    }
    this.trusted.set(key, nowMs + TRUSTED_MS);
  }
}

function trustKey(client: string, username: string): string {
  return `${client}\u0000${username}`;
}

/** A counter of work running at once that refuses, rather than queues, beyond its limit. */
export class ConcurrencyGate {
  private running = 0;

  constructor(private readonly limit: number) {}

  /** Runs `work` when a slot is free; throws `loginRefused('AUTHENTICATION_BUSY', 1)` otherwise. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) throw loginRefused('AUTHENTICATION_BUSY', 1);
    this.running++;
    try {
      return await work();
    } finally {
      this.running--;
    }
  }
}
