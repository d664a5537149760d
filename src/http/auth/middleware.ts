/**
 * The authentication middleware on `/coord/v1/*`: resolves the principal from Basic or Bearer
 * credentials and enforces the route's role. 401 and 403 carry empty bodies, as the reference.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv, ResolvedDeps } from '../context.js';
import type { AuthConfig } from './auth-config.js';
import type { Authenticator } from './authenticator.js';
import { requiredRole } from './required-role.js';
import { grants } from './roles.js';
import { scopeAllows, streamOfPath } from './stream-scope.js';

/** The challenge every 401 carries. */
export const WWW_AUTHENTICATE = 'Basic realm="redis-stream-coordinator"';

/** 401, empty body, Basic challenge. */
function unauthorized(): Response {
  return new Response(null, { status: 401, headers: { 'www-authenticate': WWW_AUTHENTICATE } });
}

/** 403, empty body. */
function forbidden(): Response {
  return new Response(null, { status: 403 });
}

/** Sets `principal` (null in open mode and on role-free routes) or answers 401/403 (429 when throttled). */
export function authMiddleware(
  auth: AuthConfig | null,
  authenticator: Authenticator,
  deps: Pick<ResolvedDeps, 'log' | 'clientAddress'>,
): MiddlewareHandler<AppEnv> {
  const { log } = deps;
  return async (c, next) => {
    c.set('principal', null);
    if (auth === null) return next();
    const required = requiredRole(c.req.method, c.req.path, auth.authenticateMemberApi);
    if (required === null) return next();
    const header = c.req.header('authorization');
    // A throttled password check throws its 429 (the app's error handler answers it).
    const principal = await authenticator.authenticate(header, c.get('now'), deps.clientAddress(c));
    // Never log the header or anything derived from it.
    if (principal === null) {
      log('debug', 'unauthenticated request refused', { method: c.req.method, path: c.req.path });
      return unauthorized();
    }
    if (!grants(principal.roles, required)) {
      log('debug', 'request refused: role missing', {
        method: c.req.method,
        path: c.req.path,
        user: principal.username,
        required,
      });
      return forbidden();
    }
    if (principal.streams !== undefined) {
      // Deny by default: a scoped principal acts only on `/streams/{p}/…` of its own streams.
      const stream = streamOfPath(c.req.path);
      if (stream === null || !scopeAllows(principal.streams, stream)) {
        log('debug', 'request refused: stream outside the principal scope', {
          method: c.req.method,
          path: c.req.path,
          user: principal.username,
        });
        return forbidden();
      }
    }
    c.set('principal', principal);
    await next();
  };
}
