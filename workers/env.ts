/**
 * What the Worker is given by the platform: bindings (vars and secrets), and the shapes of
 * the scheduled controller and execution context it uses (declared here, narrowly, instead of
 * loading @cloudflare/workers-types globals beside the DOM and Node ones).
 */
import { z } from 'zod';
import { keyLockingByDefault } from '../src/store/upstash-script.js';

/** Every var of wrangler.jsonc and every secret of .dev.vars.example. */
type WorkerBindingName =
  | 'UPSTASH_REDIS_REST_URL'
  | 'COORDINATOR_KEY_PREFIX'
  | 'COORDINATOR_ID'
  | 'COORDINATOR_PROVISIONING'
  | 'COORDINATOR_SWEEP_SUBREQUESTS'
  | 'LOG_LEVEL'
  | 'UPSTASH_REDIS_REST_TOKEN'
  | 'COORDINATOR_ADMIN_PASSWORD'
  | 'COORDINATOR_ADMIN_PASSWORD_HASH'
  | 'COORDINATOR_USERS'
  | 'COORDINATOR_TOKEN_SECRET'
  | 'COORDINATOR_TOKEN_SECRET_PREVIOUS';

/**
 * Bindings as Workers hands them over: the `vars` of wrangler.jsonc and the secrets listed in
 * .dev.vars.example, each optional (the schemas here and in src/config.ts say what is required).
 * Every other variable of docs/operating.md#configuration is read too, by name. Spelled out
 * rather than taken from the `Cloudflare.Env` that `wrangler types` generates (env.generated.d.ts,
 * `npm run types:worker`): that namespace is ambient, so the published types would not compile in
 * a project without it. A type test keeps the two lists equal, and any Worker project's own `Env`
 * holding these bindings satisfies `ExportedHandler<Env>` with this entry.
 */
export type WorkerEnv = { readonly [K in WorkerBindingName]?: string | undefined };

/** The part of `ScheduledController` the Worker reads. */
export interface ScheduledControllerLike {
  /** When the cron trigger was due (epoch ms): the sweep's clock reading. */
  readonly scheduledTime: number;
  readonly cron: string;
}

/** The Workers `ExecutionContext` (Hono declares the same shape). */
export type { ExecutionContext } from 'hono';

/**
 * Worker-only settings, read beside the shared config schema (`src/config.ts` is the Node and
 * Worker schema; the Upstash endpoint and the sweep budget only exist here).
 */
const workerSchema = z.object({
  /** `https://…upstash.io` (or `http://127.0.0.1:…` for the local REST bridge). */
  UPSTASH_REDIS_REST_URL: z
    .string({ error: 'is required (the Upstash REST URL)' })
    .trim()
    .regex(/^https?:\/\/[^\s/?#]+/, 'must be an http(s) URL'),
  /** A secret: `wrangler secret put UPSTASH_REDIS_REST_TOKEN`. */
  UPSTASH_REDIS_REST_TOKEN: z
    .string({ error: 'is required (the Upstash REST token)' })
    .trim()
    .min(1, 'is empty'),
  /**
   * Subrequests one cron invocation may spend. @default 50 (the Workers Free plan limit; set
   * 1000 on Workers Paid).
   */
  COORDINATOR_SWEEP_SUBREQUESTS: z.coerce.number().int().min(20).max(100_000).default(50),
  /**
   * `true` runs the scripts that declare every key they touch with Upstash's `allow-key-locking`
   * flag (scripts of different streams then run in parallel), `false` without it
   * (docs/workers.md#upstash-key-locking). @default true when the REST URL's host ends with
   * `.upstash.io`, false otherwise (Redis behind a self-hosted REST endpoint refuses the flag)
   */
  UPSTASH_KEY_LOCKING: z
    .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], { error: 'must be true or false' })
    .transform((v) => ['true', '1', 'yes', 'on'].includes(v))
    .optional(),
  /** `debug`, `info`, `warn` or `error`. @default 'info' */
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
});

/** The validated Worker-only settings. */
export type WorkerSettings = z.output<typeof workerSchema>;

/** Whether the Upstash store runs its scripts under per-key locks: the override, else by the URL's host. */
export function keyLockingOf(settings: WorkerSettings): boolean {
  return settings.UPSTASH_KEY_LOCKING ?? keyLockingByDefault(settings.UPSTASH_REDIS_REST_URL);
}

/** String-valued bindings only (the shared config schema reads strings, as from an env). */
export function stringBindings(env: WorkerEnv): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(env)) {
    if (typeof v === 'string') out[k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
  }
  return out;
}

/** Parses the Worker-only settings; problems name the binding, never its value. */
export function parseWorkerSettings(
  env: Record<string, string | undefined>,
): { ok: true; settings: WorkerSettings } | { ok: false; problems: string[] } {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(workerSchema.shape)) {
    const v = env[key];
    if (v !== undefined && v !== '') picked[key] = v;
  }
  const r = workerSchema.safeParse(picked);
  if (r.success) return { ok: true, settings: r.data };
  return { ok: false, problems: r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`) };
}
