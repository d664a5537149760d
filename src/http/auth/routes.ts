/**
 * `POST /coord/v1/auth/login` and `GET /coord/v1/monitoring/session`.
 *
 * Open mode: login answers 200 with a token for `anonymous` holding every role (signed with a
 * per-instance random key), so clients that always log in (the Python client's `login()`)
 * keep working; any Authorization header is ignored there anyway. The session view then says
 * `authenticated: false`, `username: null` and lists every role, since every route is open.
 */
import type { Context } from 'hono';
import { Hono } from 'hono';
import type { z } from 'zod';
import { serve } from '../api-route.js';
import type { AppEnv, ResolvedDeps } from '../context.js';
import { describeIssues, errorResponse, invalidRequest } from '../errors.js';
import { readBodyBytes } from '../input.js';
import { SERVICE_ROUTES } from '../routes/service-api.js';
import { loginRequestSchema } from '../schemas.js';
import type { Authenticator, Principal } from './authenticator.js';
import { WWW_AUTHENTICATE } from './middleware.js';
import { ROLES } from './roles.js';

/** Who open mode's login token is issued to. */
const ANONYMOUS_PRINCIPAL: Principal = { username: 'anonymous', roles: [...ROLES] };

/** The login body, or null when none was sent. Malformed JSON → 400 INVALID_REQUEST. */
async function readLoginBody(
  c: Context<AppEnv>,
  maxBytes: number,
): Promise<z.infer<typeof loginRequestSchema> | null> {
  const bytes = await readBodyBytes(c.req.raw, maxBytes);
  if (bytes.byteLength === 0) return null;
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    // Never echo the body: it may hold a password.
    throw invalidRequest(['body: is not valid JSON']);
  }
  const r = loginRequestSchema.safeParse(json);
  if (!r.success) throw invalidRequest(describeIssues(r.error.issues));
  return r.data;
}

/** 401 for a failed login (an `ErrorResponse`, unlike the empty 401 of the middleware). */
function loginFailed(): Response {
  return errorResponse(401, 'UNAUTHORIZED', 'Invalid coordinator credentials', {
    'www-authenticate': WWW_AUTHENTICATE,
  });
}

/** The login and session routes; `open` = no credentials configured. */
export function authRoutes(deps: ResolvedDeps, authenticator: Authenticator, open: boolean): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  serve(app, SERVICE_ROUTES.login, async (c) => {
    const now = c.get('now');
    const body = await readLoginBody(c, deps.config.maxBodyBytes);
    const client = deps.clientAddress(c);
    let principal: Principal | null;
    if (open) principal = ANONYMOUS_PRINCIPAL;
    else if (body?.username != null && body.username.trim() !== '') {
      principal = await authenticator.checkPassword(body.username, body.password ?? '', now, client);
    } else principal = await authenticator.authenticate(c.req.header('authorization'), now, client);
    if (principal === null) {
      deps.log('debug', 'login refused', { path: c.req.path });
      return loginFailed();
    }
    const token = await authenticator.issue(principal, now);
    return c.json({
      accessToken: token.accessToken,
      tokenType: 'Bearer',
      expiresAt: new Date(token.expiresAtSeconds * 1000).toISOString(),
      expiresInSeconds: token.expiresInSeconds,
      roles: token.roles,
    });
  });

  serve(app, SERVICE_ROUTES.session, (c) => {
    const principal = c.get('principal') ?? null;
    if (open || principal === null) {
      return c.json({ authenticated: false, username: null, roles: open ? [...ROLES] : [] });
    }
    return c.json({ authenticated: true, username: principal.username, roles: principal.roles });
  });

  return app;
}
