/**
 * Code comments cite the project's own documentation as `docs/<page>.md#<anchor>`: every such
 * citation names a page that exists and a heading on it (GitHub's anchor rule), and no comment
 * cites a document the repository does not hold by section number.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const FOLDERS = ['src', 'node', 'workers', 'cli', 'scripts', 'bench', 'test', 'examples'];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sources(path);
    return /\.(ts|mjs)$/.test(name) ? [path] : [];
  });
}

/** GitHub's anchor of a markdown heading: lower case, punctuation dropped, spaces to dashes. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(page: string): Set<string> {
  const text = readFileSync(join(root, page), 'utf8');
  return new Set([...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => anchorOf(m[1]!.replace(/`/g, ''))));
}

const files = FOLDERS.flatMap((f) => sources(join(root, f)));

/** A section sign, a file name of the design notes, or an issue number (built so this file does not match itself). */
const STALE = new RegExp(['\\u00a7', '(PROTOCOL|SPEC)\\.md', '\\b[Ii]ssue \\d'].join('|'));

describe('docs > citations in code', () => {
  it('names existing pages and headings', () => {
    const pages = new Map<string, Set<string>>();
    const broken: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/docs\/([\w-]+\.md)(?:#([\w-]+))?/g)) {
        const page = `docs/${m[1]}`;
        if (!pages.has(page)) {
          try {
            pages.set(page, anchors(page));
          } catch {
            pages.set(page, new Set(['<missing page>']));
          }
        }
        const known = pages.get(page)!;
        if (known.has('<missing page>') || (m[2] && !known.has(m[2])))
          broken.push(`${relative(root, file)}: ${m[0]}`);
      }
    }
    expect(broken).toEqual([]);
    expect(pages.size).toBeGreaterThan(0);
  });

  it('cites no section number of a document the repository does not hold', () => {
    const stale = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => ({ line, at: `${relative(root, file)}:${i + 1}` }))
        .filter(({ line }) => STALE.test(line))
        .map(({ at }) => at),
    );
    expect(stale).toEqual([]);
  });
});
