/**
 * The Worker bundle as `wrangler deploy` would upload it (built offline with `--dry-run`):
 * no ioredis and no Node built-ins (docs/architecture.md#source-layout, STYLE habit 5), and small enough for the Free plan.
 */
import { describe, expect, it } from 'vitest';
import { buildWorkerBundle } from '../support/worker.js';

// Workers Free accepts 3 MiB of compressed script; Paid 10 MiB.
const FREE_PLAN_GZIP_LIMIT = 3 * 1024 * 1024;

describe('worker > bundle', () => {
  it('contains no ioredis and imports no node: module', async () => {
    const bundle = await buildWorkerBundle();
    expect(bundle.code).not.toMatch(/ioredis/i);
    expect(bundle.code).not.toMatch(/\b(from|import|require)\s*\(?\s*["']node:/);
    expect(bundle.code).not.toMatch(/["']node:[a-z_/]+["']/);
    // Everything is inlined: no bare module imports are left for the runtime to resolve.
    expect(bundle.code).not.toMatch(/^\s*import\s.*\sfrom\s+["'][^"']+["']/m);
  });

  it('fits the Workers Free plan size limit', async () => {
    const bundle = await buildWorkerBundle();
    console.info(
      `worker bundle: ${(bundle.bytes / 1024).toFixed(1)} KiB raw, ${(bundle.gzipBytes / 1024).toFixed(1)} KiB gzipped`,
    );
    expect(bundle.gzipBytes).toBeLessThan(FREE_PLAN_GZIP_LIMIT);
  });
});
