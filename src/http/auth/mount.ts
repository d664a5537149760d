/**
 * Wires authentication into the app: the middlewares for `/coord/v1/*` (authentication, then
 * the optional rate limit, as the reference orders them) and the login and session routes.
 */
import type { Hono, MiddlewareHandler } from 'hono';
import type { AppEnv, ResolvedDeps } from '../context.js';
import { DEFAULT_TOKEN_TTL_SECONDS } from './auth-config.js';
import { Authenticator } from './authenticator.js';
import { toBase64Url } from './bytes.js';
import { authMiddleware } from './middleware.js';
import { rateLimitMiddleware } from './rate-limit.js';
import { authRoutes } from './routes.js';

/** What `createApp` mounts. */
export interface AuthMount {
  /** For `app.use('/coord/v1/*', ...middleware)`, before any route. */
  middleware: MiddlewareHandler<AppEnv>[];
  /** Login and session, for `app.route('/coord/v1', routes)`. */
  routes: Hono<AppEnv>;
}

/** Builds the authentication pieces from the config (`config.auth === null` = open mode). */
export function createAuth(deps: ResolvedDeps): AuthMount {
  const { auth } = deps.config;
  const authenticator = new Authenticator(
    auth ?? {
      users: [],
      // Open mode ignores credentials; its tokens only need to look like tokens.
      tokenSecret: toBase64Url(crypto.getRandomValues(new Uint8Array(32))),
      tokenTtlSeconds: DEFAULT_TOKEN_TTL_SECONDS,
    },
  );
  return {
    middleware: [
      authMiddleware(auth, authenticator, deps.log),
      rateLimitMiddleware({
        perGroup: deps.config.rateLimitAdminMutationsPerMinute,
        perPrincipal: deps.config.rateLimitPrincipalMutationsPerMinute,
      }),
    ],
    routes: authRoutes(deps, authenticator, auth === null),
  };
}
