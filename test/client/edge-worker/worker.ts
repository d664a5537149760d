/**
 * A tiny Worker over the producer SDK's edge entry, so tests can run it inside workerd:
 * `POST /publish` {streamPrefix, partitionKey, fields, eventId?} and `POST /batch`
 * {streamPrefix, records}. Answers carry the SDK's results, or a failure's `code` — the same
 * shape a real edge caller would see. Routing comes from `COORDINATOR_URL`; writes go to Redis
 * over the Upstash REST endpoint (`UPSTASH_REDIS_REST_URL` / `_TOKEN`).
 */
import { Redis } from '@upstash/redis/cloudflare';
import {
  type BatchResult,
  createProducer,
  isClientError,
  type Producer,
  type PublishRecord,
  upstashAdapter,
} from '../../../src/client/producer-edge.js';

/** Bindings the Worker needs. */
export interface EdgeWorkerEnv {
  COORDINATOR_URL: string;
  UPSTASH_REDIS_REST_URL: string;
  UPSTASH_REDIS_REST_TOKEN: string;
}

/** A failure as the Worker reports it. */
export interface EdgeError {
  code: string;
  retryable: boolean;
  message: string;
}

// One producer per stream for the isolate's life, as a real Worker would keep it: the routing
// cache then survives between requests.
const producers = new Map<string, Producer>();

function producerFor(env: EdgeWorkerEnv, streamPrefix: string): Producer {
  let p = producers.get(streamPrefix);
  if (!p) {
    const client = new Redis({
      url: env.UPSTASH_REDIS_REST_URL,
      token: env.UPSTASH_REDIS_REST_TOKEN,
      // Entry ids and script replies must stay strings.
      automaticDeserialization: false,
      enableAutoPipelining: false,
      enableTelemetry: false,
      retry: false,
    });
    p = createProducer({
      coordinatorUrl: env.COORDINATOR_URL,
      streamPrefix,
      redis: upstashAdapter(client),
      retryBackoffMs: 0,
    });
    producers.set(streamPrefix, p);
  }
  return p;
}

function toEdgeError(err: unknown): EdgeError {
  if (isClientError(err)) return { code: err.code, retryable: err.retryable, message: err.message };
  return {
    code: 'WORKER_FAILURE',
    retryable: false,
    message: err instanceof Error ? err.message : String(err),
  };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

async function handle(request: Request, env: EdgeWorkerEnv): Promise<Response> {
  const path = new URL(request.url).pathname;
  if (request.method !== 'POST' || (path !== '/publish' && path !== '/batch')) {
    return json(404, { ok: false, error: { code: 'NOT_FOUND', retryable: false, message: path } });
  }
  const body = (await request.json()) as { streamPrefix: string; records?: PublishRecord[] } & PublishRecord;
  const producer = producerFor(env, body.streamPrefix);
  if (path === '/batch') {
    const results: BatchResult[] = await producer.publishBatch(body.records ?? []);
    return json(
      200,
      results.map((r) => (r.ok ? r : { ok: false, error: toEdgeError(r.error) })),
    );
  }
  const { partitionKey, fields, eventId } = body;
  return json(200, { ok: true, ...(await producer.publish({ partitionKey, fields, eventId })) });
}

/** The Worker's module entry. */
export default {
  async fetch(request: Request, env: EdgeWorkerEnv): Promise<Response> {
    try {
      return await handle(request, env);
    } catch (err) {
      return json(500, { ok: false, error: toEdgeError(err) });
    }
  },
};
