/**
 * Process and runtime metrics of the Node service, named as prom-client's default metrics
 * (`process_*`, `nodejs_*`) so existing Node dashboards and alerts find them. Hand-written from
 * node:process, node:perf_hooks and node:v8 into our own registry (prom-client would bring a
 * second registry and global state for a dozen gauges). Read at scrape time.
 */
import { readdirSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import type { MetricsRegistry } from '../src/metrics/registry.js';

const startTimeSeconds = Math.round(Date.now() / 1000 - process.uptime());

/** Declares the process/runtime metrics on `registry` and fills them before each render. */
export function registerProcessMetrics(registry: MetricsRegistry): void {
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
    help: 'Mean event-loop delay since the last scrape, seconds.',
  });
  const lagMax = registry.gauge({
    name: 'nodejs_eventloop_lag_max_seconds',
    help: 'Largest event-loop delay since the last scrape, seconds.',
  });
  const lagP99 = registry.gauge({
    name: 'nodejs_eventloop_lag_p99_seconds',
    help: '99th percentile of the event-loop delay since the last scrape, seconds.',
  });
  const handles = registry.gauge({
    name: 'nodejs_active_resources_total',
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

  const delay = monitorEventLoopDelay({ resolution: 20 });
  delay.enable();

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
    const ns = (v: number) => (Number.isFinite(v) ? v / 1e9 : 0);
    lagMean.set(undefined, ns(delay.mean));
    lagMax.set(undefined, ns(delay.max));
    lagP99.set(undefined, ns(delay.percentile(99)));
    delay.reset();
    handles.reset();
    const counts = new Map<string, number>();
    for (const t of process.getActiveResourcesInfo()) counts.set(t, (counts.get(t) ?? 0) + 1);
    for (const [type, n] of counts) handles.set({ type }, n);
  });
}

function openFds(): number {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return 0;
  }
}
