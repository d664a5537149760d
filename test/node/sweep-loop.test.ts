import { describe, expect, it, vi } from 'vitest';
import type { LogFn } from '../../node/logger.js';
import { type SweepSummary, startSweepLoop } from '../../node/sweep-loop.js';

const quiet = { streams: 1, groupsChanged: 0, skippedBusy: 0 } satisfies SweepSummary;

function recorder(): { log: LogFn; lines: Array<{ level: string; msg: string }> } {
  const lines: Array<{ level: string; msg: string }> = [];
  return { lines, log: (level, msg) => lines.push({ level, msg }) };
}

describe('node adapter > sweep interval', () => {
  it('never runs two sweeps at once, even when a sweep outlasts the interval', async () => {
    let active = 0;
    let maxActive = 0;
    let calls = 0;
    const release: Array<() => void> = [];
    const loop = startSweepLoop({
      intervalMs: 1,
      log: recorder().log,
      sweep: async () => {
        calls++;
        active++;
        maxActive = Math.max(maxActive, active);
        await new Promise<void>((r) => release.push(r));
        active--;
        return quiet;
      },
    });
    for (let i = 0; i < 3; i++) {
      await vi.waitFor(() => expect(release.length).toBe(i + 1));
      // While one sweep is held open, no second one may start.
      await new Promise((r) => setTimeout(r, 5));
      expect(calls).toBe(i + 1);
      release[i]!();
    }
    await loop.stop();
    expect(maxActive).toBe(1);
  });

  it('logs a failing sweep and keeps going', async () => {
    const { log, lines } = recorder();
    let calls = 0;
    const loop = startSweepLoop({
      intervalMs: 1,
      log,
      sweep: async () => {
        calls++;
        if (calls <= 2) throw new Error('redis down');
        return quiet;
      },
    });
    await vi.waitFor(() => expect(calls).toBeGreaterThanOrEqual(4));
    await loop.stop();
    // The first failure of a streak is an error, repeats are quieter, recovery is announced.
    expect(lines.filter((l) => l.msg === 'sweep failed').map((l) => l.level)).toEqual(['error', 'debug']);
    expect(lines.some((l) => l.msg === 'sweep recovered')).toBe(true);
  });

  it('passes the clock reading to the sweep', async () => {
    const seen: number[] = [];
    const loop = startSweepLoop({
      intervalMs: 1,
      log: recorder().log,
      now: () => 42,
      sweep: async (now) => {
        seen.push(now);
        return quiet;
      },
    });
    await vi.waitFor(() => expect(seen.length).toBeGreaterThan(0));
    await loop.stop();
    expect(seen.every((n) => n === 42)).toBe(true);
  });

  it('stop() waits for the sweep in progress and no sweep starts afterwards', async () => {
    let finish: (() => void) | undefined;
    let finished = false;
    let calls = 0;
    const loop = startSweepLoop({
      intervalMs: 1,
      log: recorder().log,
      sweep: async () => {
        calls++;
        await new Promise<void>((r) => {
          finish = r;
        });
        finished = true;
        return quiet;
      },
    });
    await vi.waitFor(() => expect(finish).toBeDefined());
    const stopped = loop.stop();
    setTimeout(() => finish!(), 5);
    await stopped;
    expect(finished).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    expect(calls).toBe(1);
  });
});
