/**
 * Checks credentials against the configured users and issues and verifies bearer tokens. One
 * instance per app: it holds the imported HMAC keys, a small cache of PBKDF2 successes (the
 * Spring starter sends Basic credentials on every heartbeat), the failed-login throttle and the
 * bound on concurrent PBKDF2 work.
 */

import type { ConfiguredUser } from './auth-config.js';
import { toBase64Url } from './bytes.js';
import { parseAuthorization } from './credentials.js';
import { ConcurrencyGate, LoginThrottle, type LoginThrottleLimits } from './login-throttle.js';
import { type StoredPassword, sha256, verifyPassword } from './password.js';
import type { Role } from './roles.js';
import type { StreamScope } from './stream-scope.js';
import { decodeToken, encodeToken, importTokenKey } from './token.js';

/** Who a request acts as. */
export interface Principal {
  username: string;
  /** Sorted held roles. */
  roles: Role[];
  /** When the request authenticated with a token: its expiry (a renewal never extends it). */
  tokenExpiresAtSeconds?: number;
  /** The streams the principal may act on (COORDINATOR_MEMBER_STREAMS). @default every stream */
  streams?: StreamScope;
}

/** The login answer's data. */
export interface IssuedToken {
  accessToken: string;
  expiresAtSeconds: number;
  expiresInSeconds: number;
  roles: Role[];
}

/** What an `Authenticator` is built from. */
export interface AuthenticatorOptions {
  users: readonly ConfiguredUser[];
  /** The signing secret, or where the deployment's generated one is fetched (once, on first need). */
  tokenSecret: string | (() => Promise<string>);
  /** A secret being rotated out: accepted when verifying, never used to sign. @default none */
  previousTokenSecret?: string | null;
  tokenTtlSeconds: number;
  /** Failed-check budgets per minute. @default off */
  throttle?: LoginThrottleLimits;
  /** PBKDF2 derivations at once (more are refused at once). @default 2 */
  maxConcurrentHashes?: number;
}

/** How long a verified PBKDF2 password is remembered, ms. */
const CACHE_TTL_MS = 5 * 60_000;
/** Most remembered PBKDF2 successes (the oldest is dropped first). */
const CACHE_MAX = 1024;

/** Verifies credentials and tokens; issues tokens. */
export class Authenticator {
  private readonly users: ReadonlyMap<string, ConfiguredUser>;
  private readonly ttlSeconds: number;
  private readonly secretSource: () => Promise<string>;
  private readonly previousKey: Promise<CryptoKey> | null;
  private signingKey: Promise<CryptoKey> | null = null;
  /** Unknown usernames are checked against this, at the cost of the costliest configured password. */
  private readonly decoy: StoredPassword;
  private readonly throttle: LoginThrottle;
  private readonly hashing: ConcurrencyGate;
  /** digest(user, password) → expiry of the remembered PBKDF2 success. */
  private readonly verified = new Map<string, number>();
  /** digest(user, password) → its derivation in flight (identical checks share one). */
  private readonly inFlight = new Map<string, Promise<boolean>>();

  constructor(opts: AuthenticatorOptions) {
    this.users = new Map(opts.users.map((u) => [u.username, u]));
    this.ttlSeconds = opts.tokenTtlSeconds;
    const secret = opts.tokenSecret;
    this.secretSource = typeof secret === 'string' ? () => Promise.resolve(secret) : secret;
    this.previousKey = opts.previousTokenSecret ? importTokenKey(opts.previousTokenSecret) : null;
    // Surface nothing now: an import failure rejects the first verification instead.
    this.previousKey?.catch(() => {});
    this.decoy = decoyFor(opts.users);
    this.throttle = new LoginThrottle(opts.throttle ?? { perClient: 0, perUser: 0 });
    this.hashing = new ConcurrencyGate(opts.maxConcurrentHashes ?? 2);
  }

  /**
   * The principal behind an `Authorization` header value, or null. `client` is the caller's
   * address (null when unknown). Throws a 429 `CoordinatorError` when a password check is refused.
   */
  async authenticate(
    header: string | undefined,
    nowMs: number,
    client: string | null = null,
  ): Promise<Principal | null> {
    const creds = parseAuthorization(header);
    if (creds === null) return null;
    if (creds.scheme === 'bearer') return this.verifyToken(creds.token, nowMs);
    return this.checkPassword(creds.username, creds.password, nowMs, client);
  }

  /** The user for a username/password pair, or null; throws a 429 `CoordinatorError` when throttled or busy. */
  async checkPassword(
    username: string,
    password: string,
    nowMs: number,
    client: string | null = null,
  ): Promise<Principal | null> {
    this.throttle.check(client, username, nowMs);
    const user = this.users.get(username);
    const ok =
      user === undefined ? await this.refuseUnknown(password) : await this.matches(user, password, nowMs);
    if (!ok || user === undefined) {
      this.throttle.failed(client, username, nowMs);
      return null;
    }
    this.throttle.succeeded(client, username, nowMs);
    return principalOf(user);
  }

