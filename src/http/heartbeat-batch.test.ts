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

describe('heartbeat batch > steady items first, in one call', () => {
  function runSteady(steady: (inputs: readonly HeartbeatInput[]) => Promise<Array<HeartbeatOutput | null>>) {
    const attempted: Array<[string, boolean | undefined]> = [];
    const deps = {
      coordinator: {
        heartbeat: async (
          _p: string,
          _g: string,
          input: HeartbeatInput,
          options?: { fastPathTried?: boolean | undefined },
        ) => {
          attempted.push([input.memberId, options?.fastPathTried]);
          return ok(input);
        },
        steadyHeartbeats: (_p: string, _g: string, inputs: readonly HeartbeatInput[]) => steady(inputs),
      },
      config: testConfig(),
      log: () => {},
      toInput: toHeartbeatInput,
    };
    return { attempted, go: () => runHeartbeatBatch(deps, 'p', 'g', ['a', 'b', 'c', 'd'].map(item)) };
  }

  it('answers the steady items from the one call and runs only the others, in order, without their fast path', async () => {
    const r = runSteady(async (inputs) =>
      inputs.map((i) => (i.memberId === 'a' || i.memberId === 'c' ? { ...ok(i), memberEpoch: 7 } : null)),
    );
    const results = await r.go();
    expect(r.attempted).toEqual([
      ['b', true],
      ['d', true],
    ]);
    expect(results.map((x) => [x.memberId, x.heartbeat?.memberEpoch])).toEqual([
      ['a', 7],
      ['b', 2],
      ['c', 7],
      ['d', 2],
    ]);
  });

  it('answers every item the same 503 without attempting any when the steady call finds Redis down', async () => {
    const r = runSteady(async () => {
      throw new CoordinatorError('REDIS_UNAVAILABLE', 'down');
    });
    const results = await r.go();
    expect(r.attempted).toEqual([]);
    expect(results.map((x) => [x.memberId, x.httpStatus, x.error?.errorCode])).toEqual([
      ['a', 503, 'REDIS_UNAVAILABLE'],
      ['b', 503, 'REDIS_UNAVAILABLE'],
      ['c', 503, 'REDIS_UNAVAILABLE'],
      ['d', 503, 'REDIS_UNAVAILABLE'],
    ]);
  });

  it('leaves every item to its own full path when the steady call fails otherwise', async () => {
    const r = runSteady(async () => {
      throw new CoordinatorError('METADATA_CORRUPT', 'unreadable');
    });
    const results = await r.go();
    expect(r.attempted).toEqual([
      ['a', false],
      ['b', false],
      ['c', false],
      ['d', false],
    ]);
    expect(results.every((x) => x.httpStatus === 200)).toBe(true);
  });
});
