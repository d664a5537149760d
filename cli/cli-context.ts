/**
 * What a CLI command runs with: output streams, environment, clock and interruption, so the
 * commands themselves never touch `process` directly.
 */
import { userInfo } from 'node:os';
import { stringify } from 'yaml';
import { type CommandLine, type OutputFormat, outputFormat } from './cli-args.js';
import type { CliClient } from './cli-client.js';
import { colorEnabled, type Look, paint } from './cli-look.js';

/** The command's surroundings. */
export interface CliContext {
  env: Record<string, string | undefined>;
  /** Writes text to stdout (a newline is added). */
  out(text: string): void;
  /** Writes text to stderr (a newline is added). */
  err(text: string): void;
  /** Epoch ms. */
  now(): number;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Aborted on Ctrl-C once `listenForInterrupt()` was called. */
  signal: AbortSignal;
  /** Makes Ctrl-C abort `signal` instead of killing the process (live views). */
  listenForInterrupt(): void;
  /** Where `login` stores its token. */
  tokenFile: string;
  /** stdout is a terminal (live views redraw in place, status words are coloured). */
  isTTY: boolean;
  /** stderr is a terminal (`error:` is coloured). @default false */
  errIsTTY?: boolean;
}

/** A command that talks to the API. */
export type ApiCommand = (
  args: string[],
  cl: CommandLine,
  ctx: CliContext,
  api: CliClient,
) => Promise<number>;

/** How `format` draws human views on stdout: wide or not, coloured where colour is wanted. */
export function lookOf(ctx: CliContext, format: OutputFormat): Look {
  return { wide: format === 'wide', paint: paint(colorEnabled(ctx.env, ctx.isTTY)) };
}

/** `body` as `format` asks: pretty JSON, YAML (never coloured), or the human rendering. */
export function render(format: OutputFormat, body: unknown, human: () => string): string {
  if (format === 'json') return JSON.stringify(body, null, 2);
  if (format === 'yaml') return stringify(body).trimEnd();
  return human();
}

/** Prints `body` as `-o json|yaml` asks (or `--json`), else the human rendering (`-o wide`: more columns). */
export function print(ctx: CliContext, cl: CommandLine, body: unknown, human: (look: Look) => string): void {
  const format = outputFormat(cl.values);
  ctx.out(render(format, body, () => human(lookOf(ctx, format))));
}

/** Who mutations are recorded as: `--requested-by`, else `cli:<login name>`. */
export function requestedBy(cl: CommandLine): string {
  if (cl.values['requested-by']) return cl.values['requested-by'];
  try {
    return `cli:${userInfo().username}`;
  } catch {
    // Containers without a passwd entry for the uid.
    return 'cli';
  }
}
