/**
 * A consumer process of the fault suite (run with `node --import tsx`). It consumes with the
 * SDK and prints one JSON line per event on stdout (a pipe: synchronous on Linux, so a SIGKILL
 * loses nothing already printed):
 *   {"t":"h","n":<n>,"id":<entry>,"m":<member>,"s":<shard>,"at":<ms>}   each handled record
 *   {"t":"o","m":<member>,"s":<shard>,"start":<ms>,"end":<ms|null>}      each ownership open/close
 *   {"t":"r","m":…,"s":…,"reason":…,"at":…}  revoked    {"t":"l","m":…,"at":…}  lease-lost
 *   {"t":"e","m":…,"ctx":…,"msg":…,"status":…,"code":…,"name":…,"at":…}   error
 *   {"t":"ready","members":[…]}
 * SIGTERM closes the consumer (graceful leave) and exits 0.
 *
 * Env: COORDINATOR_URL, REDIS_URL, STREAM_PREFIX, MEMBER_BASE, CONCURRENCY (default 2).
 */
import { Redis } from 'ioredis';
import { createConsumer } from '../../../src/client/consumer-index.js';

const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is required`);
  return v;
};
const print = (o: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(o)}\n`);

// Reconnect at most 200 ms apart, so recovery is measured on the SDK, not on ioredis's backoff.
const redis = new Redis(env('REDIS_URL'), { retryStrategy: (t) => Math.min(t * 50, 200) });
redis.on('error', () => {});

const consumer = createConsumer({
  coordinatorUrl: env('COORDINATOR_URL'),
  streamPrefix: env('STREAM_PREFIX'),
  memberBase: env('MEMBER_BASE'),
  concurrency: Number(process.env.CONCURRENCY ?? 2),
  redis,
  blockMs: 200,
  claimMinIdleMs: 1000,
  pendingScanIntervalMs: 250,
  requestTimeoutMs: 1000,
  heartbeatIntervalMs: 300,
  shutdownTimeoutMs: 5000,
  handler: (r) => {
    print({ t: 'h', n: r.fields.n ?? null, id: r.id, m: r.memberId, s: r.shard, at: Date.now() });
    return 'ack';
  },
  listeners: {
    ownership: (o) => print({ t: 'o', m: o.memberId, s: o.shard, start: o.start, end: o.end }),
    revoked: (e) => print({ t: 'r', m: e.memberId, s: e.shard, reason: e.reason, at: Date.now() }),
    'lease-lost': (e) => print({ t: 'l', m: e.memberId, at: e.leaseExpiredAt }),
    error: (e) => {
      // HTTP status and errorCode of a coordinator answer (CoordinatorHttpError), for the checker.
      const http = e.error as { status?: number; errorCode?: string };
      print({
        t: 'e',
        m: e.memberId,
        ctx: e.context,
        msg: e.error.message,
        status: http.status ?? null,
        code: http.errorCode ?? null,
        name: e.error.name,
        at: Date.now(),
      });
    },
  },
});

consumer.start();
print({ t: 'ready', members: consumer.memberIds });

process.on('SIGTERM', () => {
  void consumer
    .close()
    .catch(() => {})
    .finally(() => {
      redis.disconnect();
      process.exit(0);
    });
});
