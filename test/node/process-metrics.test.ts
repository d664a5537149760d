/**
 * The process and runtime series of the Node service (docs/metrics.md#metrics): the event-loop
 * delay figures describe the last complete window, so a scrape — by any number of Prometheus
 * replicas, on either endpoint — never resets them.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { registerProcessMetrics } from '../../node/process-metrics.js';
import { MetricsRegistry } from '../../src/metrics/registry.js';
import { parseExposition, sampleValue } from '../support/exposition.js';

const FIGURES = ['mean', 'max', 'p99'] as const;

/** The event-loop delay figures of one scrape. */
async function loopFigures(registry: MetricsRegistry): Promise<Record<string, number | undefined>> {
  const m = parseExposition(await registry.render());
  return Object.fromEntries(FIGURES.map((f) => [f, sampleValue(m, `nodejs_eventloop_lag_${f}_seconds`)]));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Holds the event loop for `ms` (once the delay monitor has ticked), then lets the monitor record it. */
async function stall(ms: number): Promise<void> {
  await sleep(50);
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy: nothing else runs
  }
  await sleep(50);
}

afterEach(() => {
  vi.useRealTimers();
});

describe('process metrics > event-loop delay', () => {
  it('reports the last complete window: two scrapes in a row read the same figures', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const registry = new MetricsRegistry();
    const proc = registerProcessMetrics([registry]);
    try {
      await stall(80);
      vi.advanceTimersToNextTimer(); // the window closes
      const first = await loopFigures(registry);
      const second = await loopFigures(registry);
      expect(first.max).toBeGreaterThanOrEqual(0.04);
      expect(second).toEqual(first);
    } finally {
      proc.stop();
    }
  });

  it('shows the same window on every registry it is registered on (both scrape endpoints)', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const [a, b] = [new MetricsRegistry(), new MetricsRegistry()];
    const proc = registerProcessMetrics([a, b]);
    try {
      await stall(60);
      vi.advanceTimersToNextTimer();
      const fromA = await loopFigures(a);
      expect(await loopFigures(b)).toEqual(fromA);
      expect(await loopFigures(a)).toEqual(fromA);
    } finally {
      proc.stop();
    }
  });
});

describe('process metrics > names', () => {
  it('counts active resources by type in a gauge whose name does not end in _total', async () => {
    const registry = new MetricsRegistry();
    const proc = registerProcessMetrics([registry]);
    try {
      const m = parseExposition(await registry.render());
      expect(m.types.get('nodejs_active_resources')).toBe('gauge');
      expect(m.types.has('nodejs_active_resources_total')).toBe(false);
      expect(m.samples.some((s) => s.name === 'nodejs_active_resources' && s.labels.type !== undefined)).toBe(
        true,
      );
    } finally {
      proc.stop();
    }
  });
});
