/**
 * Command-line parsing for the CLI (`node:util` parseArgs): one option table, per-command
 * allow-lists, integer options, and where to connect with which credentials.
 */
import { parseArgs } from 'node:util';
import type { Credentials } from '../src/client/transport.js';
import type { ApiTarget, CredentialSource } from './cli-client.js';
import { usageError } from './cli-errors.js';
import { didYouMean } from './cli-suggest.js';
import { readStoredToken } from './cli-token.js';

/** Default coordinator URL (also `RSC_URL`). */
const DEFAULT_URL = 'http://127.0.0.1:8080';
/** Default per-request timeout, ms. */
const DEFAULT_TIMEOUT_MS = 10_000;

/** Every option the CLI knows; each command accepts the global ones plus its own. */
export const OPTIONS = {
  url: { type: 'string' },
  user: { type: 'string' },
  password: { type: 'string' },
  token: { type: 'string' },
  json: { type: 'boolean' },
  output: { type: 'string', short: 'o' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
  timeout: { type: 'string' },
  shards: { type: 'string' },
  group: { type: 'string' },
  reason: { type: 'string' },
  'requested-by': { type: 'string' },
  force: { type: 'boolean' },
  mode: { type: 'string' },
  print: { type: 'boolean' },
  all: { type: 'boolean' },
  iterations: { type: 'string' },
  interval: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  to: { type: 'string' },
  execute: { type: 'boolean' },
} as const;

/** Option values by name. */
export type OptionValues = {
  [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string;
};

/** Options every command accepts. */
const GLOBAL_OPTIONS = [
  'url',
  'user',
  'password',
  'token',
  'json',
  'output',
  'help',
  'version',
  'timeout',
] as const;

/** How a command prints what the API answered: tables (`wide`: more columns), or the raw answer as JSON or YAML. */
export type OutputFormat = 'table' | 'wide' | 'json' | 'yaml';
/** Every `-o` value, in the order help and completion list them. */
export const FORMATS: readonly OutputFormat[] = ['table', 'wide', 'json', 'yaml'];

/** `-o/--output FORMAT`, with `--json` as `-o json`; anything else is a usage error. */
export function outputFormat(values: OptionValues): OutputFormat {
  const asked = values.output?.trim().toLowerCase();
  if (asked === undefined) return values.json ? 'json' : 'table';
  const format = FORMATS.find((f) => f === asked);
  if (!format) {
    throw usageError(
      `-o/--output must be one of ${FORMATS.join(', ')}, got '${values.output}'${didYouMean(asked, FORMATS)}`,
    );
  }
  if (values.json && format !== 'json') throw usageError(`--json contradicts -o ${format}`);
  return format;
}

/** Whether `argv` asks for JSON output (read before parsing, so a bad command line fails as JSON too). */
export function wantsJson(argv: readonly string[]): boolean {
  return argv.some(
    (a, i) =>
      a === '--json' ||
      a === '-ojson' ||
      a === '--output=json' ||
      ((a === '-o' || a === '--output') && argv[i + 1] === 'json'),
  );
}

/** A parsed command line. */
export interface CommandLine {
  positionals: string[];
  values: OptionValues;
}

/** Parses `argv` (without node and script); unknown options and missing values are usage errors. */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
    });
    return { positionals, values: values as OptionValues };
  } catch (err) {
    const unknown =
      (err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && unknownOption(argv);
    if (unknown) {
      const suggestion = unknown.startsWith('--')
        ? didYouMean(unknown.slice(2), Object.keys(OPTIONS), '--')
        : '';
      throw usageError(`unknown option '${unknown}'${suggestion}`);
    }
    throw usageError(err instanceof Error ? err.message : String(err));
  }
}

