import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config.js';

function configError(env: Record<string, string>): ConfigError {
  try {
    parseConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe('node adapter > configuration from env', () => {
  it('starts from documented defaults when env is empty', () => {
    const c = parseConfig({});
    expect(c).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      redisUrl: 'redis://127.0.0.1:6379',
      redisClusterNodes: [],
      keyPrefix: 'rsc',
      heartbeatIntervalMs: 3000,
      memberLeaseTtlMs: 15000,
      rebalanceTimeoutMs: 60000,
      defaultShardCount: 12,
      sweepIntervalMs: 1000,
      provisioning: true,
    });
  });

  it('rejects a heartbeat interval not below the member lease, naming the field', () => {
    const e = configError({
      COORDINATOR_HEARTBEAT_INTERVAL_MS: '15000',
      COORDINATOR_MEMBER_LEASE_TTL_MS: '15000',
    });
    expect(e.message).toContain('COORDINATOR_HEARTBEAT_INTERVAL_MS');
    expect(e.message).toContain('COORDINATOR_MEMBER_LEASE_TTL_MS');
  });

  it.each(['http', '-1', '70000', '80.5'])('rejects PORT=%s, naming PORT', (port) => {
    expect(configError({ PORT: port }).message).toMatch(/\bPORT\b/);
  });

  it('names every offending field at once', () => {
    const e = configError({ PORT: 'x', COORDINATOR_KEY_PREFIX: 'a{b}' });
    expect(e.message).toContain('PORT');
    expect(e.message).toContain('COORDINATOR_KEY_PREFIX');
  });

  it('accepts sub-second timings (as tests and fast demos use)', () => {
    const c = parseConfig({
      COORDINATOR_HEARTBEAT_INTERVAL_MS: '100',
      COORDINATOR_MEMBER_LEASE_TTL_MS: '500',
      COORDINATOR_REBALANCE_TIMEOUT_MS: '800',
      COORDINATOR_SWEEP_INTERVAL_MS: '50',
    });
    expect(c).toMatchObject({
      heartbeatIntervalMs: 100,
      memberLeaseTtlMs: 500,
      rebalanceTimeoutMs: 800,
      sweepIntervalMs: 50,
    });
  });

  it('accepts PORT=0 (the OS picks a free port)', () => {
    expect(parseConfig({ PORT: '0' }).port).toBe(0);
  });

  it('splits REDIS_CLUSTER_NODES into host:port seeds and rejects malformed ones by name', () => {
    expect(parseConfig({ REDIS_CLUSTER_NODES: '127.0.0.1:7000, 127.0.0.1:7001' }).redisClusterNodes).toEqual([
      '127.0.0.1:7000',
      '127.0.0.1:7001',
    ]);
    expect(configError({ REDIS_CLUSTER_NODES: 'nohostport' }).message).toContain('REDIS_CLUSTER_NODES');
  });

  it('never echoes a Redis password in its error message', () => {
    const e = configError({ REDIS_URL: 'redis://:hunter2@127.0.0.1:6379', PORT: 'bad' });
    expect(e.message).not.toContain('hunter2');
  });

  it.each(['localhost:6379', 'http://127.0.0.1:6379', 'redis://', 'not a url'])(
    'rejects REDIS_URL=%s: it must be redis:// or rediss://',
    (url) => {
      expect(configError({ REDIS_URL: url }).message).toMatch(
        /REDIS_URL: expected a redis:\/\/ or rediss:\/\/ URL/,
      );
    },
  );

  it('accepts redis:// and rediss:// URLs and remembers that Redis was configured explicitly', () => {
    expect(parseConfig({ REDIS_URL: 'rediss://user:pw@cache.example:6380/2' }).redisExplicit).toBe(true);
    expect(parseConfig({ REDIS_CLUSTER_NODES: '127.0.0.1:7000' }).redisExplicit).toBe(true);
    expect(parseConfig({}).redisExplicit).toBe(false);
    expect(parseConfig({}).devRedis).toBe(true);
    expect(parseConfig({ COORDINATOR_DEV_REDIS: 'false' }).devRedis).toBe(false);
  });

  it('serves /metrics behind READ unless COORDINATOR_METRICS_PUBLIC says otherwise, refusing unreadable values', () => {
    expect(parseConfig({}).metricsPublic).toBe(false);
    expect(parseConfig({ COORDINATOR_METRICS_PUBLIC: 'true' }).metricsPublic).toBe(true);
    expect(parseConfig({ COORDINATOR_METRICS_PUBLIC: 'off' }).metricsPublic).toBe(false);
    expect(configError({ COORDINATOR_METRICS_PUBLIC: 'maybe' }).message).toContain(
      'COORDINATOR_METRICS_PUBLIC',
    );
  });

  it('serves /actuator/prometheus behind READ unless its own COORDINATOR_PROMETHEUS_PUBLIC says otherwise', () => {
    expect(parseConfig({}).prometheusPublic).toBe(false);
    expect(parseConfig({ COORDINATOR_METRICS_PUBLIC: 'true' }).prometheusPublic).toBe(false);
    expect(parseConfig({ COORDINATOR_PROMETHEUS_PUBLIC: 'true' }).prometheusPublic).toBe(true);
    expect(parseConfig({ COORDINATOR_PROMETHEUS_PUBLIC: 'true' }).metricsPublic).toBe(false);
    expect(configError({ COORDINATOR_PROMETHEUS_PUBLIC: 'maybe' }).message).toContain(
      'COORDINATOR_PROMETHEUS_PUBLIC',
    );
  });

  it('refuses an unknown LOG_LEVEL and accepts the four known ones', () => {
    expect(configError({ LOG_LEVEL: 'verbose' }).message).toContain('LOG_LEVEL');
    for (const level of ['debug', 'info', 'warn', 'error'] as const) {
      expect(parseConfig({ LOG_LEVEL: level }).logLevel).toBe(level);
    }
    expect(parseConfig({}).logLevel).toBe('info');
  });

  it.each(['15s', '1.5', '1e4', '-5'])('says durations are plain milliseconds for %s', (raw) => {
    const msg = configError({ COORDINATOR_MEMBER_LEASE_TTL_MS: raw }).message;
    expect(msg).toContain('COORDINATOR_MEMBER_LEASE_TTL_MS');
    expect(msg).toContain('whole number of milliseconds');
    expect(msg).not.toContain('NaN');
  });

  it('takes the stream mutex lease from COORDINATOR_LOCK_TTL_MS (2000 by default), in plain milliseconds', () => {
    expect(parseConfig({}).lockTtlMs).toBe(2000);
    expect(parseConfig({ COORDINATOR_LOCK_TTL_MS: '500' }).lockTtlMs).toBe(500);
    for (const bad of ['2s', '100', '70000']) {
      expect(configError({ COORDINATOR_LOCK_TTL_MS: bad }).message).toContain('COORDINATOR_LOCK_TTL_MS');
    }
  });

  it('takes the Node request timeout (30000) and the Redis command timeout (5000), in plain milliseconds', () => {
    expect(parseConfig({}).requestTimeoutMs).toBe(30_000);
    expect(parseConfig({}).redisCommandTimeoutMs).toBe(5000);
    const set = parseConfig({
      COORDINATOR_REQUEST_TIMEOUT_MS: '1000',
      COORDINATOR_REDIS_COMMAND_TIMEOUT_MS: '250',
    });
    expect([set.requestTimeoutMs, set.redisCommandTimeoutMs]).toEqual([1000, 250]);
    for (const bad of ['30s', '0', '100', '700000']) {
      expect(configError({ COORDINATOR_REQUEST_TIMEOUT_MS: bad }).message).toContain(
        'COORDINATOR_REQUEST_TIMEOUT_MS',
      );
    }
    for (const bad of ['5s', '0', '50', '700000']) {
      expect(configError({ COORDINATOR_REDIS_COMMAND_TIMEOUT_MS: bad }).message).toContain(
        'COORDINATOR_REDIS_COMMAND_TIMEOUT_MS',
      );
    }
  });

  it('takes the quotas from COORDINATOR_MAX_STREAMS, _GROUPS_PER_STREAM and _MEMBERS_PER_GROUP (0 = no limit)', () => {
    expect(parseConfig({})).toMatchObject({
      maxStreams: 10_000,
      maxGroupsPerStream: 256,
      maxMembersPerGroup: 10_000,
    });
    expect(
      parseConfig({
        COORDINATOR_MAX_STREAMS: '0',
        COORDINATOR_MAX_GROUPS_PER_STREAM: '4',
        COORDINATOR_MAX_MEMBERS_PER_GROUP: '50',
      }),
    ).toMatchObject({ maxStreams: 0, maxGroupsPerStream: 4, maxMembersPerGroup: 50 });
    for (const name of [
      'COORDINATOR_MAX_STREAMS',
      'COORDINATOR_MAX_GROUPS_PER_STREAM',
      'COORDINATOR_MAX_MEMBERS_PER_GROUP',
    ]) {
      for (const bad of ['-1', '1.5', 'many']) expect(configError({ [name]: bad }).message).toContain(name);
    }
  });

  it('reads durations with surrounding spaces', () => {
    expect(parseConfig({ COORDINATOR_MEMBER_LEASE_TTL_MS: ' 20000 ' }).memberLeaseTtlMs).toBe(20000);
  });
});
