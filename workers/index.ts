/**
 * The Cloudflare Worker: `fetch` serves the `/coord/v1` app over the Upstash store; `scheduled`
 * (cron, every minute) runs a budgeted, resumable housekeeping sweep. Thin: everything is
 * built once per isolate from the bindings (`runtime.ts`).
 */
import type { ExecutionContext, ScheduledControllerLike, WorkerEnv } from './env.js';
import { refusalResponse } from './refusal.js';
import { runtimeFor } from './runtime.js';
import { runBudgetedSweep } from './sweep.js';

/** Answers one HTTP request (503 naming what to configure while the Worker must not serve). */
async function fetch(request: Request, env: WorkerEnv, ctx: ExecutionContext): Promise<Response> {
  const rt = runtimeFor(env);
  if (!rt.ready || rt.refusal.length > 0) {
    // Liveness holds even now: the Worker runs; readiness and everything else say what to fix.
    if (isLiveness(request)) return Response.json({ status: 'UP' });
    return refusalResponse(rt.refusal);
  }
  return rt.ready.app.fetch(request, env, ctx);
}

function isLiveness(request: Request): boolean {
  return request.method === 'GET' && new URL(request.url).pathname === LIVENESS_PATH;
}

/** Served by the app too; answered here while the Worker refuses to serve. */
const LIVENESS_PATH = '/actuator/health/liveness';

/** The cron trigger: housekeeping runs even while `fetch` refuses for lack of credentials. */
function scheduled(controller: ScheduledControllerLike, env: WorkerEnv, ctx: ExecutionContext): void {
  const rt = runtimeFor(env);
  const ready = rt.ready;
  if (!ready) return;
  const sweep = runBudgetedSweep({
    client: ready.client,
    config: ready.config,
    log: ready.log,
    now: controller.scheduledTime,
    budget: ready.settings.COORDINATOR_SWEEP_SUBREQUESTS,
    keyLocking: ready.keyLocking,
  }).then(
    (report) => {
      // Due streams left behind mean the cron cannot keep up with its budget: say so.
      const level = report.backlog > 0 ? 'warn' : report.groupsChanged > 0 ? 'info' : 'debug';
      ready.log(level, 'sweep', { cron: controller.cron, ...report });
    },
    (err: unknown) => ready.log('error', 'sweep failed', { cron: controller.cron, err }),
  );
  ctx.waitUntil(sweep);
}

/** The Worker's handlers. */
export default { fetch, scheduled };
