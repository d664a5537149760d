/**
 * Coordinator configuration: one zod schema, read from env (Node) or bindings (Worker).
 * Invalid configuration fails at start with a message naming the field.
 */
import { z } from 'zod';
import { type AuthConfig, DEFAULT_TOKEN_TTL_SECONDS, resolveAuthConfig } from './http/auth/auth-config.js';

const bool = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])])
  .transform((v) => (typeof v === 'boolean' ? v : ['true', '1', 'yes', 'on'].includes(v)));

const intIn = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/**
 * A duration in plain milliseconds. Units are refused with a message that says so: `15s` would
 * otherwise read as "expected number, received NaN".
 */
const msIn = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(
      /^\d+$/,
      'expected a whole number of milliseconds (e.g. 15000); units such as "15s" are not accepted',
    )
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

/** Severities the loggers know, lowest first. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/** A `redis://` or `rediss://` URL with a host; the message never echoes the URL (it may hold a password). */
const redisUrl = z
  .string()
  .refine(isRedisUrl, 'expected a redis:// or rediss:// URL with a host, e.g. redis://127.0.0.1:6379');

function isRedisUrl(raw: string): boolean {
  try {
    const u = new URL(raw);
    return (u.protocol === 'redis:' || u.protocol === 'rediss:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/** Where the quick start's Redis is when REDIS_URL is not set (a private server replaces it). */
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * Default COORDINATOR_MAX_STREAMS. The quotas bound what one principal can make the
 * coordinator store; their defaults sit well above anything the tests and benches use.
 */
export const DEFAULT_MAX_STREAMS = 10_000;
/** Default COORDINATOR_MAX_GROUPS_PER_STREAM. */
export const DEFAULT_MAX_GROUPS_PER_STREAM = 256;
/** Default COORDINATOR_MAX_MEMBERS_PER_GROUP (the scale bench runs groups of 5,000 members). */
export const DEFAULT_MAX_MEMBERS_PER_GROUP = 10_000;

/** Environment variable names and their validation. */
export const configSchema = z
  .object({
    PORT: intIn(0, 65535).default(8080),
    HOST: z.string().min(1).default('127.0.0.1'),
    REDIS_URL: redisUrl.optional(),
    /** Comma-separated `host:port` seeds; when set the store runs in Redis Cluster mode. */
    REDIS_CLUSTER_NODES: z
      .string()
      .optional()
      .transform((v) =>
        v
          ? v
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean)
          : [],
      )
      .pipe(z.array(z.string().regex(/^[^:\s]+:\d{1,5}$/, 'expected host:port'))),
    COORDINATOR_KEY_PREFIX: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[^{}\s]+$/, 'no braces or spaces')
      .default('rsc'),
    COORDINATOR_ID: z.string().min(1).max(128).default('local-coordinator'),
    COORDINATOR_HEARTBEAT_INTERVAL_MS: msIn(50, 600_000).default(3000),
    COORDINATOR_MEMBER_LEASE_TTL_MS: msIn(100, 3_600_000).default(15000),
    COORDINATOR_REBALANCE_TIMEOUT_MS: msIn(100, 86_400_000).default(60000),
    COORDINATOR_STALE_MEMBER_RETENTION_MS: msIn(0, 30 * 86_400_000).default(600000),
    COORDINATOR_DEFAULT_SHARD_COUNT: intIn(1, 16384).default(12),
    COORDINATOR_MAX_SHARD_COUNT: intIn(1, 16384).default(1024),
    COORDINATOR_PROVISIONING: bool.default(true),
    COORDINATOR_SWEEP_INTERVAL_MS: msIn(50, 3_600_000).default(1000),
    /** Maximum accepted request body, bytes. */
    COORDINATOR_MAX_BODY_BYTES: intIn(1024, 16 * 1024 * 1024).default(64 * 1024),
    /** How long a request waits for the per-stream mutex before answering 503. */
    COORDINATOR_LOCK_WAIT_MS: msIn(0, 60_000).default(5000),
    /**
     * Lease of a stream's mutex, renewed every third of it while a critical section runs: a
     * holder that dies (SIGKILL, lost host) blocks the stream's stream-wide changes this long.
     */
    COORDINATOR_LOCK_TTL_MS: msIn(300, 60_000).default(2000),
    /**
     * Node: longest time a client may take to send a whole request (headers and body); past it
     * the server answers 408 and closes the connection, so stalled uploads cannot pile up.
     */
    COORDINATOR_REQUEST_TIMEOUT_MS: msIn(500, 600_000).default(30_000),
    /**
     * Node: longest wait for one Redis reply; past it the command fails and the request answers
     * 503 REDIS_UNAVAILABLE (a Redis that accepts connections but stops answering would otherwise
     * hold requests forever). The coordinator sends no blocking commands, so no reply is due later.
     */
    COORDINATOR_REDIS_COMMAND_TIMEOUT_MS: msIn(100, 600_000).default(5000),
    /** Logical streams in the namespace at most; a create beyond → 409 STREAM_LIMIT_REACHED; 0 = no limit. @default 10000 */
    COORDINATOR_MAX_STREAMS: intIn(0, 1_000_000).default(DEFAULT_MAX_STREAMS),
    /** Consumer groups per stream at most; beyond → 409 GROUP_LIMIT_REACHED; 0 = no limit. @default 256 */
    COORDINATOR_MAX_GROUPS_PER_STREAM: intIn(0, 1_000_000).default(DEFAULT_MAX_GROUPS_PER_STREAM),
    /** Live members per group at most; a join beyond → 409 MEMBER_LIMIT_REACHED; 0 = no limit. @default 10000 */
    COORDINATOR_MAX_MEMBERS_PER_GROUP: intIn(0, 1_000_000).default(DEFAULT_MAX_MEMBERS_PER_GROUP),
    /**
     * Serve and advertise the batched member heartbeat (`POST …/groups/{g}/heartbeats`, capability
     * BATCH_HEARTBEAT); `false` answers it 404 and advertises nothing, so SDKs send single heartbeats. @default true
     */
    COORDINATOR_BATCH_HEARTBEATS: bool.default(true),
    /**
     * Largest batched-heartbeat body, bytes (413 beyond, refused on Content-Length before reading):
     * 64 heartbeats of 4 KiB each (docs/protocol.md#batched-heartbeats). @default 262144
     */
    COORDINATOR_MAX_BATCH_BODY_BYTES: intIn(1024, 16 * 1024 * 1024).default(256 * 1024),
    /** Batched heartbeats in flight at once; more answer 503 COORDINATOR_BUSY with Retry-After at once. @default 16 */
    COORDINATOR_MAX_CONCURRENT_BATCHES: intIn(1, 4096).default(16),
    /**
     * Longest a batched heartbeat's body may take to arrive once its slot is taken; past it the
     * batch answers 408 REQUEST_TIMEOUT, the connection closes and the slot is free again, so slow
     * uploads cannot hold every slot. @default 5000
     */
    COORDINATOR_BATCH_READ_TIMEOUT_MS: msIn(100, 600_000).default(5000),
    /** Admin principal (all roles); @default 'admin' when a password or hash is set. */
    COORDINATOR_ADMIN_USERNAME: z.string().optional(),
    /** Plaintext admin password. No default: without credentials the service runs open. */
    COORDINATOR_ADMIN_PASSWORD: z.string().optional(),
    /** `pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>` instead of a plaintext admin password. */
    COORDINATOR_ADMIN_PASSWORD_HASH: z.string().optional(),
    /** Comma-separated `user:password:ROLE|ROLE` (password may be a pbkdf2-sha256 hash). */
    COORDINATOR_USERS: z.string().optional(),
    /** `user=stream|prefix*,…`: the streams each MEMBER-only user may heartbeat in. @default every stream */
    COORDINATOR_MEMBER_STREAMS: z.string().optional(),
    /** HMAC key of bearer tokens; @default a random secret generated once and kept in Redis. */
    COORDINATOR_TOKEN_SECRET: z.string().optional(),
    /** The secret being rotated out: tokens it signed are still accepted, none is signed with it. */
    COORDINATOR_TOKEN_SECRET_PREVIOUS: z.string().optional(),
    COORDINATOR_TOKEN_TTL_SECONDS: intIn(1, 366 * 86_400).default(DEFAULT_TOKEN_TTL_SECONDS),
    /** Heartbeats need MEMBER; @default true when credentials are configured. */
    COORDINATOR_AUTHENTICATE_MEMBER_API: bool.optional(),
    /** Failed password checks per client per minute before 429 LOGIN_THROTTLED; 0 = off. @default 30 */
    COORDINATOR_LOGIN_FAILURES_PER_CLIENT_PER_MINUTE: intIn(0, 1_000_000).default(30),
    /** Failed password checks per username per minute before 429 (recently accepted clients exempt); 0 = off. @default 100 */
    COORDINATOR_LOGIN_FAILURES_PER_USER_PER_MINUTE: intIn(0, 1_000_000).default(100),
    /** PBKDF2 password derivations at once; more answer 429 AUTHENTICATION_BUSY at once. @default 2 */
    COORDINATOR_MAX_CONCURRENT_PASSWORD_HASHES: intIn(1, 64).default(2),
    /** Explicitly run without credentials (the Worker refuses to serve open otherwise). @default false */
    COORDINATOR_OPEN_MODE: bool.default(false),
    /** Admin mutations per principal, stream and group per minute; 0 = off. @default 0 */
    COORDINATOR_RATE_LIMIT_ADMIN_MUTATIONS_PER_MINUTE: intIn(0, 1_000_000).default(0),
    /** Admin mutations per principal per minute, over every stream and group; 0 = off. @default 0 */
    COORDINATOR_RATE_LIMIT_PRINCIPAL_MUTATIONS_PER_MINUTE: intIn(0, 1_000_000).default(0),
    /**
     * With neither REDIS_URL nor REDIS_CLUSTER_NODES set, `npm start` runs a private, throw-away
     * redis-server; `false` refuses to start instead. Never used for an explicit URL. @default true
     */
    COORDINATOR_DEV_REDIS: bool.default(true),
    /**
     * The loopback port of that private redis-server, so SDKs and the CLI can keep one REDIS_URL
     * across restarts; 0 = a free port each run. @default 0
     */
    COORDINATOR_DEV_REDIS_PORT: intIn(0, 65535).default(0),
    /**
     * Serve (readiness UP, a `warn` line) while Redis runs an `allkeys-*` maxmemory-policy, which
     * may evict the coordinator's own keys; `false` answers readiness 503 instead. @default false
     */
    COORDINATOR_ALLOW_EVICTION: bool.default(false),
    /** Node: serve `GET /metrics` without credentials (it needs READ otherwise). @default false */
    COORDINATOR_METRICS_PUBLIC: bool.default(false),
    /**
     * Node: serve `GET /actuator/prometheus` without credentials (it needs READ otherwise). Its
     * series name streams, groups and member ids, so COORDINATOR_METRICS_PUBLIC does not open it. @default false
     */
    COORDINATOR_PROMETHEUS_PUBLIC: bool.default(false),
    /**
     * Node: stream/group pairs that get their own labels on `/actuator/prometheus`; series of
     * any further pair are summed under `stream="_other",group="_other"`. @default 100
     */
    COORDINATOR_METRICS_MAX_GROUPS: intIn(1, 10_000).default(100),
    /** Node: the lag gauges are read from Redis at most once per this many ms (cached in between). @default 10000 */
    COORDINATOR_METRICS_LAG_REFRESH_MS: msIn(0, 3_600_000).default(10_000),
    /** Node: shard streams read per lag refresh; larger namespaces are covered over several refreshes. @default 256 */
    COORDINATOR_METRICS_LAG_MAX_SHARDS: intIn(1, 100_000).default(256),
    /** `debug`, `info`, `warn` or `error`. @default 'info' */
    LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  })
  .superRefine((c, ctx) => {
    if (c.COORDINATOR_HEARTBEAT_INTERVAL_MS >= c.COORDINATOR_MEMBER_LEASE_TTL_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['COORDINATOR_HEARTBEAT_INTERVAL_MS'],
        message: 'must be smaller than COORDINATOR_MEMBER_LEASE_TTL_MS',
      });
    }
    if (c.COORDINATOR_DEFAULT_SHARD_COUNT > c.COORDINATOR_MAX_SHARD_COUNT) {
      ctx.addIssue({
        code: 'custom',
        path: ['COORDINATOR_DEFAULT_SHARD_COUNT'],
        message: 'must not exceed COORDINATOR_MAX_SHARD_COUNT',
      });
    }
    for (const issue of resolveAuthConfig(c).issues) {
      ctx.addIssue({ code: 'custom', path: [issue.path], message: issue.message });
    }
  });

