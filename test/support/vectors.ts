/**
 * The routeV1 test vectors. The source of truth is `../shared/route-v1-vectors.json` beside the
 * repository (as CI lays it out); a verbatim copy in `test/fixtures/` keeps `npm test` working
 * on a clone without it, and a test checks that the two agree whenever both exist.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Path of the shared vectors file, if present. */
export const SHARED_VECTORS = fileURLToPath(
  new URL('../../../shared/route-v1-vectors.json', import.meta.url),
);
/** Path of the committed copy. */
export const FIXTURE_VECTORS = fileURLToPath(new URL('../fixtures/route-v1-vectors.json', import.meta.url));

/** Raw text of the vectors: the shared file when it exists, else the committed copy. */
export function vectorsText(): string {
  return readFileSync(existsSync(SHARED_VECTORS) ? SHARED_VECTORS : FIXTURE_VECTORS, 'utf8');
}
