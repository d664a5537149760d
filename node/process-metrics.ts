/**
 * Process and runtime metrics of the Node service, named as prom-client's default metrics
 * (`process_*`, `nodejs_*`) so existing Node dashboards and alerts find them — except where
 * prom-client's break the naming conventions or depend on who scrapes (docs/metrics.md#metrics):
 * resources by type are `nodejs_active_resources` (a gauge: no `_total`), and the event-loop
 * delay figures describe the last complete window rather than "since the last scrape", so two
 * Prometheus replicas, or both scrape endpoints, read the same numbers. Hand-written from
 * node:process, node:perf_hooks and node:v8 (docs/metrics.md#why-not-prom-client).
 */
import { readdirSync } from 'node:fs';
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import type { MetricsRegistry } from '../src/metrics/registry.js';

const startTimeSeconds = Math.round(Date.now() / 1000 - process.uptime());

/** Length of one event-loop delay window (docs/metrics.md#event-loop-delay), ms. */
const LOOP_WINDOW_MS = 60_000;

/** The running process metrics: `stop()` ends the event-loop monitor and its window timer. */
export interface ProcessMetrics {
  stop(): void;
}

/**
 * Declares the process/runtime metrics on every registry of `registries` (each scrape endpoint
 * has its own) over one event-loop monitor, and fills them before each render.
 */
export function registerProcessMetrics(registries: readonly MetricsRegistry[]): ProcessMetrics {
  const loop = new EventLoopWindow(LOOP_WINDOW_MS);
  for (const registry of registries) declare(registry, loop);
  return { stop: () => loop.stop() };
}

/** Event-loop delay over one window, seconds. */
interface LoopFigures {
  mean: number;
  max: number;
  p99: number;
}

/**
 * A `monitorEventLoopDelay` histogram closed and reset by a timer every `windowMs`: readers get
 * the last complete window (the window so far until the first one closes), never a reset.
 */
class EventLoopWindow {
  private readonly delay: IntervalHistogram = monitorEventLoopDelay({ resolution: 20 });
  private readonly timer: ReturnType<typeof setInterval>;
  private last: LoopFigures | null = null;

  constructor(windowMs: number) {
    this.delay.enable();
    this.timer = setInterval(() => {
      this.last = figures(this.delay);
      this.delay.reset();
    }, windowMs);
    this.timer.unref();
  }

  /** The last complete window's figures. */
  figures(): LoopFigures {
    return this.last ?? figures(this.delay);
  }

  stop(): void {
    clearInterval(this.timer);
    this.delay.disable();
  }
}

function figures(h: IntervalHistogram): LoopFigures {
  // An empty histogram answers NaN (mean) or a huge sentinel; report 0 for "no delay seen".
  const s = (ns: number) => (h.count > 0 && Number.isFinite(ns) ? ns / 1e9 : 0);
  return { mean: s(h.mean), max: s(h.max), p99: s(h.percentile(99)) };
}

function declare(registry: MetricsRegistry, loop: EventLoopWindow): void {
  const cpuUser = registry.counter({
    name: 'process_cpu_user_seconds_total',
    help: 'User CPU time spent, seconds.',
  });
  const cpuSystem = registry.counter({
    name: 'process_cpu_system_seconds_total',
    help: 'System CPU time spent, seconds.',
  });
  const cpuTotal = registry.counter({
    name: 'process_cpu_seconds_total',
    help: 'User and system CPU time spent, seconds.',
  });
  const start = registry.gauge({
    name: 'process_start_time_seconds',
    help: 'Start time of the process since the Unix epoch, seconds.',
  });
  const rss = registry.gauge({ name: 'process_resident_memory_bytes', help: 'Resident memory size, bytes.' });
  const fds = registry.gauge({
    name: 'process_open_fds',
    help: 'Open file descriptors (Linux; 0 elsewhere).',
  });
  const heapTotal = registry.gauge({ name: 'nodejs_heap_size_total_bytes', help: 'V8 heap size, bytes.' });
  const heapUsed = registry.gauge({ name: 'nodejs_heap_size_used_bytes', help: 'V8 heap used, bytes.' });
  const external = registry.gauge({
    name: 'nodejs_external_memory_bytes',
    help: 'Memory of C++ objects bound to JavaScript objects, bytes.',
  });
  const spaceUsed = registry.gauge({
    name: 'nodejs_heap_space_size_used_bytes',
    help: 'Used size of each V8 heap space, bytes.',
    labelNames: ['space'],
  });
  const lagMean = registry.gauge({
    name: 'nodejs_eventloop_lag_mean_seconds',
    help: 'Mean event-loop delay over the last complete window (60 s), seconds.',
  });
  const lagMax = registry.gauge({
    name: 'nodejs_eventloop_lag_max_seconds',
    help: 'Largest event-loop delay in the last complete window (60 s), seconds.',
  });
  const lagP99 = registry.gauge({
    name: 'nodejs_eventloop_lag_p99_seconds',
    help: '99th percentile of the event-loop delay over the last complete window (60 s), seconds.',
  });
  const resources = registry.gauge({
    name: 'nodejs_active_resources',
    help: 'Resources keeping the event loop alive (process.getActiveResourcesInfo), by type.',
    labelNames: ['type'],
  });
  const version = registry.gauge({
    name: 'nodejs_version_info',
    help: 'Always 1; the version label says which Node runs.',
    labelNames: ['version'],
  });
  version.set({ version: process.version }, 1);
  start.set(undefined, startTimeSeconds);

  registry.onCollect(() => {
    const cpu = process.cpuUsage();
    for (const [c, us] of [
      [cpuUser, cpu.user],
      [cpuSystem, cpu.system],
      [cpuTotal, cpu.user + cpu.system],
    ] as const) {
      c.reset();
      c.inc(undefined, us / 1e6);
    }
    const mem = process.memoryUsage();
    rss.set(undefined, mem.rss);
    heapTotal.set(undefined, mem.heapTotal);
    heapUsed.set(undefined, mem.heapUsed);
    external.set(undefined, mem.external);
    spaceUsed.reset();
    for (const s of getHeapSpaceStatistics()) spaceUsed.set({ space: s.space_name }, s.space_used_size);
    fds.set(undefined, openFds());
    const delay = loop.figures();
    lagMean.set(undefined, delay.mean);
    lagMax.set(undefined, delay.max);
    lagP99.set(undefined, delay.p99);
    resources.reset();
    const counts = new Map<string, number>();
    for (const t of process.getActiveResourcesInfo()) counts.set(t, (counts.get(t) ?? 0) + 1);
    for (const [type, n] of counts) resources.set({ type }, n);
  });
}

function openFds(): number {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return 0;
  }
}
