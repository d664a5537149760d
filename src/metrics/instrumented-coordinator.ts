/**
 * Heartbeat outcomes by status and path, recorded around the use-case surface: the wrapped
 * `CoordinatorApi` forwards every call and counts each heartbeat's answer, labelled fast when
 * the instrumented Store saw its fast path hit.
 */
import type { CoordinatorApi } from '../coordinator-api.js';
import { isCoordinatorError } from '../core/errors.js';
import type { HeartbeatInput, HeartbeatOutput } from '../core/heartbeat-types.js';
import type { CoordinatorMetrics } from './coordinator-metrics.js';
import { forwardingProxy } from './forwarding-proxy.js';
import type { FastPathMarks } from './instrumented-store.js';

/** `api` with heartbeat outcomes recorded in `metrics`; pass the marks given to `instrumentStore`. */
export function instrumentCoordinator<T extends CoordinatorApi>(
  api: T,
  metrics: CoordinatorMetrics,
  marks: FastPathMarks,
): T {
  const heartbeat = async (
    prefix: string,
    group: string,
    input: HeartbeatInput,
  ): Promise<HeartbeatOutput> => {
    let status = 'INTERNAL_ERROR';
    try {
      const out = await api.heartbeat(prefix, group, input);
      status = out.status;
      return out;
    } catch (err) {
      if (isCoordinatorError(err)) status = err.code;
      throw err;
    } finally {
      const fast = marks.claim(prefix, group, input.memberId);
      metrics.observeHeartbeat(status, fast ? 'fast' : 'full');
    }
  };
  return forwardingProxy(api, { heartbeat } as Partial<T>);
}
