/**
 * The built Worker as a conformance target: the `wrangler deploy --dry-run` bundle in
 * Miniflare, its Upstash store talking to the REST bridge on 127.0.0.1 in front of the private
 * test Redis. Housekeeping runs through the Worker's own `scheduled` handler.
 */
import { inject } from 'vitest';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import { startUpstashBridge } from '../support/upstash-bridge.js';
import { startWorker } from '../support/worker.js';
import {
  type ConformanceTarget,
  requestInit,
  type TargetFactory,
  TIMINGS,
  toTargetResponse,
} from './target.js';

/** Starts the built Worker with `config` as bindings over the test timings. */
export const startWorkerTarget: TargetFactory = async (config = {}) => {
  const namespace = uniquePrefix('conf-worker');
  const bridge = await startUpstashBridge({ redisUrl: inject('redisUrl') });
  const worker = await startWorker({
    ...TIMINGS,
    UPSTASH_REDIS_REST_URL: bridge.url,
    UPSTASH_REDIS_REST_TOKEN: bridge.token,
    COORDINATOR_KEY_PREFIX: namespace,
    // One cron run covers the whole namespace, as one Node sweep does (up to 500 streams); the
    // budget's deferral and resumption have their own test (test/workers/sweep.test.ts).
    COORDINATOR_SWEEP_SUBREQUESTS: '1000',
    ...config,
  }).catch(async (err) => {
    await bridge.close();
    throw err;
  });
  const redis = standaloneClient();
  const target: ConformanceTarget = {
    runtime: 'worker',
    namespace,
    redis,
    call: async (method, path, body, headers) =>
      toTargetResponse(await worker.fetch(path, requestInit(method, body, headers))),
    triggerSweep: (now = Date.now()) => worker.scheduled(now),
    close: async () => {
      await worker.close();
      await bridge.close();
      redis.disconnect();
    },
  };
  return target;
};
