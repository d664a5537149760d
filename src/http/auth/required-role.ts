/**
 * The role a `/coord/v1` request needs (PROTOCOL §1.2), rules evaluated in order on the path
 * Hono routes on. One deliberate tightening: the anonymous heartbeat rule matches only
 * `POST /streams/{p}/groups/{g}/members/{m}/heartbeat`, not any path that merely contains
 * `/members/` and ends in `/heartbeat` (which would let `DELETE /streams/members/groups/heartbeat`
 * through without credentials).
 */
import type { Role } from './roles.js';

/** Path of the login route, which needs no role. */
export const LOGIN_PATH = '/coord/v1/auth/login';

const HEARTBEAT_PATH = /^\/coord\/v1\/streams\/[^/]+\/groups\/[^/]+\/members\/[^/]+\/heartbeat$/;
const MUTATING = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

/** True for methods that change state (they need WRITE outside monitoring). */
export function isMutating(method: string): boolean {
  return MUTATING.has(method.toUpperCase());
}

/** True when the request is a member heartbeat. */
export function isHeartbeat(method: string, path: string): boolean {
  return method.toUpperCase() === 'POST' && HEARTBEAT_PATH.test(path);
}

/** The role `method path` needs, or null when it needs none. */
export function requiredRole(method: string, path: string, authenticateMemberApi: boolean): Role | null {
  if (path === LOGIN_PATH) return null;
  if (isHeartbeat(method, path)) return authenticateMemberApi ? 'MEMBER' : null;
  if (path.startsWith('/coord/v1/monitoring')) return 'READ';
  // `/coord/v1/streams…` and every other `/coord/v1` path follow the same method rule.
  return isMutating(method) ? 'WRITE' : 'READ';
}
