/**
 * Test helpers for talking to the private Redis servers started by global-setup.ts.
 * Suites share the servers, so isolation comes from unique key prefixes — never FLUSHALL.
 */
import { randomBytes } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { inject } from 'vitest';

/** `host:port` list of the private Cluster, as ioredis startup nodes. */
export function clusterNodes(): Array<{ host: string; port: number }> {
  return inject('redisClusterNodes')
    .split(',')
    .map((hp) => {
      const i = hp.lastIndexOf(':');
      return { host: hp.slice(0, i), port: Number(hp.slice(i + 1)) };
    });
}

/** A new ioredis client on the private standalone server (RESP2, no retries that hide failures). */
export function standaloneClient(): Redis {
  return new Redis(inject('redisUrl'), { protocol: 2, maxRetriesPerRequest: 1 });
}

/** A new ioredis Cluster client on the private 6-node Cluster (RESP2). */
export function clusterClient(): Cluster {
  return new Cluster(clusterNodes(), { redisOptions: { protocol: 2, maxRetriesPerRequest: 1 } });
}

/** A prefix no other test uses, so suites can share one server without flushing it. */
export function uniquePrefix(name: string): string {
  return `t-${name}-${randomBytes(6).toString('hex')}`;
}

/** One backend the store tests run against. */
export interface Backend {
  name: 'standalone' | 'cluster';
  make: () => Redis | Cluster;
}

/** Both backends, for `describe.each(backends)('... ($name)', ...)`. */
export const backends: Backend[] = [
  { name: 'standalone', make: standaloneClient },
  { name: 'cluster', make: clusterClient },
];

/** Calls `fn` once per backend, e.g. to declare one `describe` block each. */
export function forEachBackend(fn: (backend: Backend) => void): void {
  for (const b of backends) fn(b);
}
