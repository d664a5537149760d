/**
 * Where `login` keeps its bearer token: `~/.config/redis-stream-coordinator/token`, readable by
 * the owner only (directory 0700, file 0600).
 */
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** The token file under `home` (@default the user's home directory). */
export function tokenFilePath(home: string = homedir()): string {
  return join(home, '.config', 'redis-stream-coordinator', 'token');
}

/** The stored token, or null when there is none. */
export async function readStoredToken(path: string): Promise<string | null> {
  try {
    const token = (await readFile(path, 'utf8')).trim();
    return token === '' ? null : token;
  } catch {
    return null;
  }
}

/** Stores `token` with owner-only permissions (also tightening a file that already existed). */
export async function storeToken(path: string, token: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, `${token}\n`, { mode: 0o600 });
  // `mode` only applies when the file is created; an older, looser file is tightened here.
  await chmod(path, 0o600);
}