/** Raw (string) configuration as found in env or bindings. */
export type RawConfig = z.input<typeof configSchema>;

/** The coordinator's validated configuration. */
export interface CoordinatorConfig {
  port: number;
  host: string;
  redisUrl: string;
  redisClusterNodes: string[];
  keyPrefix: string;
  coordinatorId: string;
  heartbeatIntervalMs: number;
  memberLeaseTtlMs: number;
  rebalanceTimeoutMs: number;
  staleMemberRetentionMs: number;
  defaultShardCount: number;
  maxShardCount: number;
  provisioning: boolean;
  sweepIntervalMs: number;
  maxBodyBytes: number;
  lockWaitMs: number;
  /** Lease of a stream's mutex (renewed while held; how long a dead holder blocks the stream). */
  lockTtlMs: number;
  /** Node: longest time to receive a whole request before answering 408. */
  requestTimeoutMs: number;
  /** Node: longest wait for one Redis reply before the command fails (→ 503 REDIS_UNAVAILABLE). */
  redisCommandTimeoutMs: number;
  /** Logical streams in the namespace at most; 0 = no limit. */
  maxStreams: number;
  /** Consumer groups per stream at most; 0 = no limit. */
  maxGroupsPerStream: number;
  /** Live members per group at most (a join beyond is refused); 0 = no limit. */
  maxMembersPerGroup: number;
  /** COORDINATOR_BATCH_HEARTBEATS: the batched heartbeat route is served and advertised. */
  batchHeartbeats: boolean;
  /** COORDINATOR_MAX_BATCH_BODY_BYTES: largest batched-heartbeat body. */
  maxBatchBodyBytes: number;
  /** COORDINATOR_MAX_CONCURRENT_BATCHES: batched heartbeats in flight at once. */
  maxConcurrentBatches: number;
  /** COORDINATOR_BATCH_READ_TIMEOUT_MS: longest a batch body may take to arrive. */
  batchReadTimeoutMs: number;
  /** Credentials, token and member-auth settings; null = open mode (no credentials). */
  auth: AuthConfig | null;
  /** COORDINATOR_OPEN_MODE: open mode was asked for explicitly (the Worker requires it). */
  explicitOpenMode: boolean;
  /** Admin mutations per principal, stream and group per minute; 0 = off. */
  rateLimitAdminMutationsPerMinute: number;
  /** Admin mutations per principal per minute over every stream and group; 0 = off. */
  rateLimitPrincipalMutationsPerMinute: number;
  /** REDIS_URL or REDIS_CLUSTER_NODES was given: never substitute a private Redis for it. */
  redisExplicit: boolean;
  /** COORDINATOR_DEV_REDIS: a private Redis may be started when no Redis is configured. */
  devRedis: boolean;
  /** COORDINATOR_DEV_REDIS_PORT: the private Redis's port; 0 = any free one. */
  devRedisPort: number;
  /** COORDINATOR_ALLOW_EVICTION: readiness stays UP under an `allkeys-*` maxmemory-policy. */
  allowEviction: boolean;
  /** COORDINATOR_METRICS_PUBLIC: `/metrics` answers without credentials. */
  metricsPublic: boolean;
  /** COORDINATOR_PROMETHEUS_PUBLIC: `/actuator/prometheus` answers without credentials. */
  prometheusPublic: boolean;
  /** COORDINATOR_METRICS_MAX_GROUPS: stream/group pairs labelled on `/actuator/prometheus`. */
  metricsMaxGroups: number;
  /** COORDINATOR_METRICS_LAG_REFRESH_MS: least time between two Redis reads of the lag gauges. */
  metricsLagRefreshMs: number;
  /** COORDINATOR_METRICS_LAG_MAX_SHARDS: shard streams read per lag refresh. */
  metricsLagMaxShards: number;
  /** LOG_LEVEL. */
  logLevel: (typeof LOG_LEVELS)[number];
}

