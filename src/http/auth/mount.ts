/**
 * Wires authentication into the app: the middlewares for `/coord/v1/*` (authentication, then
 * the optional rate limit, as the reference orders them) and the login and session routes.
 */
import type { Hono, MiddlewareHandler } from 'hono';
import type { AppEnv, ResolvedDeps } from '../context.js';
import { DEFAULT_TOKEN_TTL_SECONDS } from './auth-config.js';
import { Authenticator, newTokenSecret } from './authenticator.js';
import { authMiddleware } from './middleware.js';
import { rateLimitMiddleware } from './rate-limit.js';
import { authRoutes } from './routes.js';

/** What `createApp` mounts. */
export interface AuthMount {
  /** For `app.use('/coord/v1/*', ...middleware)`, before any route. */
  middleware: MiddlewareHandler<AppEnv>[];
  /** Login and session (full paths), for `app.route('/', routes)`. */
  routes: Hono<AppEnv>;
}

/** Builds the authentication pieces from the config (`config.auth === null` = open mode). */
export function createAuth(deps: ResolvedDeps): AuthMount {
  const { auth } = deps.config;
  // Open mode ignores credentials; its tokens only need to look like tokens.
  const authenticator =
    auth === null
      ? new Authenticator({
          users: [],
          tokenSecret: newTokenSecret(),
          tokenTtlSeconds: DEFAULT_TOKEN_TTL_SECONDS,
        })
      : new Authenticator({
          users: auth.users,
          tokenSecret: auth.tokenSecret ?? generatedSecret(deps),
          previousTokenSecret: auth.previousTokenSecret,
          tokenTtlSeconds: auth.tokenTtlSeconds,
          throttle: {
            perClient: auth.loginFailuresPerClientPerMinute,
            perUser: auth.loginFailuresPerUserPerMinute,
          },
          maxConcurrentHashes: auth.maxConcurrentPasswordHashes,
        });
  return {
    middleware: [
      authMiddleware(auth, authenticator, deps),
      rateLimitMiddleware({
        perGroup: deps.config.rateLimitAdminMutationsPerMinute,
        perPrincipal: deps.config.rateLimitPrincipalMutationsPerMinute,
      }),
    ],
    routes: authRoutes(deps, authenticator, auth === null),
  };
}

/**
 * Where the signing secret comes from without COORDINATOR_TOKEN_SECRET: the deployment's
 * generated one in Redis (every instance shares it), or this instance's own when the
 * coordinator keeps none.
 */
function generatedSecret(deps: ResolvedDeps): () => Promise<string> {
  const { coordinator, log } = deps;
  return async () => {
    const candidate = newTokenSecret();
    if (!coordinator.tokenSecret) {
      log(
        'warn',
        'COORDINATOR_TOKEN_SECRET is not set and the store keeps none: tokens are valid on this instance only',
      );
      return candidate;
    }
    const secret = await coordinator.tokenSecret(candidate);
    log(
      'info',
      'COORDINATOR_TOKEN_SECRET is not set: bearer tokens are signed with the secret generated for this deployment and kept in Redis',
    );
    return secret;
  };
}
