import { describe, expect, it } from 'vitest';
import * as consumerErrors from './consumer-errors.js';
import { ConsumerError } from './consumer-errors.js';
import * as clientErrors from './errors.js';
import { ClientError, isRetriable, RedisCommandError } from './errors.js';

type ErrorClass = abstract new (...args: never[]) => Error;

/** Every exported `Error` subclass of the two SDK error modules, by export name. */
function exportedErrorClasses(): Map<string, ErrorClass> {
  const found = new Map<string, ErrorClass>();
  for (const mod of [clientErrors, consumerErrors] as Record<string, unknown>[]) {
    for (const [name, value] of Object.entries(mod)) {
      if (typeof value === 'function' && value.prototype instanceof Error) {
        found.set(name, value as ErrorClass);
      }
    }
  }
  return found;
}

/**
 * One instance of each class, built with `cause`, and the `retriable` it must carry. Keyed by
 * export name: a class exported without an entry here fails the first test.
 */
const samples: Record<string, { make: (cause: Error) => ClientError; retriable: boolean }> = {
  ClientError: {
    make: (c) => new ClientError('REDIS_ERROR', 'x', { retriable: true, cause: c }),
    retriable: true,
  },
  CoordinatorUnreachableError: {
    make: (c) => new clientErrors.CoordinatorUnreachableError('down', { timedOut: false, cause: c }),
    retriable: true,
  },
  CoordinatorHttpError: {
    make: (c) => new clientErrors.CoordinatorHttpError(503, 'REDIS_UNAVAILABLE', 'busy', '', c),
    retriable: true,
  },
  CoordinatorResponseError: {
    make: (c) => new clientErrors.CoordinatorResponseError('not json', c),
    retriable: false,
  },
  RoutingUnavailableError: {
    make: (c) => new clientErrors.RoutingUnavailableError('no route', c),
    retriable: true,
  },
  InvalidRoutingError: { make: (c) => new clientErrors.InvalidRoutingError('bad', c), retriable: false },
  NoShardsError: { make: (c) => new clientErrors.NoShardsError('orders', c), retriable: false },
  StreamMissingError: { make: (c) => new clientErrors.StreamMissingError('orders:0', 3, c), retriable: true },
  RedisCommandError: {
    make: (c) => new RedisCommandError('lost', { retriable: true, inDoubt: true, cause: c }),
    retriable: true,
  },
  InvalidRecordError: { make: (c) => new clientErrors.InvalidRecordError('bad', c), retriable: false },
  InvalidOptionsError: { make: (c) => new clientErrors.InvalidOptionsError('bad', c), retriable: false },
  ConsumerError: {
    make: (c) => new ConsumerError('CONSUMER_CLOSED', 'x', { retriable: false, cause: c }),
    retriable: false,
  },
  HeartbeatRejectedError: {
    make: (c) => new consumerErrors.HeartbeatRejectedError('m-1', 'FENCED_MEMBER_EPOCH', c),
    retriable: false,
  },
  MemberIdInUseError: { make: (c) => new consumerErrors.MemberIdInUseError('m-1', c), retriable: true },
  InvalidHeartbeatResponseError: {
    make: (c) => new consumerErrors.InvalidHeartbeatResponseError('bad', c),
    retriable: false,
  },
  HandlerFailedError: {
    make: (c) => new consumerErrors.HandlerFailedError('orders:0', '1-0', 1, c),
    retriable: true,
  },
  ConsumerClosedError: { make: (c) => new consumerErrors.ConsumerClosedError(c), retriable: false },
  OwnershipLostError: {
    make: (c) => new consumerErrors.OwnershipLostError('orders:0', 'XACK', null, c),
    retriable: false,
  },
  ShardGroupMissingError: {
    make: (c) => new consumerErrors.ShardGroupMissingError('orders:0', 'orders', '127.0.0.1:6379', c),
    retriable: false,
  },
};

describe('SDK errors > one hierarchy under ClientError', () => {
  const classes = exportedErrorClasses();

  it('has a sample for every exported error class (and none for a class that is gone)', () => {
    expect([...classes.keys()].sort()).toEqual(Object.keys(samples).sort());
  });

  it.each([...classes.keys()])(
    '%s is a ClientError with a boolean retriable, its name and the cause',
    (name) => {
      const cause = new Error('underneath');
      const err = samples[name]!.make(cause);
      expect(err).toBeInstanceOf(classes.get(name)!);
      expect(err).toBeInstanceOf(ClientError);
      expect(typeof err.retriable).toBe('boolean');
      expect(err.retriable).toBe(samples[name]!.retriable);
      expect(err.retryable).toBe(err.retriable);
      expect(err.name).toBe(name);
      expect(err.cause).toBe(cause);
      expect(isRetriable(err)).toBe(err.retriable);
    },
  );

  it('makes every ConsumerError a ClientError', () => {
    const err = new consumerErrors.ConsumerClosedError();
    expect(err).toBeInstanceOf(ConsumerError);
    expect(err).toBeInstanceOf(ClientError);
    expect(clientErrors.isClientError(err)).toBe(true);
    expect('cause' in err).toBe(false);
  });
});

describe('SDK errors > retriable', () => {
  it('answers false for anything that is not an SDK error', () => {
    for (const v of [
      new Error('x'),
      Object.assign(new Error('x'), { retriable: true }),
      'x',
      null,
      undefined,
    ]) {
      expect(isRetriable(v)).toBe(false);
    }
  });

  it('still accepts the deprecated retryable spelling when constructing', () => {
    const err = new RedisCommandError('refused', { retryable: false, inDoubt: false });
    expect(err).toMatchObject({ retriable: false, retryable: false, inDoubt: false });
  });

  it('copies a routing failure’s flag from its SDK cause', () => {
    const refused = new clientErrors.CoordinatorHttpError(404, 'STREAM_NOT_FOUND', 'gone');
    expect(new clientErrors.RoutingUnavailableError('no route', refused).retriable).toBe(false);
  });

  it('marks coordinator answers by status: transient ones retriable, refusals not', () => {
    const http = (status: number, code?: string) =>
      new clientErrors.CoordinatorHttpError(status, code, `${status}`).retriable;
    expect([http(503), http(409, 'STATE_VERSION_CONFLICT'), http(500)]).toEqual([true, true, true]);
    expect([http(400), http(401), http(403), http(404), http(409, 'MEMBER_ID_IN_USE')]).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
