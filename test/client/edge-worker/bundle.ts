/**
 * Bundles `worker.ts` as a Worker build would: one self-contained ES module for a fetch runtime
 * (platform neutral, Worker export conditions), so nothing Node-only can slip in unnoticed.
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { compatibilityDate } from '../../support/wrangler-config.js';

/** A bundled Worker module and what went into it. */
export interface EdgeBundle {
  /** The ES module text. */
  code: string;
  /** Source files bundled in, relative to the repository root (as esbuild's metafile names them). */
  inputs: string[];
  /** Imports left unresolved in the output (a self-contained Worker has none). */
  externalImports: string[];
  /** `compatibility_date` of wrangler.jsonc, so Miniflare runs the same runtime as the real Worker. */
  compatibilityDate: string;
}

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Builds the edge producer Worker (`entry`, beside this file) in memory. */
export async function bundleEdgeWorker(entry = './worker.ts'): Promise<EdgeBundle> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(entry, import.meta.url))],
    absWorkingDir: ROOT,
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    // `neutral` resolves no main fields by default; packages without `exports` still need them.
    mainFields: ['module', 'main'],
    metafile: true,
    logLevel: 'silent',
  });
  const output = result.outputFiles[0];
  if (!output) throw new Error('esbuild produced no output');
  const meta = Object.values(result.metafile.outputs)[0];
  return {
    code: output.text,
    inputs: Object.keys(result.metafile.inputs),
    externalImports: (meta?.imports ?? []).map((i) => i.path),
    compatibilityDate: await compatibilityDate(),
  };
}
