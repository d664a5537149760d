/**
 * A Worker keeping one edge producer per stream for the isolate's life, with `revalidateMs` from
 * its bindings, that hands the producer's background routing work to `ctx.waitUntil` as
 * docs/producing.md#at-the-edge asks: `POST /publish` {streamPrefix, partitionKey} answers the
 * shard the record went to.
 */
import { Redis } from '@upstash/redis/cloudflare';
import type { ExecutionContext } from 'hono';
import { createProducer, type Producer, upstashAdapter } from '../../../src/client/producer-edge.js';

/** Bindings the Worker needs. */
export interface RevalidatingWorkerEnv {
  COORDINATOR_URL: string;
  UPSTASH_REDIS_REST_URL: string;
  UPSTASH_REDIS_REST_TOKEN: string;
  REVALIDATE_MS: string;
}

const producers = new Map<string, Producer>();

function producerFor(env: RevalidatingWorkerEnv, streamPrefix: string): Producer {
  let p = producers.get(streamPrefix);
  if (!p) {
    const client = new Redis({
      url: env.UPSTASH_REDIS_REST_URL,
      token: env.UPSTASH_REDIS_REST_TOKEN,
      automaticDeserialization: false,
      enableAutoPipelining: false,
      enableTelemetry: false,
      retry: false,
    });
    p = createProducer({
      coordinatorUrl: env.COORDINATOR_URL,
      streamPrefix,
      redis: upstashAdapter(client),
      revalidateMs: Number(env.REVALIDATE_MS),
    });
    producers.set(streamPrefix, p);
  }
  return p;
}

/** The Worker's module entry. */
export default {
  async fetch(request: Request, env: RevalidatingWorkerEnv, ctx: ExecutionContext): Promise<Response> {
    const { streamPrefix, partitionKey } = (await request.json()) as {
      streamPrefix: string;
      partitionKey: string;
    };
    const producer = producerFor(env, streamPrefix);
    try {
      const r = await producer.publish({ partitionKey, fields: { k: partitionKey } });
      return Response.json({ ok: true, shardIndex: r.shardIndex });
    } catch (err) {
      return Response.json({ ok: false, message: err instanceof Error ? err.message : String(err) });
    } finally {
      ctx.waitUntil(producer.settled());
    }
  },
};
