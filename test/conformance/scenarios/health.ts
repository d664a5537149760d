/**
 * Liveness and health (docs/protocol.md#monitoring-views, docs/protocol.md#actuator): the actuator is public, monitoring health sees
 * the store's Redis.
 */
import { expect } from 'vitest';
import type { Scenario } from '../scenario.js';

/** Scenarios about health endpoints. */
export const healthScenarios: Scenario[] = [
  {
    name: 'serves the actuator and reports Redis UP through the store in use',
    async run(t) {
      const health = await t.call('GET', '/actuator/health');
      expect(health.status).toBe(200);
      expect(health.body).toEqual({
        status: 'UP',
        components: { redis: { status: 'UP' }, lifecycle: { status: 'UP' } },
      });
      const readiness = await t.call('GET', '/actuator/health/readiness');
      expect(readiness.status).toBe(200);
      expect(readiness.body.status).toBe('UP');
      const liveness = await t.call('GET', '/actuator/health/liveness');
      expect(liveness.status).toBe(200);
      expect(liveness.body).toEqual({ status: 'UP' });
      const info = await t.call('GET', '/actuator/info');
      expect(info.status).toBe(200);
      expect(info.body.app.name).toBe('redis-stream-coordinator-edge');
      const mon = await t.call('GET', '/coord/v1/monitoring/health');
      expect(mon.status).toBe(200);
      expect(mon.body).toMatchObject({ status: 'UP', redis: 'UP', loop: 'UP' });
    },
  },
];
