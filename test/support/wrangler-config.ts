/**
 * The Worker's wrangler.jsonc as the tests read it: JSON with comments and trailing commas, the
 * dialect wrangler accepts. `compatibilityDate()` is what Miniflare must run with to match the
 * deployed Worker.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root (where wrangler.jsonc lives). */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Path of the Worker's configuration file. */
export const WRANGLER_CONFIG_PATH = join(ROOT, 'wrangler.jsonc');

/** JSONC → JSON: drops `//` and block comments outside strings, then commas before `}` or `]`. */
export function stripJsonc(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      // A string, escapes included, copied as it is.
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else {
      out += c;
      i++;
    }
  }
  // Commas left before a closing bracket (strings hold no unescaped newline, so the pattern
  // cannot reach into one across the whitespace it allows).
  return out.replace(/,(\s*[}\]])/g, '$1');
}

/** The parsed configuration (fields as wrangler names them). */
export async function readWranglerConfig(): Promise<Record<string, unknown>> {
  return JSON.parse(stripJsonc(await readFile(WRANGLER_CONFIG_PATH, 'utf8'))) as Record<string, unknown>;
}

/** `compatibility_date` of wrangler.jsonc. */
export async function compatibilityDate(): Promise<string> {
  const date = (await readWranglerConfig()).compatibility_date;
  if (typeof date !== 'string') throw new Error('wrangler.jsonc has no compatibility_date');
  return date;
}
