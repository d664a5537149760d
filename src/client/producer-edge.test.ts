import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** Every module reachable from `entry` through runtime imports (type-only imports are erased). */
function runtimeImports(entry: string): { files: Set<string>; bare: Set<string> } {
  const files = new Set<string>();
  const bare = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(file, 'utf8');
    const re = /^\s*(import|export)\s+(?!type\s)[^'"]*?from\s+'([^']+)'|^\s*import\s+'([^']+)'/gm;
    for (const m of text.matchAll(re)) {
      const spec = m[2] ?? m[3]!;
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      else bare.add(spec);
    }
  };
  visit(entry);
  return { files, bare };
}

describe('producer SDK > edge entry', () => {
  it('reaches neither ioredis nor any node: module at runtime', () => {
    const entry = fileURLToPath(new URL('./producer-edge.ts', import.meta.url));
    const { files, bare } = runtimeImports(entry);
    expect(files.size).toBeGreaterThan(5);
    expect(
      [...bare].filter((s) => s === 'ioredis' || s.startsWith('node:') || s === '@upstash/redis'),
    ).toEqual([]);
  });
});
