/**
 * A test double of the reference coordinator that serves only
 * `GET /coord/v1/streams/{p}/groups/{g}/producer-routing`, in the reference's exact shape (no
 * additive fields), with optional Basic / Bearer checks (docs/protocol.md#roles, docs/protocol.md#producer-routing). Tests change its
 * answer at will to simulate resharding the real coordinator cannot do yet.
 */
import { Hono } from 'hono';
import type { FetchLike } from '../../src/client/transport.js';
import { redisSlot } from '../../src/routing/slot.js';

/** What the double answers with. */
export interface DoubleState {
  shardCount: number;
  metadataVersion: number;
  /** Replaces the whole answer (invalid routing tests). */
  body?: unknown;
  /** Answer with this status and the reference's error body instead. */
  failWith?: number;
}

/** Options of `referenceDouble`. */
export interface ReferenceDoubleOptions {
  streamPrefix: string;
  consumerGroup?: string;
  shardCount: number;
  /** Require Basic credentials. */
  basic?: { username: string; password: string };
  /** Require this bearer token. */
  token?: string;
}

/** The double: an app, a fetch for the SDK, its mutable answer and a request counter. */
export interface ReferenceDouble {
  app: Hono;
  fetch: FetchLike;
  state: DoubleState;
  requests: () => number;
}

/** Builds the routing body the reference sends for `shardCount` shards. */
export function referenceRoutingBody(
  p: string,
  g: string,
  shardCount: number,
  metadataVersion: number,
): unknown {
  return {
    streamPrefix: p,
    consumerGroup: g,
    metadataVersion,
    shardCount,
    streamKeyPattern: `${p}:{shardIndex}`,
    shards: Array.from({ length: shardCount }, (_, i) => ({
      shardIndex: i,
      streamKey: `${p}:${i}`,
      redisSlot: redisSlot(`${p}:${i}`),
    })),
  };
}

/** Starts nothing: the double runs in-process through `app.request`. */
export function referenceDouble(opts: ReferenceDoubleOptions): ReferenceDouble {
  const group = opts.consumerGroup ?? opts.streamPrefix;
  const state: DoubleState = { shardCount: opts.shardCount, metadataVersion: 1 };
  let requests = 0;
  const app = new Hono();
  app.get('/coord/v1/streams/:p/groups/:g/producer-routing', (c) => {
    requests++;
    if (!authorized(c.req.header('authorization'), opts)) {
      // The reference answers 401 with an empty body and a Basic challenge.
      return c.body(null, 401, { 'WWW-Authenticate': 'Basic realm="redis-stream-coordinator"' });
    }
    const p = c.req.param('p');
    const g = c.req.param('g');
    if (p !== opts.streamPrefix || g !== group) {
      return c.json(
        { status: 'NOT_FOUND', errorCode: 'GROUP_NOT_FOUND', message: `Unknown group ${p}/${g}` },
        404,
      );
    }
    if (state.failWith) {
      return c.json(
        { status: 'SERVICE_UNAVAILABLE', errorCode: 'COORDINATOR_STATE_MUTEX_UNAVAILABLE', message: 'busy' },
        state.failWith as 503,
      );
    }
    return c.json(state.body ?? referenceRoutingBody(p, g, state.shardCount, state.metadataVersion));
  });
  return { app, fetch: (url, init) => app.request(url, init), state, requests: () => requests };
}

function authorized(header: string | undefined, opts: ReferenceDoubleOptions): boolean {
  if (!opts.basic && !opts.token) return true;
  if (!header) return false;
  const [scheme, value = ''] = header.split(' ', 2);
  if (opts.basic && scheme?.toLowerCase() === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    return decoded === `${opts.basic.username}:${opts.basic.password}`;
  }
  return opts.token !== undefined && scheme?.toLowerCase() === 'bearer' && value === opts.token;
}