  /** The principal of a valid, unexpired token whose user still exists and holds its roles, or null. */
  async verifyToken(token: string, nowMs: number): Promise<Principal | null> {
    let claims = await decodeToken(await this.key(), token, nowMs);
    if (claims === null && this.previousKey !== null)
      claims = await decodeToken(await this.previousKey, token, nowMs);
    if (claims === null) return null;
    // The configuration in force decides: a removed user's token stops working, a demoted one's shrinks.
    const user = this.users.get(claims.username);
    const roles = user === undefined ? [] : claims.roles.filter((r) => user.roles.includes(r));
    if (user === undefined || roles.length === 0) return null;
    return { ...principalOf(user), roles, tokenExpiresAtSeconds: claims.expiresAtSeconds };
  }

  /**
   * A token for `principal`, valid for the configured TTL from `nowMs` — never beyond the expiry
   * of the token the principal authenticated with, so renewing by token cannot live forever.
   */
  async issue(principal: Principal, nowMs: number): Promise<IssuedToken> {
    const nowSeconds = Math.floor(nowMs / 1000);
    const expiresAtSeconds = Math.min(
      nowSeconds + this.ttlSeconds,
      principal.tokenExpiresAtSeconds ?? Infinity,
    );
    const accessToken = await encodeToken(await this.key(), {
      username: principal.username,
      roles: principal.roles,
      expiresAtSeconds,
    });
    return {
      accessToken,
      expiresAtSeconds,
      expiresInSeconds: expiresAtSeconds - nowSeconds,
      roles: [...principal.roles],
    };
  }

  /** The signing key, fetched once; a failed fetch (Redis down) is retried by the next request. */
  private key(): Promise<CryptoKey> {
    if (this.signingKey === null) {
      const loading = this.secretSource().then(importTokenKey);
      this.signingKey = loading;
      loading.catch(() => {
        if (this.signingKey === loading) this.signingKey = null;
      });
    }
    return this.signingKey;
  }

  private async refuseUnknown(password: string): Promise<false> {
    const decoy = this.decoy;
    if (decoy.kind === 'plain') await verifyPassword(decoy, password);
    else await this.hashing.run(() => verifyPassword(decoy, password));
    return false;
  }

  private async matches(user: ConfiguredUser, password: string, nowMs: number): Promise<boolean> {
    const stored = user.password;
    if (stored.kind === 'plain') return verifyPassword(stored, password);
    const cacheKey = toBase64Url(await sha256(`${user.username}\u0000${password}`));
    const until = this.verified.get(cacheKey);
    if (until !== undefined && until > nowMs) return true;
    let pending = this.inFlight.get(cacheKey);
    if (pending === undefined) {
      pending = this.hashing.run(() => verifyPassword(stored, password));
      this.inFlight.set(cacheKey, pending);
      pending.finally(() => this.inFlight.delete(cacheKey)).catch(() => {});
    }
    const ok = await pending;
    if (ok) this.remember(cacheKey, nowMs + CACHE_TTL_MS);
    return ok;
  }

  private remember(cacheKey: string, until: number): void {
    this.verified.delete(cacheKey);
    if (this.verified.size >= CACHE_MAX) {
      const oldest = this.verified.keys().next().value;
      if (oldest !== undefined) this.verified.delete(oldest);
    }
    this.verified.set(cacheKey, until);
  }
}

/** A random secret for the deployment to keep (see `Store.tokenSecret`). */
export function newTokenSecret(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
}

/**
 * What an unknown username is checked against: a PBKDF2 hash as costly as the costliest
 * configured one (random, so it never matches), or a plaintext decoy when no user is hashed.
 */
function decoyFor(users: readonly ConfiguredUser[]): StoredPassword {
  let costliest: StoredPassword | null = null;
  for (const { password } of users) {
    if (
      password.kind === 'pbkdf2' &&
      (costliest?.kind !== 'pbkdf2' || password.iterations > costliest.iterations)
    ) {
      costliest = password;
    }
  }
  if (costliest?.kind !== 'pbkdf2') return { kind: 'plain', password: `decoy-${newTokenSecret()}` };
  const random = (n: number) => crypto.getRandomValues(new Uint8Array(n));
  return {
    kind: 'pbkdf2',
    iterations: costliest.iterations,
    salt: random(16),
    hash: random(costliest.hash.length),
  };
}

function principalOf(user: ConfiguredUser): Principal {
  const principal: Principal = { username: user.username, roles: [...user.roles] };
  if (user.streams !== undefined) principal.streams = user.streams;
  return principal;
}
