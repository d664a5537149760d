/**
 * Bad input (docs/protocol.md#deviation-error-bodies, docs/security.md): a 4xx ErrorResponse with a code — 400 INVALID_REQUEST or 413
 * PAYLOAD_TOO_LARGE — never a 500, and nothing written to Redis.
 */
import { expect } from 'vitest';
import { uniquePrefix } from '../../support/redis.js';
import { snapshotKeys } from '../../support/scan.js';
import { heartbeatBody } from '../../support/stack.js';
import { createStream, groupPath, type Scenario } from '../scenario.js';
import type { ConformanceTarget } from '../target.js';

/** Every key of the namespace and the stream, with the content of the coordinator's hashes. */
async function redisState(t: ConformanceTarget, p: string): Promise<unknown> {
  const keys = await snapshotKeys(t.redis, t.namespace, p);
  const values: Record<string, unknown> = {};
  for (const k of keys) {
    const type = await t.redis.type(k);
    values[k] =
      type === 'hash'
        ? await t.redis.hgetall(k)
        : type === 'zset'
          ? await t.redis.zrange(k, '0', '-1', 'WITHSCORES')
          : type;
  }
  return values;
}

/** [name, method, path, body, expected status] */
type Case = [string, string, (p: string) => string, unknown, number];

const hb = (p: string) => `${groupPath(p)}/members/m1/heartbeat`;
const valid = () => heartbeatBody('m1', 'x', { epoch: 0, mv: 0 });
const CASES: Case[] = [
  ['malformed JSON heartbeat', 'POST', hb, '{"protocolVersion": 1,', 400],
  ['empty heartbeat body', 'POST', hb, '', 400],
  ['protocolVersion 0', 'POST', hb, { ...valid(), protocolVersion: 0 }, 400],
  ['memberEpoch as a string', 'POST', hb, { ...valid(), memberEpoch: '0' }, 400],
  ['negative shard index', 'POST', hb, { ...valid(), ownedShards: [{ shardIndex: -1 }] }, 400],
  [
    'unknown revoke state',
    'POST',
    hb,
    { ...valid(), revokingShards: [{ shard: { shardIndex: 0 }, state: 'GONE' }] },
    400,
  ],
  ['oversized heartbeat body', 'POST', hb, { ...valid(), memberName: 'x'.repeat(70 * 1024) }, 413],
  ['create without requestedBy', 'POST', (p) => `/coord/v1/streams/${p}-new`, { initialShardCount: 2 }, 400],
  [
    'create with zero shards',
    'POST',
    (p) => `/coord/v1/streams/${p}-new`,
    { initialShardCount: 0, requestedBy: 't' },
    400,
  ],
  [
    'create with braces in the prefix',
    'POST',
    (p) => `/coord/v1/streams/${encodeURIComponent(`${p}{x}`)}`,
    { requestedBy: 't' },
    400,
  ],
  ['delete without reason', 'DELETE', (p) => groupPath(p), { requestedBy: 't' }, 400],
];

/** Scenarios about refused input. */
export const badInputScenarios: Scenario[] = [
  {
    name: 'refuses malformed, invalid and oversized requests with a coded 4xx and writes nothing',
    async run(t) {
      const p = uniquePrefix('bad');
      await createStream(t, p, 2);
      const before = await redisState(t, p);
      for (const [name, method, path, body, status] of CASES) {
        const res = await t.call(method, path(p), body);
        expect(res.status, name).toBe(status);
        expect(res.body, name).toMatchObject({
          errorCode: status === 413 ? 'PAYLOAD_TOO_LARGE' : 'INVALID_REQUEST',
          status: status === 413 ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST',
        });
        expect(typeof res.body.message, name).toBe('string');
      }
      expect(await redisState(t, p)).toEqual(before);
    },
  },
];
