/**
 * The vars `npm run dev:worker` gives the local Worker, and how they reach it: an env file that
 * only this user can read, in a private temporary directory (never the working tree), named to
 * wrangler with `--env-file`. On wrangler's command line (`--var K:V`) every user of the machine
 * could read them with `ps`.
 */
import { rmSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Variables whose presence means "credentials configured" (else the Worker runs open). */
export const CREDENTIAL_VARS = [
  'COORDINATOR_ADMIN_PASSWORD',
  'COORDINATOR_ADMIN_PASSWORD_HASH',
  'COORDINATOR_USERS',
] as const;

/** The local Upstash REST endpoint the Worker talks to. */
export interface UpstashEndpoint {
  url: string;
  token: string;
}

/**
 * The Worker's vars: the endpoint's URL and token plus every non-empty COORDINATOR_* variable of
 * `env`; without credentials, COORDINATOR_OPEN_MODE=true (`openMode` says so).
 */
export function workerVars(
  env: Record<string, string | undefined>,
  upstash: UpstashEndpoint,
): { vars: Record<string, string>; openMode: boolean } {
  const vars: Record<string, string> = {
    UPSTASH_REDIS_REST_URL: upstash.url,
    UPSTASH_REDIS_REST_TOKEN: upstash.token,
  };
  for (const [k, v] of Object.entries(env)) if (k.startsWith('COORDINATOR_') && v) vars[k] = v;
  const openMode = !CREDENTIAL_VARS.some((k) => env[k]);
  if (openMode) vars.COORDINATOR_OPEN_MODE = 'true';
  return { vars, openMode };
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * One `KEY=value` line that wrangler's dotenv parser reads back verbatim. Single and backtick
 * quotes are literal; double quotes expand `\n`, so they serve only values without a backslash
 * escape. A carriage return would be rewritten to a newline, so it is refused, as is a value
 * holding all three quote characters.
 */
export function dotenvLine(key: string, value: string): string {
  if (!NAME.test(key)) throw new Error(`${key}: not a valid variable name for an env file`);
  if (!value.includes('\r')) {
    if (!value.includes("'")) return `${key}='${value}'`;
    if (!value.includes('`')) return `${key}=\`${value}\``;
    if (!value.includes('"') && !/\\[nr]/.test(value)) return `${key}="${value}"`;
  }
  throw new Error(`${key}: this value cannot be written to an env file verbatim; set the var another way`);
}

/** A written env file; `remove()` deletes it and its directory (idempotent). */
export interface DevVarsFile {
  path: string;
  remove(): Promise<void>;
  /** The same, synchronously: for a `process.on('exit')` hook. */
  removeNow(): void;
}

/** Writes `vars` to `<dir>/rsc-dev-worker-*\/dev.vars`, mode 0600 in a 0700 directory. */
export async function writeDevVars(vars: Record<string, string>, dir = tmpdir()): Promise<DevVarsFile> {
  const text = `${Object.entries(vars)
    .map(([k, v]) => dotenvLine(k, v))
    .join('\n')}\n`;
  // mkdtemp creates the directory 0700, so nobody else can even list it.
  const home = await mkdtemp(join(dir, 'rsc-dev-worker-'));
  const path = join(home, 'dev.vars');
  const remove = () => rm(home, { recursive: true, force: true });
  try {
    await writeFile(path, text, { mode: 0o600, flag: 'wx' });
    // A umask can only narrow the mode; chmod pins it anyway.
    await chmod(path, 0o600);
  } catch (err) {
    await remove();
    throw err;
  }
  return { path, remove, removeNow: () => rmSync(home, { recursive: true, force: true }) };
}

/** Arguments of `wrangler dev`: loopback, `--test-scheduled`, the vars from `envFile`. */
export function wranglerDevArgs(opts: { port: string; envFile: string }): string[] {
  return ['dev', '--ip', '127.0.0.1', '--port', opts.port, '--test-scheduled', '--env-file', opts.envFile];
}
