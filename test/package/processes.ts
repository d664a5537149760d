/**
 * Test helpers for the package tests: run a command to completion with a time limit, and run the
 * coordinator as a child process, collecting its JSON log lines.
 */
import { type ChildProcess, spawn } from 'node:child_process';

/** What one finished command produced. */
export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Options of `run`. */
export interface RunOptions {
  cwd: string;
  /** Added to a clean environment of PATH and HOME only. @default {} */
  env?: Record<string, string>;
  /** Killed (SIGKILL) after this long. @default 60_000 */
  timeoutMs?: number;
}

/** PATH and HOME of this process: enough for node, npm and the shell scripts. */
export function baseEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };
}

/** Runs `command` to completion; a timeout is a rejection that names the command and its output. */
export function run(command: string, args: readonly string[], opts: RunOptions): Promise<Finished> {
  const { cwd, env = {}, timeoutMs = 60_000 } = opts;
  return new Promise((resolve, reject) => {
    const proc = spawn(command, [...args], { cwd, env: { ...baseEnv(), ...env }, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    proc.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} took over ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    proc.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    proc.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Like `run`, but a non-zero exit is a rejection carrying the output. */
export async function runOk(command: string, args: readonly string[], opts: RunOptions): Promise<string> {
  const done = await run(command, args, opts);
  if (done.code !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited ${done.code}\n${done.stdout}\n${done.stderr}`);
  }
  return done.stdout;
}

/** One JSON log line of the coordinator. */
export type LogLine = { msg: string } & Record<string, unknown>;

/** A running coordinator process. */
export interface Service {
  proc: ChildProcess;
  lines: LogLine[];
  stderr(): string;
  /** Resolves with the first line (seen or future) matching `pred`. */
  waitForLine(pred: (l: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}

/** Starts `node <args>` in `cwd` with a clean environment plus `env`. */
export function startService(args: readonly string[], cwd: string, env: Record<string, string>): Service {
  const proc = spawn(process.execPath, [...args], {
    cwd,
    env: { ...baseEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: LogLine[] = [];
  const waiters = new Set<{ pred: (l: LogLine) => boolean; resolve: (l: LogLine) => void }>();
  let partial = '';
  let stderr = '';
  proc.stdout?.on('data', (chunk: Buffer) => {
    partial += chunk.toString();
    const complete = partial.split('\n');
    partial = complete.pop() ?? '';
    for (const raw of complete) {
      let line: LogLine;
      try {
        line = JSON.parse(raw) as LogLine;
      } catch {
        line = { msg: raw };
      }
      lines.push(line);
      for (const w of waiters) if (w.pred(line)) w.resolve(line);
    }
  });
  proc.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const describe = () => `stdout:\n${lines.map((l) => JSON.stringify(l)).join('\n')}\nstderr:\n${stderr}`;
  return {
    proc,
    lines,
    stderr: () => stderr,
    exited,
    waitForLine(pred, timeoutMs = 20_000) {
      const seen = lines.find(pred);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const waiter = {
          pred,
          resolve: (l: LogLine) => {
            clearTimeout(timer);
            waiters.delete(waiter);
            resolve(l);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no matching log line within ${timeoutMs} ms\n${describe()}`));
        }, timeoutMs);
        waiters.add(waiter);
        void exited.then((code) => {
          if (!waiters.has(waiter)) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          reject(new Error(`the coordinator exited (${code}) first\n${describe()}`));
        });
      });
    },
  };
}

/** Stops a service that a failed test left running. */
export function reap(service: Service | undefined): void {
  if (service && service.proc.exitCode === null && service.proc.signalCode === null) {
    service.proc.kill('SIGKILL');
  }
}

/**
 * Polls the readiness probe until it answers 200. A build whose app has no readiness route yet
 * (404) is probed on `/actuator/health` instead.
 */
export async function waitForReady(baseUrl: string, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let path = '/actuator/health/readiness';
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${baseUrl}${path}`);
      if (res.status === 200) return path;
      if (res.status === 404 && path !== '/actuator/health') path = '/actuator/health';
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${baseUrl}${path} not ready within ${timeoutMs} ms: ${last}`);
}
