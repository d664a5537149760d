/**
 * The committed console bundle is what `npm run build:console` makes of the sources now, so a
 * change to `src/console/app/` can never ship with a stale script.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { buildConsoleModule, CONSOLE_BUNDLE_PATH } from '../../scripts/build-console.js';

describe('console > generated bundle', () => {
  it('equals a fresh build of the sources (run `npm run build:console` when this fails)', async () => {
    const committed = await readFile(CONSOLE_BUNDLE_PATH, 'utf8');
    expect(
      committed === (await buildConsoleModule()),
      'src/console/generated/console-bundle.ts is stale',
    ).toBe(true);
  });
});
