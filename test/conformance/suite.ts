/**
 * Declares the whole conformance suite for one target factory. Scenarios without their own
 * settings share one target (open mode, test timings); each scenario with `config` gets a
 * target of its own, started and stopped around it.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { OPEN_MODE, type Scenario } from './scenario.js';
import { authScenarios } from './scenarios/auth.js';
import { badInputScenarios } from './scenarios/bad-input.js';
import { expiryScenarios } from './scenarios/expiry.js';
import { healthScenarios } from './scenarios/health.js';
import { heartbeatScenarios } from './scenarios/heartbeat.js';
import { monitoringScenarios } from './scenarios/monitoring.js';
import { nameScenarios } from './scenarios/names.js';
import { offsetsResetScenarios } from './scenarios/offsets-reset.js';
import { openModeScenarios } from './scenarios/open-mode.js';
import { reshardingScenarios } from './scenarios/resharding.js';
import { routingScenarios } from './scenarios/routing.js';
import { streamScenarios } from './scenarios/streams.js';
import { sweepScenarios } from './scenarios/sweep.js';
import type { ConformanceTarget, TargetFactory } from './target.js';

/** Every scenario group, in the order they run. */
export const SCENARIO_GROUPS: ReadonlyArray<readonly [string, Scenario[]]> = [
  ['health', healthScenarios],
  ['streams and groups', streamScenarios],
  ['producer routing', routingScenarios],
  ['heartbeat protocol', heartbeatScenarios],
  ['lease expiry', expiryScenarios],
  ['scheduled sweep', sweepScenarios],
  ['stream monitoring', monitoringScenarios],
  ['offsets reset', offsetsResetScenarios],
  ['bad input', badInputScenarios],
  ['hostile names', nameScenarios],
  ['open mode', openModeScenarios],
  ['authentication', authScenarios],
  ['resharding', reshardingScenarios],
];

/** `describe`s every scenario against targets made by `start`. */
export function defineConformanceSuite(runtime: string, start: TargetFactory): void {
  describe(`conformance > ${runtime}`, () => {
    let shared: ConformanceTarget | undefined;
    beforeAll(async () => {
      shared = await start(OPEN_MODE);
    });
    afterAll(async () => {
      await shared?.close();
    });

    for (const [group, scenarios] of SCENARIO_GROUPS) {
      if (scenarios.length === 0) continue;
      describe(group, () => {
        for (const s of scenarios) {
          it(s.name, async () => {
            if (!s.config) return s.run(shared!);
            const own = await start(s.config);
            try {
              await s.run(own);
            } finally {
              await own.close();
            }
          });
        }
      });
    }
  });
}
