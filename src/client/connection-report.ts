/**
 * How the SDKs report what nobody listens for: an ioredis client's connection errors (without a
 * listener ioredis prints a stack trace per reconnection attempt) and the consumer's `error`
 * events, in one line on `console.warn`, at most one every 30 s with a count of those left out
 * (docs/producing.md, docs/consuming.md#when-the-consumers-redis-is-unreachable). Also how an
 * error message names a client's server: host and port only, never a URL or a password.
 */
import type { IoredisClient } from '../redis/ioredis-port.js';

/** Milliseconds between two default reports. */
const REPORT_EVERY_MS = 30_000;

/** One line for `console.warn` about `value`, given how many were left out since the last one. */
type ReportLine = (value: unknown, more: string) => string;

/** Calls `line` on `console.warn` at most once every 30 s, counting those left out. */
export function rateLimitedWarn(line: ReportLine, now: () => number = Date.now): (value: unknown) => void {
  let last = Number.NEGATIVE_INFINITY;
  let skipped = 0;
  return (value) => {
    const t = now();
    if (t - last < REPORT_EVERY_MS) {
      skipped++;
      return;
    }
    const more = skipped > 0 ? ` (${skipped} more since the last report)` : '';
    console.warn(`[redis-stream-coordinator] ${line(value, more)}`);
    last = t;
    skipped = 0;
  };
}

/** A rate-limited one-line report of `who`'s (`producer's`, `consumer's`) connection errors. */
export function reportConnectionErrors(who: string): (err: unknown) => void {
  return rateLimitedWarn((err, more) => {
    const why = err instanceof Error ? err.message : String(err);
    return `${who} Redis connection failed: ${why}${more}`;
  });
}

/** `host:port` of a standalone client, the first seeds of a Cluster: never a URL or a password. */
export function serverAddress(client: IoredisClient): string {
  const at = (o: {
    host?: string | undefined;
    port?: number | undefined;
    path?: string | null | undefined;
  }) => (o.path ? o.path : `${o.host ?? 'localhost'}:${o.port ?? 6379}`);
  if (!client.isCluster) return at((client as { options: Parameters<typeof at>[0] }).options);
  const nodes = (client as { nodes(): Array<{ options: Parameters<typeof at>[0] }> }).nodes();
  if (nodes.length === 0) return 'Redis Cluster, no node reached yet';
  const seeds = nodes.slice(0, 3).map((n) => at(n.options));
  return `Redis Cluster ${seeds.join(', ')}${nodes.length > 3 ? ', …' : ''}`;
}
