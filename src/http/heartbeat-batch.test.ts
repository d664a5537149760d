import { describe, expect, it } from 'vitest';
import { testConfig } from '../../test/support/http-fakes.js';
import { CoordinatorError } from '../core/errors.js';
import type { HeartbeatInput, HeartbeatOutput } from '../core/heartbeat-types.js';
import { runHeartbeatBatch } from './heartbeat-batch.js';
import { toHeartbeatInput } from './routes/members.js';
import type { HeartbeatRequestBody } from './schemas.js';

const item = (memberId: string): HeartbeatRequestBody => ({
  protocolVersion: 1,
  requestId: `req-${memberId}`,
  memberId,
  memberEpoch: 0,
  metadataVersion: 0,
  runtimeConsumerCapacity: { runtimeMaxConcurrency: 1, availableConcurrency: 1 },
});

const ok = (input: HeartbeatInput): HeartbeatOutput => ({
  status: 'OK',
  memberId: input.memberId,
  memberEpoch: 2,
  groupEpoch: 2,
  assignmentEpoch: 2,
  metadataVersion: 2,
  assignedShards: [],
  pendingShards: [],
  assignmentMetadataVersion: 2,
});

function run(fail: Record<string, unknown>) {
  const attempted: string[] = [];
  const logs: string[] = [];
  const deps = {
    coordinator: {
      heartbeat: async (_p: string, _g: string, input: HeartbeatInput) => {
        attempted.push(input.memberId);
        if (input.memberId in fail) throw fail[input.memberId];
        return ok(input);
      },
    },
    config: testConfig(),
    log: (level: string, msg: string) => logs.push(`${level} ${msg}`),
    toInput: toHeartbeatInput,
  };
  return { attempted, logs, go: () => runHeartbeatBatch(deps, 'p', 'g', ['a', 'b', 'c', 'd'].map(item)) };
}

describe('heartbeat batch > failures of one item', () => {
  it('keeps a refusal to its item and runs the rest (the path id is the item’s memberId)', async () => {
    const r = run({ b: new CoordinatorError('STATE_VERSION_CONFLICT', 'busy') });
    const results = await r.go();
    expect(r.attempted).toEqual(['a', 'b', 'c', 'd']);
    expect(results.map((x) => x.httpStatus)).toEqual([200, 409, 200, 200]);
    expect(results[1]).toEqual({
      memberId: 'b',
      httpStatus: 409,
      heartbeat: null,
      error: { status: 'CONFLICT', errorCode: 'STATE_VERSION_CONFLICT', message: 'busy' },
    });
    expect(results[0]!.heartbeat).toMatchObject({ responseTo: 'req-a', status: 'OK', memberId: 'a' });
  });

  it('answers an unexpected error as a 500 INTERNAL_ERROR item without its detail, and logs it', async () => {
    const r = run({ a: new Error('secret detail') });
    const results = await r.go();
    expect(results[0]!.error).toEqual({
      status: 'INTERNAL_SERVER_ERROR',
      errorCode: 'INTERNAL_ERROR',
      message: 'Internal coordinator error',
    });
    expect(results.slice(1).map((x) => x.httpStatus)).toEqual([200, 200, 200]);
    expect(r.logs.join('\n')).toContain('error unhandled error in a batched heartbeat');
  });

  it.each(['REDIS_UNAVAILABLE', 'COORDINATOR_TERMINATING'] as const)(
    'after %s answers the remaining items the same 503 without attempting them',
    async (code) => {
      const r = run({ b: new CoordinatorError(code, 'down') });
      const results = await r.go();
      expect(r.attempted).toEqual(['a', 'b']);
      expect(results.map((x) => [x.memberId, x.httpStatus, x.error?.errorCode ?? null])).toEqual([
        ['a', 200, null],
        ['b', 503, code],
        ['c', 503, code],
        ['d', 503, code],
      ]);
    },
  );
});
