/**
 * Bad input through the real stack: always a 4xx ErrorResponse with a code, never a 500,
 * and nothing written to Redis (docs/protocol.md#deviation-error-bodies, docs/security.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, uniquePrefix } from '../support/redis.js';
import { snapshotKeys } from '../support/scan.js';
import { heartbeatBody, makeStack, type Stack } from '../support/stack.js';

describe.each(backends)('bad input writes nothing ($name)', (backend) => {
  let stack: Stack;
  let p: string;
  let hbPath: string;
  let before: string[];
  let docBefore: string;

  beforeAll(async () => {
    stack = makeStack(backend);
    p = uniquePrefix('bad');
    expect(
      (await stack.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 2, requestedBy: 't' })).status,
    ).toBe(201);
    hbPath = `/coord/v1/streams/${p}/groups/${p}/members/m1/heartbeat`;
    before = await snapshotKeys(stack.redis, stack.config.keyPrefix, p);
    docBefore = JSON.stringify((await stack.store.load(p, 'all'))!);
  });
  afterAll(async () => {
    await stack.close();
  });

  const valid = () => heartbeatBody('m1', 'x', { epoch: 0, mv: 0 });
  const cases: Array<[string, string, () => string, unknown, number?]> = [
    ['malformed JSON heartbeat', 'POST', () => hbPath, '{"protocolVersion": 1,', 400],
    ['empty heartbeat body', 'POST', () => hbPath, '', 400],
    ['heartbeat body is an array', 'POST', () => hbPath, '[]', 400],
    ['protocolVersion 0', 'POST', () => hbPath, { ...valid(), protocolVersion: 0 }],
    ['memberEpoch as string', 'POST', () => hbPath, { ...valid(), memberEpoch: '0' }],
    ['missing requestId', 'POST', () => hbPath, { ...valid(), requestId: undefined }],
    ['blank memberId', 'POST', () => hbPath, { ...valid(), memberId: '  ' }],
    ['fractional metadataVersion', 'POST', () => hbPath, { ...valid(), metadataVersion: 1.5 }],
    ['negative shard index', 'POST', () => hbPath, { ...valid(), ownedShards: [{ shardIndex: -1 }] }],
    [
      'unknown revoke state',
      'POST',
      () => hbPath,
      { ...valid(), revokingShards: [{ shard: { shardIndex: 0 }, state: 'GONE' }] },
    ],
    ['capacity missing', 'POST', () => hbPath, { ...valid(), runtimeConsumerCapacity: undefined }],
    [
      'oversized heartbeat body',
      'POST',
      () => hbPath,
      { ...valid(), memberName: 'x'.repeat(70 * 1024) },
      413,
    ],
    ['create without requestedBy', 'POST', () => `/coord/v1/streams/${p}-new`, { initialShardCount: 2 }],
    [
      'create with zero shards',
      'POST',
      () => `/coord/v1/streams/${p}-new`,
      { initialShardCount: 0, requestedBy: 't' },
    ],
    [
      'create with too many shards',
      'POST',
      () => `/coord/v1/streams/${p}-new`,
      { initialShardCount: 100000, requestedBy: 't' },
    ],
    [
      'create with braces in prefix',
      'POST',
      () => `/coord/v1/streams/${encodeURIComponent(`${p}{x}`)}`,
      { requestedBy: 't' },
    ],
    [
      'group create with string count',
      'POST',
      () => `/coord/v1/streams/${p}/groups/g2`,
      { initialShardCount: '2', requestedBy: 't' },
    ],
    ['delete without reason', 'DELETE', () => `/coord/v1/streams/${p}/groups/${p}`, { requestedBy: 't' }],
    [
      'delete with non-boolean force',
      'DELETE',
      () => `/coord/v1/streams/${p}/groups/${p}`,
      { requestedBy: 't', reason: 'r', force: 'yes' },
    ],
  ];

  it.each(cases)('%s → 4xx with a code, nothing written', async (_name, method, path, body, status = 400) => {
    const res = await stack.call(method, path(), body === undefined ? undefined : body);
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ errorCode: status === 413 ? 'PAYLOAD_TOO_LARGE' : 'INVALID_REQUEST' });
    expect(typeof res.body.message).toBe('string');
    expect(await snapshotKeys(stack.redis, stack.config.keyPrefix, p)).toEqual(before);
    expect(JSON.stringify((await stack.store.load(p, 'all'))!)).toEqual(docBefore);
  });
});
