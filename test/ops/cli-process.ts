/**
 * Test helper: runs the installed CLI launcher (`bin/redis-stream-coordinator.mjs`) as a real
 * child process with a clean environment and collects its exit code and output.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const LAUNCHER = join(repoRoot, 'bin', 'redis-stream-coordinator.mjs');

/** What one CLI run produced. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A fresh, empty home directory (the token file lives under it). */
export function freshHome(): string {
  return mkdtempSync(join(tmpdir(), 'rsc-cli-home-'));
}

/** Runs the CLI with `args`; the environment is only PATH, HOME and `env`. */
export function runCli(args: string[], env: Record<string, string>, home = freshHome()): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [LAUNCHER, ...args], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '', HOME: home, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    proc.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    proc.on('error', reject);
    proc.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A CLI process left running (for `serve`): its output so far and its exit. */
export interface RunningCli {
  proc: ReturnType<typeof spawn>;
  stdout(): string;
  /** Resolves with the first stdout line matching `pred`. */
  waitForLine(pred: (line: string) => boolean): Promise<string>;
  exited: Promise<number | null>;
}

/** Starts the CLI with `args` and returns while it runs. */
export function startCli(args: string[], env: Record<string, string>): RunningCli {
  const proc = spawn(process.execPath, [LAUNCHER, ...args], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: freshHome(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const waiters: Array<{ pred: (l: string) => boolean; resolve: (l: string) => void }> = [];
  proc.stdout?.on('data', (c: Buffer) => {
    out += c.toString();
    for (const line of out.split('\n')) {
      for (const w of waiters.filter((x) => x.pred(line))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  proc.stderr?.resume();
  const exited = new Promise<number | null>((resolve) => proc.on('close', (code) => resolve(code)));
  return {
    proc,
    stdout: () => out,
    waitForLine: (pred) => new Promise((resolve) => waiters.push({ pred, resolve })),
    exited,
  };
}
