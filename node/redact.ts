/**
 * Secret scrubbing for everything the Node adapter prints. Logs must never carry credentials,
 * tokens or Redis URLs with passwords (docs/security.md), so every log line goes through `redact`.
 */

/** Field names whose values are always replaced, whatever they hold. */
const SECRET_KEY = /password|passwd|secret|token|authorization|cookie|api[-_]?key|credential/i;

/**
 * `scheme://userinfo@` — the userinfo part is dropped wherever it appears in a string. It runs
 * to the authority's last `@` (as URL parsers read it), so an unencoded `@` in a password
 * (`redis://:pa@ss@host`) cannot leave part of the password in front of the host.
 */
const URL_USERINFO = /([a-z][a-z0-9+.-]*:\/\/)[^/?#\s]*@/gi;

/** What replaces a secret value. */
export const REDACTED = '[redacted]';

/** Removes the userinfo (user and password) from every URL inside `text`. */
export function redactUrl(text: string): string {
  return text.replace(URL_USERINFO, '$1');
}

/**
 * Only the scheme, host and port of a Redis URL (no credentials, database or options), for
 * lines that name where the store points.
 */
export function redisEndpoint(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    // Config validation makes this unreachable; never guess which part is the secret.
    return '[unparsable URL]';
  }
}

/** True when a field of this name holds a secret and must never be printed. */
function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/**
 * Returns a copy of `value` that is safe to log: secret-named fields replaced, URL userinfo
 * stripped from every string, errors flattened to plain objects (their messages scrubbed too).
 */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactUrl(value);
  if (value === null || typeof value !== 'object') return value;
  // Deep or cyclic structures do not belong in a log line.
  if (depth > 6) return '[truncated]';
  if (value instanceof Error) return redactError(value, depth);
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = isSecretKey(k) && v !== undefined && v !== null ? REDACTED : redact(v, depth + 1);
  }
  return out;
}

function redactError(e: Error, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = { name: e.name, message: redactUrl(e.message) };
  const code = (e as { code?: unknown }).code;
  if (code !== undefined) out.code = redact(code, depth + 1);
  // Domain errors are expected outcomes; a stack only helps for the unexpected ones.
  if (e.name !== 'CoordinatorError' && e.name !== 'ConfigError' && e.stack) out.stack = redactUrl(e.stack);
  if (e.cause !== undefined) out.cause = redact(e.cause, depth + 1);
  return out;
}
