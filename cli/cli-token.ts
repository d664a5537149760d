/**
 * Where `login` keeps its bearer tokens: `~/.config/redis-stream-coordinator/tokens.json`, one
 * token per coordinator URL (as `gh` keeps one per host), readable by the owner only (directory
 * 0700, file 0600). A token is only ever sent to the URL it was issued by: `--url` pointing
 * elsewhere finds none.
 */
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** The token file under `home` (@default the user's home directory). */
export function tokenFilePath(home: string = homedir()): string {
  return join(home, '.config', 'redis-stream-coordinator', 'tokens.json');
}

/** The file's content: `{version: 1, tokens: {<url>: <token>}}`. */
interface TokenFile {
  version: 1;
  tokens: Record<string, string>;
}

/** The stored tokens by URL (empty when the file is missing or unreadable). */
async function readTokens(path: string): Promise<Record<string, string>> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<TokenFile>;
    const out: Record<string, string> = Object.create(null);
    for (const [url, token] of Object.entries(parsed.tokens ?? {})) {
      if (typeof token === 'string' && token !== '') out[url] = token;
    }
    return out;
  } catch {
    return Object.create(null);
  }
}

/** Writes the tokens with owner-only permissions, replacing the file in one rename. */
async function writeTokens(path: string, tokens: Record<string, string>): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const body: TokenFile = { version: 1, tokens: { ...tokens } };
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
  // `mode` only applies when the file is created: tighten it whatever was there before.
  await chmod(temp, 0o600);
  await rename(temp, path);
}

/** The token stored for `url`, or null when there is none. */
export async function readStoredToken(path: string, url: string): Promise<string | null> {
  return (await readTokens(path))[url] ?? null;
}

/** Stores `token` for `url`, keeping the other URLs' tokens. */
export async function storeToken(path: string, url: string, token: string): Promise<void> {
  const tokens = await readTokens(path);
  tokens[url] = token;
  await writeTokens(path, tokens);
}

/** Forgets the token of `url` (every token with `url` null); the URLs whose token was removed. */
export async function forgetTokens(path: string, url: string | null): Promise<string[]> {
  const tokens = await readTokens(path);
  const removed = Object.keys(tokens).filter((u) => url === null || u === url);
  if (removed.length === 0) return [];
  for (const u of removed) delete tokens[u];
  await writeTokens(path, tokens);
  return removed;
}