/** Thrown for invalid configuration; the message names every offending field. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Parses env-style values into a CoordinatorConfig, or throws ConfigError naming the fields. */
export function parseConfig(env: Record<string, string | undefined>): CoordinatorConfig {
  const picked: Record<string, string | undefined> = {};
  for (const key of Object.keys(configSchema.shape)) {
    const v = env[key];
    if (v !== undefined && v !== '') picked[key] = v;
  }
  const r = configSchema.safeParse(picked);
  if (!r.success) {
    const msg = r.error.issues.map((i) => `${i.path.join('.') || '(config)'}: ${i.message}`).join('; ');
    throw new ConfigError(`invalid configuration: ${msg}`);
  }
  const c = r.data;
  return {
    port: c.PORT,
    host: c.HOST,
    redisUrl: c.REDIS_URL ?? DEFAULT_REDIS_URL,
    redisClusterNodes: c.REDIS_CLUSTER_NODES,
    keyPrefix: c.COORDINATOR_KEY_PREFIX,
    coordinatorId: c.COORDINATOR_ID,
    heartbeatIntervalMs: c.COORDINATOR_HEARTBEAT_INTERVAL_MS,
    memberLeaseTtlMs: c.COORDINATOR_MEMBER_LEASE_TTL_MS,
    rebalanceTimeoutMs: c.COORDINATOR_REBALANCE_TIMEOUT_MS,
    staleMemberRetentionMs: c.COORDINATOR_STALE_MEMBER_RETENTION_MS,
    defaultShardCount: c.COORDINATOR_DEFAULT_SHARD_COUNT,
    maxShardCount: c.COORDINATOR_MAX_SHARD_COUNT,
    provisioning: c.COORDINATOR_PROVISIONING,
    sweepIntervalMs: c.COORDINATOR_SWEEP_INTERVAL_MS,
    maxBodyBytes: c.COORDINATOR_MAX_BODY_BYTES,
    lockWaitMs: c.COORDINATOR_LOCK_WAIT_MS,
    lockTtlMs: c.COORDINATOR_LOCK_TTL_MS,
    requestTimeoutMs: c.COORDINATOR_REQUEST_TIMEOUT_MS,
    redisCommandTimeoutMs: c.COORDINATOR_REDIS_COMMAND_TIMEOUT_MS,
    maxStreams: c.COORDINATOR_MAX_STREAMS,
    maxGroupsPerStream: c.COORDINATOR_MAX_GROUPS_PER_STREAM,
    maxMembersPerGroup: c.COORDINATOR_MAX_MEMBERS_PER_GROUP,
    batchHeartbeats: c.COORDINATOR_BATCH_HEARTBEATS,
    maxBatchBodyBytes: c.COORDINATOR_MAX_BATCH_BODY_BYTES,
    maxConcurrentBatches: c.COORDINATOR_MAX_CONCURRENT_BATCHES,
    batchReadTimeoutMs: c.COORDINATOR_BATCH_READ_TIMEOUT_MS,
    auth: resolveAuthConfig(c).auth,
    explicitOpenMode: c.COORDINATOR_OPEN_MODE,
    rateLimitAdminMutationsPerMinute: c.COORDINATOR_RATE_LIMIT_ADMIN_MUTATIONS_PER_MINUTE,
    rateLimitPrincipalMutationsPerMinute: c.COORDINATOR_RATE_LIMIT_PRINCIPAL_MUTATIONS_PER_MINUTE,
    redisExplicit: c.REDIS_URL !== undefined || c.REDIS_CLUSTER_NODES.length > 0,
    devRedis: c.COORDINATOR_DEV_REDIS,
    devRedisPort: c.COORDINATOR_DEV_REDIS_PORT,
    allowEviction: c.COORDINATOR_ALLOW_EVICTION,
    metricsPublic: c.COORDINATOR_METRICS_PUBLIC,
    prometheusPublic: c.COORDINATOR_PROMETHEUS_PUBLIC,
    metricsMaxGroups: c.COORDINATOR_METRICS_MAX_GROUPS,
    metricsLagRefreshMs: c.COORDINATOR_METRICS_LAG_REFRESH_MS,
    metricsLagMaxShards: c.COORDINATOR_METRICS_LAG_MAX_SHARDS,
    logLevel: c.LOG_LEVEL,
  };
}
