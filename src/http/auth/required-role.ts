/**
 * The role a `/coord/v1` request needs (docs/protocol.md#roles): the `access` its declared operation
 * names (`route-table.ts`). A path no operation serves still needs credentials — READ under
 * `/monitoring`, else READ or WRITE by method — so an unknown path answers 401 before 404. The
 * anonymous heartbeat is exactly the declared `POST …/members/{m}/heartbeat`, never a path that
 * merely looks like it.
 */
import { METRICS_PATH } from '../../metrics/http-metrics.js';
import type { Access } from '../api-route.js';
import { matchRoute } from '../route-table.js';
import type { Role } from './roles.js';

/** Path of the login route, which needs no role. */
const LOGIN_PATH = '/coord/v1/auth/login';
/** The OpenAPI document: public, so tools and clients can read the contract before logging in. */
const OPENAPI_PATH = '/coord/v1/openapi.json';
/** The rendered API reference page (public; it only loads the public OpenAPI document). */
const DOCS_PATH = '/coord/v1/docs';
const PUBLIC_READS: ReadonlySet<string> = new Set([OPENAPI_PATH, DOCS_PATH]);

const MUTATING = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

/** True for methods that change state (they need WRITE outside monitoring). */
function isMutating(method: string): boolean {
  return MUTATING.has(method.toUpperCase());
}

/** The role a declared operation's access needs, or null when it needs none. */
export function roleOfAccess(access: Access, authenticateMemberApi: boolean): Role | null {
  if (access === 'PUBLIC') return null;
  if (access === 'MEMBER_API') return authenticateMemberApi ? 'MEMBER' : null;
  return access;
}

/** The role `method path` needs, or null when it needs none. */
export function requiredRole(method: string, path: string, authenticateMemberApi: boolean): Role | null {
  const declared = matchRoute(method, path);
  if (declared) return roleOfAccess(declared.route.access, authenticateMemberApi);
  // Public paths stay public for every method, so a wrong method answers 405, not 401.
  if (path === LOGIN_PATH) return null;
  if (PUBLIC_READS.has(path) && !isMutating(method)) return null;
  // `/metrics` sits outside `/coord/v1`; the app only authenticates it when it is not configured public.
  if (path === METRICS_PATH) return 'READ';
  if (path.startsWith('/coord/v1/monitoring')) return 'READ';
  return isMutating(method) ? 'WRITE' : 'READ';
}
