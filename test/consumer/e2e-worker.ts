/**
 * A consumer process of the end-to-end suites (run with `node --import tsx`). It consumes with
 * `createConsumer` and writes, synchronously so a SIGKILL loses nothing already done:
 *   `H <member> <shard> <uid> <handlerStartMs>`  before acking each record,
 *   `O <member> <shard> <startMs> <endMs|->`     at every ownership open/close,
 *   `L <member> <leaseEndMs>` when a local lease lapses, `R <member> <shard> <reason>` per revoke,
 *   `F <member> <shard> <uid,…|->` per fenced write refused (acks of a member that lost the shard;
 *   `?uid` when an earlier send of that ack had no known outcome and may have been applied).
 * SIGTERM closes the consumer (graceful leave) and exits.
 *
 * Env: COORDINATOR_URL, STREAM_PREFIX, MEMBER_BASE, OUT_FILE, and REDIS_URL or REDIS_CLUSTER_NODES.
 */
import { appendFileSync } from 'node:fs';
import { Cluster, Redis } from 'ioredis';
import { createConsumer } from '../../src/client/consumer.js';

const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is required`);
  return v;
};

const out = env('OUT_FILE');
const redis = process.env.REDIS_CLUSTER_NODES
  ? new Cluster(
      process.env.REDIS_CLUSTER_NODES.split(',').map((hp) => {
        const i = hp.lastIndexOf(':');
        return { host: hp.slice(0, i), port: Number(hp.slice(i + 1)) };
      }),
    )
  : new Redis(env('REDIS_URL'));

/** Entry id → uid of the records handled, to name refused acks like the H lines do. */
const uids = new Map<string, string>();

const consumer = createConsumer({
  coordinatorUrl: env('COORDINATOR_URL'),
  streamPrefix: env('STREAM_PREFIX'),
  memberBase: env('MEMBER_BASE'),
  concurrency: 2,
  redis,
  blockMs: 200,
  claimMinIdleMs: 1000,
  pendingScanIntervalMs: 250,
  requestTimeoutMs: 1000,
  heartbeatIntervalMs: 500,
  handler: (r) => {
    const started = Date.now();
    uids.set(`${r.shard} ${r.id}`, r.fields.uid ?? r.id);
    appendFileSync(out, `H ${r.memberId} ${r.shard} ${r.fields.uid ?? r.id} ${started}\n`);
    return 'ack';
  },
  listeners: {
    ownership: (o) => appendFileSync(out, `O ${o.memberId} ${o.shard} ${o.start} ${o.end ?? '-'}\n`),
    'lease-lost': (e) => appendFileSync(out, `L ${e.memberId} ${e.leaseExpiredAt}\n`),
    revoked: (e) => appendFileSync(out, `R ${e.memberId} ${e.shard} ${e.reason}\n`),
    'write-refused': (e) => {
      const doubt = new Set(e.inDoubt);
      const named = e.ids.map((id) => `${doubt.has(id) ? '?' : ''}${uids.get(`${e.shard} ${id}`) ?? id}`);
      appendFileSync(out, `F ${e.memberId} ${e.shard} ${named.join(',') || '-'}\n`);
    },
    error: (e) => {
      if (process.env.E2E_VERBOSE) process.stderr.write(`${e.memberId} ${e.context}: ${e.error.message}\n`);
    },
  },
});

consumer.start();
process.send?.({ type: 'started', memberIds: consumer.memberIds });

process.on('SIGTERM', () => {
  void consumer
    .close()
    .catch(() => {})
    .finally(() => {
      redis.disconnect();
      process.exit(0);
    });
});
