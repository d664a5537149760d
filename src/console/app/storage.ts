/**
 * The session token and the paused flag in `sessionStorage` (per tab), with an in-memory
 * fallback when storage is unavailable (privacy modes), and the `#token=` fragment rule.
 */

const TOKEN_KEY = 'rsc.console.token';

/** Key of the auto-refresh paused flag. */
export const PAUSED_KEY = 'rsc.console.paused';

// Used when sessionStorage is unavailable: the console keeps working per page.
const memoryStore = new Map<string, string>();

/** Stores `value` under `key` (null removes it). */
export function saveItem(key: string, value: string | null): void {
  try {
    if (value === null) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, value);
  } catch {
    if (value === null) memoryStore.delete(key);
    else memoryStore.set(key, value);
  }
}

/** The value stored under `key`, or null. */
export function loadItem(key: string): string | null {
  try {
    const v = sessionStorage.getItem(key);
    return v === null ? (memoryStore.get(key) ?? null) : v;
  } catch {
    return memoryStore.get(key) ?? null;
  }
}

/** The session's Bearer token, or null. */
export function getToken(): string | null {
  return loadItem(TOKEN_KEY);
}

/** Makes `token` the session's. */
export function setToken(token: string): void {
  saveItem(TOKEN_KEY, token);
}

/** Forgets the session's token. */
export function clearToken(): void {
  saveItem(TOKEN_KEY, null);
}

/**
 * A `#token=` the tab did not take because it has a session already: it waits here only, for
 * the user to switch to it or drop it (session-offer.ts).
 */
export const offer: { token: string | null } = { token: null };

/**
 * Non-interactive runs open `/console#token=…`; the token leaves the address bar at once, so it
 * is neither kept in history nor visible in screenshots. A tab without a session takes it; a tab
 * with one keeps its own and only offers the link's, since a crafted link must not silently make
 * the user act as someone else. True when the stored token changed.
 */
export function takeFragmentToken(): boolean {
  const hash = location.hash.replace(/^#/, '');
  if (!hash) return false;
  const token = new URLSearchParams(hash).get('token');
  if (!token) return false;
  history.replaceState(history.state, '', location.pathname + location.search);
  const current = getToken();
  if (current === token) return false;
  if (current) {
    offer.token = token;
    return false;
  }
  setToken(token);
  return true;
}
