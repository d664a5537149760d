/**
 * The Node adapter as a conformance target: `startServer` from node/server.ts on port 0 over
 * the ioredis store and the private test Redis. Its interval sweep is parked (one hour) so
 * housekeeping runs only when a scenario asks, exactly as with the Worker's cron.
 */
import { inject } from 'vitest';
import { type RunningServer, startServer } from '../../node/server.js';
import { parseConfig } from '../../src/config.js';
import { Coordinator } from '../../src/coordinator.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import {
  type ConformanceTarget,
  requestInit,
  type TargetFactory,
  TIMINGS,
  toTargetResponse,
} from './target.js';

/** Starts the Node adapter with `config` over the test timings. */
export const startNodeTarget: TargetFactory = async (config = {}) => {
  const namespace = uniquePrefix('conf-node');
  const parsed = parseConfig({
    ...TIMINGS,
    PORT: '0',
    HOST: '127.0.0.1',
    REDIS_URL: inject('redisUrl'),
    COORDINATOR_KEY_PREFIX: namespace,
    COORDINATOR_SWEEP_INTERVAL_MS: '3600000',
    ...config,
  });
  const server: RunningServer = await startServer({ config: parsed, log: () => undefined });
  const redis = standaloneClient();
  // The function the Node interval loop calls, over its own connection to the same state.
  const sweepClient = standaloneClient();
  const sweeper = new Coordinator({
    store: new IoredisStore(sweepClient, { namespace: parsed.keyPrefix }),
    config: parsed,
  });
  const target: ConformanceTarget = {
    runtime: 'node',
    namespace,
    redis,
    call: async (method, path, body, headers) =>
      toTargetResponse(await fetch(`${server.url}${path}`, requestInit(method, body, headers))),
    triggerSweep: async (now = Date.now()) => {
      await sweeper.sweep(now);
    },
    close: async () => {
      await server.close();
      await sweeper.close();
      sweepClient.disconnect();
      redis.disconnect();
    },
  };
  return target;
};
