/**
 * Optional stream scoping of MEMBER credentials: `COORDINATOR_MEMBER_STREAMS`
 * names, per MEMBER-only user, the streams it may heartbeat in — `user=orders|payments*` — so
 * one leaked member credential cannot register members in every stream. An entry is a stream
 * prefix exactly as the route reads it (percent-decoded), or a prefix of names ending in `*`.
 * Users without an entry keep every stream.
 */
import type { ConfiguredUser } from './auth-config.js';

/** Stream patterns of one user: exact names, or `name*` for names starting with `name`. */
export type StreamScope = readonly string[];

/** A problem with the variable, naming entries by number and never echoing a password. */
export interface StreamScopeIssue {
  path: 'COORDINATOR_MEMBER_STREAMS';
  message: string;
}

const PATH = 'COORDINATOR_MEMBER_STREAMS';

/** Parses `user=pattern|pattern,user=…` against the configured users; scopes by username. */
export function parseStreamScopes(
  raw: string | undefined,
  users: readonly ConfiguredUser[],
): { value: Map<string, StreamScope>; issues: StreamScopeIssue[] } {
  const value = new Map<string, StreamScope>();
  const issues: StreamScopeIssue[] = [];
  const entries = (raw ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  for (const [i, entry] of entries.entries()) {
    const problem = (message: string) => issues.push({ path: PATH, message: `entry #${i + 1}: ${message}` });
    const eq = entry.indexOf('=');
    const username = entry.slice(0, eq).trim();
    const patterns = entry
      .slice(eq + 1)
      .split('|')
      .map((p) => p.trim());
    const user = users.find((u) => u.username === username);
    if (eq <= 0 || patterns.some((p) => p === '' || p === '*'))
      problem('expected user=stream|stream (a stream may end in *)');
    else if (user === undefined) problem('names no configured user');
    else if (user.roles.some((r) => r !== 'MEMBER')) {
      problem(
        'only users holding MEMBER alone can be scoped (other roles reach routes that list every stream)',
      );
    } else if (value.has(username)) problem('repeats a user');
    else value.set(username, patterns);
  }
  return { value, issues };
}

/** True when `scope` lets its user act on stream `prefix`. */
export function scopeAllows(scope: StreamScope, prefix: string): boolean {
  return scope.some((p) => (p.endsWith('*') ? prefix.startsWith(p.slice(0, -1)) : prefix === p));
}

/**
 * The stream a `/coord/v1/streams/{p}/…` path acts on, as the route decodes it; null for any
 * other path, or when the segment does not decode (the route would refuse it anyway).
 */
export function streamOfPath(path: string): string | null {
  const seg = path.split('/');
  if (seg[1] !== 'coord' || seg[2] !== 'v1' || seg[3] !== 'streams' || !seg[4]) return null;
  try {
    return decodeURIComponent(seg[4]);
  } catch {
    return null;
  }
}
