/**
 * Test helper: runs `node/start.ts` as a real child process (as `npm start` does) and collects
 * its JSON log lines, so shutdown and private-Redis behaviour is observed end to end.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';

/** Repository root (the child runs there, like `npm start`). */
export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** One parsed log line of the child. */
export type LogLine = { ts: string; level: string; msg: string } & Record<string, unknown>;

/** A running `node/start.ts`. */
export interface CoordinatorProcess {
  proc: ChildProcess;
  lines: LogLine[];
  stderr(): string;
  /** Resolves with the first line (already seen or future) matching `pred`. */
  waitForLine(pred: (l: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** Resolves with the exit code (null if killed by a signal). */
  exited: Promise<number | null>;
}

/**
 * Starts the coordinator with a clean env: only PATH/HOME plus `env`; `via: 'npm'` runs
 * `npm start` instead of node itself (signals then go to npm).
 */
export function startCoordinator(
  env: Record<string, string>,
  via: 'node' | 'npm' = 'node',
): CoordinatorProcess {
  const base: Record<string, string> = { HOME: process.env.HOME ?? '/tmp', PATH: process.env.PATH ?? '' };
  const [cmd, args] =
    via === 'npm' ? ['npm', ['start', '--silent']] : [process.execPath, ['--import', 'tsx', 'node/start.ts']];
  const proc = spawn(cmd, args, {
    cwd: repoRoot,
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: LogLine[] = [];
  const waiters: Array<{ pred: (l: LogLine) => boolean; resolve: (l: LogLine) => void }> = [];
  let stdoutBuf = '';
  let stderrBuf = '';
  proc.stdout?.on('data', (chunk: Buffer) => {
    stdoutBuf += chunk.toString();
    let nl = stdoutBuf.indexOf('\n');
    while (nl >= 0) {
      const raw = stdoutBuf.slice(0, nl);
      stdoutBuf = stdoutBuf.slice(nl + 1);
      nl = stdoutBuf.indexOf('\n');
      let line: LogLine;
      try {
        line = JSON.parse(raw);
      } catch {
        line = { ts: '', level: 'raw', msg: raw };
      }
      lines.push(line);
      for (const w of waiters.filter((x) => x.pred(line))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  proc.stderr?.on('data', (chunk: Buffer) => {
    stderrBuf += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const describe = () => `stdout:\n${lines.map((l) => JSON.stringify(l)).join('\n')}\nstderr:\n${stderrBuf}`;
  return {
    proc,
    lines,
    stderr: () => stderrBuf,
    exited,
    waitForLine(pred, timeoutMs = 20_000) {
      const seen = lines.find(pred);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching log line\n${describe()}`)), timeoutMs);
        const waiter = {
          pred,
          resolve: (l: LogLine) => {
            clearTimeout(timer);
            resolve(l);
          },
        };
        waiters.push(waiter);
        void exited.then((code) => {
          clearTimeout(timer);
          reject(new Error(`coordinator exited (${code}) before the expected log line\n${describe()}`));
        });
      });
    },
  };
}

/**
 * A POST whose body is withheld until `finish()`, so the request stays in flight. It asks for
 * `100 Continue`, which Node's server sends as it hands the request to the app: `arrived`
 * therefore resolves once the server is handling the request.
 */
export function slowPost(
  url: string,
  body: string,
): { arrived: Promise<void>; finish(): void; response: Promise<{ status: number; body: string }> } {
  const bytes = Buffer.from(body);
  const req = request(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'content-length': String(bytes.length),
      expect: '100-continue',
    },
  });
  const half = Math.floor(bytes.length / 2);
  const arrived = new Promise<void>((resolve) => {
    req.once('continue', () => {
      req.write(bytes.subarray(0, half));
      resolve();
    });
  });
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
  });
  req.flushHeaders();
  return { arrived, response, finish: () => void arrived.then(() => req.end(bytes.subarray(half))) };
}

/** True while a process with this pid exists. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
