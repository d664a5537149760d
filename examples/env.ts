/**
 * What both examples read from the environment: where the coordinator and its Redis are, which
 * stream to use, and the credentials to send.
 *
 *   COORDINATOR_URL       default http://127.0.0.1:8080
 *   REDIS_URL             the coordinator's Redis (default redis://127.0.0.1:6379)
 *   STREAM                stream prefix, default `orders` (its first group has the same name)
 *   SHARDS                shard count when the example creates the stream, default 4
 *   COORDINATOR_TOKEN     a bearer token (`POST /coord/v1/auth/login`), or
 *   COORDINATOR_USERNAME  with COORDINATOR_PASSWORD: Basic credentials
 */
import { CoordinatorHttpError, createAdminClient } from '../src/client/admin-index.js';
import type { Credentials } from '../src/client/transport.js';

export const coordinatorUrl = process.env.COORDINATOR_URL ?? 'http://127.0.0.1:8080';
export const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const stream = process.env.STREAM ?? 'orders';

/** Credentials from the environment; undefined against an open-mode coordinator. */
export const credentials: Credentials | undefined = process.env.COORDINATOR_TOKEN
  ? { token: process.env.COORDINATOR_TOKEN }
  : process.env.COORDINATOR_USERNAME
    ? { username: process.env.COORDINATOR_USERNAME, password: process.env.COORDINATOR_PASSWORD ?? '' }
    : undefined;

/** Creates the stream (shard streams and first consumer group) unless it exists; needs WRITE. */
export async function ensureStream(requestedBy: string): Promise<void> {
  const admin = createAdminClient({ coordinatorUrl, credentials });
  try {
    await admin.createStream(stream, { initialShardCount: Number(process.env.SHARDS ?? 4), requestedBy });
  } catch (err) {
    // 409: it exists already.
    if (!(err instanceof CoordinatorHttpError && err.status === 409)) throw err;
  }
}