/** The first option of `argv` the CLI does not know, as typed (`--forse`), or undefined. */
function unknownOption(argv: readonly string[]): string | undefined {
  const { tokens } = parseArgs({
    args: [...argv],
    options: OPTIONS,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const token = tokens.find((t) => t.kind === 'option' && !Object.hasOwn(OPTIONS, t.name));
  return token?.kind === 'option' ? token.rawName : undefined;
}

/**
 * The positional arguments `names` (the last `optional` of them may be left out), none blank, or
 * a usage error naming the missing or unexpected one.
 */
export function positionals(args: string[], names: readonly string[], usage: string, optional = 0): string[] {
  if (args.length < names.length - optional) throw usageError(`missing <${names[args.length]}>: ${usage}`);
  if (args.length > names.length) throw usageError(`unexpected argument '${args[names.length]}': ${usage}`);
  for (const [i, a] of args.entries()) {
    if (a.trim() === '') throw usageError(`<${names[i]}> must not be blank`);
  }
  return args;
}

/** Rejects options that the command does not take (a typo should not be silently ignored). */
export function allowOnly(values: OptionValues, own: readonly (keyof OptionValues)[], command: string): void {
  const allowed = new Set<string>([...GLOBAL_OPTIONS, ...own]);
  for (const [name, v] of Object.entries(values)) {
    if (v !== undefined && !allowed.has(name))
      throw usageError(`option --${name} does not apply to '${command}'`);
  }
}

/** An integer option within [min, max], or undefined when absent. */
export function intOption(
  values: OptionValues,
  name: keyof OptionValues,
  min: number,
  max: number,
): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const n = typeof raw === 'string' && /^-?\d+$/.test(raw.trim()) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw usageError(`--${name} must be an integer between ${min} and ${max}`);
  }
  return n;
}

/** An integer positional argument within [min, max]. */
export function intArgument(raw: string, name: string, min: number, max: number): number {
  const n = /^-?\d+$/.test(raw.trim()) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw usageError(`<${name}> must be an integer between ${min} and ${max}, got '${raw}'`);
  }
  return n;
}

/**
 * Credentials in order of precedence: `--token`, `--user`/`--password`, `RSC_TOKEN`,
 * `RSC_USER`/`RSC_PASSWORD`, the token stored by `login`, none.
 */
async function resolveCredentials(
  values: OptionValues,
  env: Record<string, string | undefined>,
  tokenFile: string,
  url: string,
): Promise<{ credentials: Credentials | undefined; credentialSource: CredentialSource }> {
  if (values.token) return { credentials: { token: values.token }, credentialSource: 'option' };
  if (values.user !== undefined) {
    const password = values.password ?? env.RSC_PASSWORD;
    if (password === undefined) throw usageError('--user needs --password (or RSC_PASSWORD)');
    return { credentials: { username: values.user, password }, credentialSource: 'option' };
  }
  if (values.password !== undefined) throw usageError('--password needs --user (or RSC_USER)');
  if (env.RSC_TOKEN) return { credentials: { token: env.RSC_TOKEN }, credentialSource: 'env' };
  if (env.RSC_USER) {
    if (env.RSC_PASSWORD === undefined) throw usageError('RSC_USER needs RSC_PASSWORD');
    return { credentials: { username: env.RSC_USER, password: env.RSC_PASSWORD }, credentialSource: 'env' };
  }
  // Only the token `login` got from this very URL: a token never travels to another coordinator.
  const stored = await readStoredToken(tokenFile, url);
  return stored
    ? { credentials: { token: stored }, credentialSource: 'file' }
    : { credentials: undefined, credentialSource: 'none' };
}

/** The coordinator's base URL from `--url`, `RSC_URL` or the default; must be http(s). */
function resolveUrl(values: OptionValues, env: Record<string, string | undefined>): string {
  const raw = values.url ?? env.RSC_URL ?? DEFAULT_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw usageError(`--url must be an http(s) URL, got '${raw}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw usageError(`--url must be an http(s) URL, got '${raw}'`);
  }
  return url.toString().replace(/\/+$/, '');
}

/** Where to connect and how, from the global options and the environment. */
export async function resolveTarget(
  values: OptionValues,
  env: Record<string, string | undefined>,
  tokenFile: string,
): Promise<ApiTarget> {
  const url = resolveUrl(values, env);
  return {
    url,
    ...(await resolveCredentials(values, env, tokenFile, url)),
    timeoutMs: intOption(values, 'timeout', 1, 600_000) ?? DEFAULT_TIMEOUT_MS,
  };
}
