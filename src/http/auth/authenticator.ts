/**
 * Checks credentials against the configured users and issues and verifies bearer tokens. One
 * instance per app: it holds the imported HMAC key and a small cache of PBKDF2 successes,
 * because the Spring starter sends Basic credentials on every heartbeat.
 */

import type { ConfiguredUser } from './auth-config.js';
import { toBase64Url } from './bytes.js';
import { parseAuthorization } from './credentials.js';
import { type StoredPassword, sha256, verifyPassword } from './password.js';
import type { Role } from './roles.js';
import { decodeToken, encodeToken, importTokenKey } from './token.js';

/** Who a request acts as. */
export interface Principal {
  username: string;
  /** Sorted held roles. */
  roles: Role[];
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
  tokenSecret: string;
  tokenTtlSeconds: number;
}

/** How long a verified PBKDF2 password is remembered, ms. */
const CACHE_TTL_MS = 5 * 60_000;
/** Most remembered PBKDF2 successes (the oldest is dropped first). */
const CACHE_MAX = 1024;
// Unknown usernames are checked against this, so they cost about what a plaintext user costs.
const DECOY: StoredPassword = { kind: 'plain', password: 'decoy-password-never-matches-\u0000' };

/** Verifies credentials and tokens; issues tokens. */
export class Authenticator {
  private readonly users: ReadonlyMap<string, ConfiguredUser>;
  private readonly ttlSeconds: number;
  private readonly key: Promise<CryptoKey>;
  /** digest(user, password) → expiry of the remembered PBKDF2 success. */
  private readonly verified = new Map<string, number>();

  constructor(opts: AuthenticatorOptions) {
    this.users = new Map(opts.users.map((u) => [u.username, u]));
    this.ttlSeconds = opts.tokenTtlSeconds;
    this.key = importTokenKey(opts.tokenSecret);
    // Surface nothing now: an import failure rejects the first verification instead.
    this.key.catch(() => {});
  }

  /** The principal behind an `Authorization` header value, or null. */
  async authenticate(header: string | undefined, nowMs: number): Promise<Principal | null> {
    const creds = parseAuthorization(header);
    if (creds === null) return null;
    if (creds.scheme === 'bearer') return this.verifyToken(creds.token, nowMs);
    return this.checkPassword(creds.username, creds.password, nowMs);
  }

  /** The user for a username/password pair, or null. */
  async checkPassword(username: string, password: string, nowMs: number): Promise<Principal | null> {
    const user = this.users.get(username);
    if (user === undefined) {
      await verifyPassword(DECOY, password);
      return null;
    }
    if (user.password.kind === 'plain') {
      return (await verifyPassword(user.password, password)) ? principalOf(user) : null;
    }
    const cacheKey = toBase64Url(await sha256(`${username}\u0000${password}`));
    const until = this.verified.get(cacheKey);
    if (until !== undefined && until > nowMs) return principalOf(user);
    if (!(await verifyPassword(user.password, password))) return null;
    this.remember(cacheKey, nowMs + CACHE_TTL_MS);
    return principalOf(user);
  }

  /** The principal of a valid, unexpired token, or null. */
  async verifyToken(token: string, nowMs: number): Promise<Principal | null> {
    const claims = await decodeToken(await this.key, token, nowMs);
    return claims === null ? null : { username: claims.username, roles: claims.roles };
  }

  /** A fresh token for `principal`, valid for the configured TTL from `nowMs`. */
  async issue(principal: Principal, nowMs: number): Promise<IssuedToken> {
    const expiresAtSeconds = Math.floor(nowMs / 1000) + this.ttlSeconds;
    const accessToken = await encodeToken(await this.key, {
      username: principal.username,
      roles: principal.roles,
      expiresAtSeconds,
    });
    return { accessToken, expiresAtSeconds, expiresInSeconds: this.ttlSeconds, roles: [...principal.roles] };
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

function principalOf(user: ConfiguredUser): Principal {
  return { username: user.username, roles: [...user.roles] };
}
