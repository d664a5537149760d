/**
 * The built Worker in Miniflare: `buildWorkerBundle()` runs `wrangler deploy --dry-run` (what
 * `wrangler deploy` would upload, built offline) once per test process, and `startWorker()`
 * loads that bundle into workerd with the given bindings, its console captured for assertions.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { Miniflare } from 'miniflare';
import { compatibilityDate } from './wrangler-config.js';

const execFileAsync = promisify(execFile);

/** Repository root (where wrangler.jsonc lives). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A built Worker bundle. */
export interface WorkerBundle {
  /** Path of the bundled ES module. */
  scriptPath: string;
  /** Its text. */
  code: string;
  /** Size in bytes, raw and gzipped. */
  bytes: number;
  gzipBytes: number;
  /** `compatibility_date` of wrangler.jsonc, which Miniflare must use too. */
  compatibilityDate: string;
}

let building: Promise<WorkerBundle> | undefined;

/** Builds the Worker like `wrangler deploy` would (offline, `--dry-run`), once per process. */
export function buildWorkerBundle(): Promise<WorkerBundle> {
  building ??= build();
  return building;
}

async function build(): Promise<WorkerBundle> {
  const outdir = await mkdtemp(join(tmpdir(), 'rsc-worker-'));
  const wrangler = join(REPO_ROOT, 'node_modules', '.bin', 'wrangler');
  await execFileAsync(wrangler, ['deploy', '--dry-run', '--outdir', outdir], {
    cwd: REPO_ROOT,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true', NO_COLOR: '1' },
    timeout: 120_000,
  });
  const scriptPath = join(outdir, 'index.js');
  const code = await readFile(scriptPath, 'utf8');
  const date = await compatibilityDate();
  return {
    scriptPath,
    code,
    bytes: Buffer.byteLength(code),
    gzipBytes: gzipSync(code).length,
    compatibilityDate: date,
  };
}

/** A Worker running in Miniflare. */
export interface RunningWorker {
  mf: Miniflare;
  /** Sends a request to the Worker's `fetch` handler (`path` is relative to http://worker.test). */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** Runs the `scheduled` handler as the cron trigger would, and waits for its `waitUntil` work. */
  scheduled(scheduledTime: number): Promise<void>;
  /** Console lines the Worker wrote (stdout and stderr of workerd). */
  logs: string[];
  close(): Promise<void>;
}

/** Starts the built Worker with `bindings` (vars and secrets alike). */
export async function startWorker(bindings: Record<string, string>): Promise<RunningWorker> {
  const bundle = await buildWorkerBundle();
  const logs: string[] = [];
  const collect = (stream: Readable) => {
    let rest = '';
    stream.on('data', (chunk: Buffer) => {
      const lines = (rest + chunk.toString('utf8')).split('\n');
      rest = lines.pop() ?? '';
      logs.push(...lines.filter((l) => l.trim() !== ''));
    });
  };
  const mf = new Miniflare({
    modules: true,
    scriptPath: bundle.scriptPath,
    // Module paths are resolved below this root; the bundle sits in its own temp directory.
    modulesRoot: dirname(bundle.scriptPath),
    compatibilityDate: bundle.compatibilityDate,
    bindings,
    host: '127.0.0.1',
    port: 0,
    telemetry: { enabled: false },
    handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
      collect(stdout);
      collect(stderr);
    },
  });
  try {
    await mf.ready;
  } catch (err) {
    throw new Error(`the Worker did not start: ${String(err)}\n${logs.join('\n')}`);
  }
  return {
    mf,
    logs,
    fetch: async (path, init) => {
      const res = await mf.dispatchFetch(`http://worker.test${path}`, init as never);
      return res as unknown as Response;
    },
    scheduled: async (scheduledTime) => {
      const worker = await mf.getWorker();
      const result = await worker.scheduled({ cron: '* * * * *', scheduledTime: new Date(scheduledTime) });
      if (result.outcome !== 'ok') throw new Error(`scheduled handler outcome: ${result.outcome}`);
    },
    close: () => mf.dispose(),
  };
}

/** Removes a bundle's output directory (optional; the OS cleans tmp too). */
export async function removeBundle(bundle: WorkerBundle): Promise<void> {
  await rm(join(bundle.scriptPath, '..'), { recursive: true, force: true });
}
