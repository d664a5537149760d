import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CoordinatorUnreachableError } from './errors.js';
import { Pause, withTimeout } from './member-timing.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function track(p: Promise<void>): { done: boolean } {
  const state = { done: false };
  void p.then(() => {
    state.done = true;
  });
  return state;
}

describe('member timing > pause', () => {
  it('runs its full length when nobody wakes it', async () => {
    const pause = new Pause(25);
    const w = track(pause.wait(1000));
    await vi.advanceTimersByTimeAsync(999);
    expect(w.done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(w.done).toBe(true);
  });

  it('ends after the minimum gap when woken', async () => {
    const pause = new Pause(25);
    const w = track(pause.wait(1000));
    await vi.advanceTimersByTimeAsync(100);
    pause.wake();
    await vi.advanceTimersByTimeAsync(25);
    expect(w.done).toBe(true);
  });

  it('remembers a wake-up that came while it was not pausing', async () => {
    const pause = new Pause(25);
    pause.wake(); // e.g. a revoke completed while a heartbeat was in flight
    const w = track(pause.wait(1000));
    await vi.advanceTimersByTimeAsync(25);
    expect(w.done).toBe(true);
    const next = track(pause.wait(1000));
    await vi.advanceTimersByTimeAsync(500);
    expect(next.done).toBe(false);
  });

  it('ends at once on endNow', async () => {
    const pause = new Pause(25);
    const w = track(pause.wait(1000));
    pause.endNow?.();
    await vi.advanceTimersByTimeAsync(0);
    expect(w.done).toBe(true);
  });
});

describe('member timing > request timeout', () => {
  it('rejects as a timed-out coordinator request', async () => {
    const p = withTimeout(new Promise<never>(() => {}), 300, 'heartbeat');
    const assertion = expect(p).rejects.toBeInstanceOf(CoordinatorUnreachableError);
    await vi.advanceTimersByTimeAsync(300);
    await assertion;
  });
});
