import type { Context } from 'hono';
import { describe, expect, it } from 'vitest';
import { isCoordinatorError } from '../core/errors.js';
import {
  directionParam,
  grafanaNameParam,
  limitParam,
  type QueryParam,
  queryValue,
  streamIdParam,
  textParam,
} from './query-params.js';

/** A request whose query is `query`. */
const request = (query: Record<string, string>) =>
  ({ req: { query: (name: string) => query[name] } }) as unknown as Context;

/** The value, or the refusal's message. */
function read<T>(param: QueryParam<T>, raw?: string): T | string {
  try {
    return queryValue(request(raw === undefined ? {} : { [param.name]: raw }), param);
  } catch (err) {
    if (isCoordinatorError(err) && err.code === 'INVALID_REQUEST') return `400 ${err.message}`;
    throw err;
  }
}

describe('query parameters, parsed by their declarations', () => {
  it('direction: any case, blank → BACKWARD, else a 400 naming it', () => {
    expect(read(directionParam, 'forward')).toBe('FORWARD');
    expect(read(directionParam, ' ')).toBe('BACKWARD');
    expect(read(directionParam)).toBe('BACKWARD');
    expect(read(directionParam, 'SIDEWAYS')).toBe('400 direction: must be FORWARD or BACKWARD');
  });

  it('limit: clamped to 1..1000, blank → 25, a non-integer refused', () => {
    expect([
      read(limitParam, '0'),
      read(limitParam, '5000'),
      read(limitParam, ''),
      read(limitParam, '+7'),
    ]).toEqual([1, 1000, 25, 7]);
    expect(read(limitParam, '2.5')).toBe('400 limit: must be an integer');
  });

  it('stream ids are normalised; text is trimmed; blank is null', () => {
    const cursor = streamIdParam('cursor', '');
    expect(read(cursor, '5')).toBe('5-0');
    expect(read(cursor, '')).toBeNull();
    expect(read(cursor, 'abc')).toBe('400 cursor: must be a Redis stream id (<ms>-<seq>)');
    expect(read(textParam('shardIndex', ''), ' all ')).toBe('all');
  });

  it('Grafana names: required means present, blank means none, invalid names are refused', () => {
    const required = grafanaNameParam('streamPrefix', true, '');
    expect(read(required)).toBe('400 streamPrefix: is required');
    expect(read(required, '')).toBeNull();
    expect(read(required, 'orders')).toBe('orders');
    expect(read(required, 'a{b}')).toBe('400 streamPrefix: must not contain { or }');
    expect(read(grafanaNameParam('streamPrefix', false, ''))).toBeNull();
  });
});
