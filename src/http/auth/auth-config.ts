/**
 * Turns the credential variables (docs/security.md) into the authentication settings, or `null` for
 * open mode. Messages name variables and entry numbers, never a password, hash or secret.
 */
import { parseStoredPassword, type StoredPassword } from './password.js';
import { isRole, ROLES, type Role, sortRoles } from './roles.js';
import { parseStreamScopes, type StreamScope } from './stream-scope.js';

/** Token lifetime when COORDINATOR_TOKEN_TTL_SECONDS is not set: 7 days, as the reference. */
export const DEFAULT_TOKEN_TTL_SECONDS = 604_800;

/** Admin username when only a password is configured. */
const DEFAULT_ADMIN_USERNAME = 'admin';

/** Shortest accepted COORDINATOR_TOKEN_SECRET. */
const MIN_TOKEN_SECRET_LENGTH = 16;

/** One principal that may log in. */
export interface ConfiguredUser {
  username: string;
  /** Sorted held roles. */
  roles: Role[];
  password: StoredPassword;
  /** COORDINATOR_MEMBER_STREAMS: the streams this MEMBER-only user may act on. @default every stream */
  streams?: StreamScope;
}

/** Authentication settings; `CoordinatorConfig.auth` is null in open mode. */
export interface AuthConfig {
  /** The admin pair (all roles) first, then COORDINATOR_USERS in order. */
  users: ConfiguredUser[];
  /**
   * HMAC key material for bearer tokens (COORDINATOR_TOKEN_SECRET); null = a random secret
   * generated once per deployment and kept in Redis. Never derived from a password.
   */
  tokenSecret: string | null;
  /** COORDINATOR_TOKEN_SECRET_PREVIOUS: still accepted when verifying, never used to sign (rotation). */
  previousTokenSecret: string | null;
  /** @default 604800 */
  tokenTtlSeconds: number;
  /** Heartbeats need the MEMBER role. @default true */
  authenticateMemberApi: boolean;
  /** Failed password checks one client may make per minute before 429; 0 = off. @default 30 */
  loginFailuresPerClientPerMinute: number;
  /** Failed password checks per username per minute (clients it recently accepted are exempt); 0 = off. @default 100 */
  loginFailuresPerUserPerMinute: number;
  /** PBKDF2 derivations running at once; beyond it password checks answer 429 at once. @default 2 */
  maxConcurrentPasswordHashes: number;
}

/** The credential variables, already type-checked by the config schema. */
export interface AuthEnv {
  COORDINATOR_ADMIN_USERNAME?: string | undefined;
  COORDINATOR_ADMIN_PASSWORD?: string | undefined;
  COORDINATOR_ADMIN_PASSWORD_HASH?: string | undefined;
  COORDINATOR_USERS?: string | undefined;
  COORDINATOR_MEMBER_STREAMS?: string | undefined;
  COORDINATOR_TOKEN_SECRET?: string | undefined;
  COORDINATOR_TOKEN_SECRET_PREVIOUS?: string | undefined;
  COORDINATOR_TOKEN_TTL_SECONDS: number;
  COORDINATOR_LOGIN_FAILURES_PER_CLIENT_PER_MINUTE: number;
  COORDINATOR_LOGIN_FAILURES_PER_USER_PER_MINUTE: number;
  COORDINATOR_MAX_CONCURRENT_PASSWORD_HASHES: number;
  COORDINATOR_AUTHENTICATE_MEMBER_API?: boolean | undefined;
  COORDINATOR_OPEN_MODE: boolean;
}

/** A problem with one variable. */
export interface AuthConfigIssue {
  path: keyof AuthEnv;
  message: string;
}

// No separators the Basic header or the token payload use, no whitespace or control characters.
const USERNAME = /^[^\s:,\p{Cc}]{1,128}$/u;
const USERNAME_RULE = 'must be 1-128 characters without spaces, ":" or ","';
const ROLE_LIST = ROLES.join(', ');

function present(v: string | undefined): v is string {
  return v !== undefined && v.trim() !== '';
}

interface Parsed<T> {
  value: T;
  issues: AuthConfigIssue[];
}

/** One `user:password:ROLE|ROLE` entry, or what is wrong with it (never quoting it). */
function parseUserEntry(entry: string): ConfiguredUser | { error: string } {
  // The password sits between the first and the last colon, so it may contain colons and `$`.
  const first = entry.indexOf(':');
  const last = entry.lastIndexOf(':');
  if (first <= 0 || first === last) return { error: 'expected user:password:ROLE|ROLE' };
  const username = entry.slice(0, first).trim();
  const secret = entry.slice(first + 1, last);
  const roleNames = entry
    .slice(last + 1)
    .split('|')
    .map((r) => r.trim().toUpperCase());
  if (!USERNAME.test(username)) return { error: `username ${USERNAME_RULE}` };
  if (secret === '') return { error: 'password is empty' };
  if (!roleNames.every(isRole)) return { error: `roles must be among ${ROLE_LIST}, separated by "|"` };
  const password = parseStoredPassword(secret);
  if ('error' in password) return password;
  return { username, roles: sortRoles(roleNames), password };
}

/** Parses COORDINATOR_USERS: `user:password:ROLE|ROLE`, comma-separated (1-based entry numbers). */
function parseUsers(raw: string | undefined): Parsed<ConfiguredUser[]> {
  const users: ConfiguredUser[] = [];
  const issues: AuthConfigIssue[] = [];
  const entries = (raw ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  for (const [i, entry] of entries.entries()) {
    const parsed = parseUserEntry(entry);
    let error: string | null = null;
    if ('error' in parsed) error = parsed.error;
    else if (users.some((u) => u.username === parsed.username)) error = 'duplicate username';
    else users.push(parsed);
    if (error !== null) issues.push({ path: 'COORDINATOR_USERS', message: `entry #${i + 1}: ${error}` });
  }
  return { value: users, issues };
}

/** The admin principal (every role), or null when no admin password or hash is configured. */
function parseAdmin(env: AuthEnv): Parsed<ConfiguredUser | null> {
  const issues: AuthConfigIssue[] = [];
  const username = present(env.COORDINATOR_ADMIN_USERNAME)
    ? env.COORDINATOR_ADMIN_USERNAME.trim()
    : DEFAULT_ADMIN_USERNAME;
  const plain = present(env.COORDINATOR_ADMIN_PASSWORD) ? env.COORDINATOR_ADMIN_PASSWORD : undefined;
  const hashed = present(env.COORDINATOR_ADMIN_PASSWORD_HASH)
    ? env.COORDINATOR_ADMIN_PASSWORD_HASH.trim()
    : undefined;
  if (!USERNAME.test(username)) issues.push({ path: 'COORDINATOR_ADMIN_USERNAME', message: USERNAME_RULE });
  if (plain !== undefined && hashed !== undefined) {
    issues.push({
      path: 'COORDINATOR_ADMIN_PASSWORD_HASH',
      message: 'set either COORDINATOR_ADMIN_PASSWORD or COORDINATOR_ADMIN_PASSWORD_HASH, not both',
    });
  }
  if (hashed !== undefined) {
    const parsed = parseStoredPassword(hashed);
    if ('error' in parsed || parsed.kind !== 'pbkdf2') {
      const message = 'error' in parsed ? parsed.error : 'must start with pbkdf2-sha256$';
      issues.push({ path: 'COORDINATOR_ADMIN_PASSWORD_HASH', message });
      return { value: null, issues };
    }
    return { value: { username, roles: [...ROLES], password: parsed }, issues };
  }
  if (plain !== undefined) {
    return { value: { username, roles: [...ROLES], password: { kind: 'plain', password: plain } }, issues };
  }
  if (present(env.COORDINATOR_ADMIN_USERNAME)) {
    issues.push({
      path: 'COORDINATOR_ADMIN_PASSWORD',
      message: 'COORDINATOR_ADMIN_USERNAME is set but neither a password nor a password hash is',
    });
  }
  return { value: null, issues };
}

/** One optional secret variable: its value, null when unset, or why it is refused. */
function secretVar(
  env: AuthEnv,
  path: 'COORDINATOR_TOKEN_SECRET' | 'COORDINATOR_TOKEN_SECRET_PREVIOUS',
): Parsed<string | null> {
  const value = env[path];
  if (!present(value)) return { value: null, issues: [] };
  if (value.length >= MIN_TOKEN_SECRET_LENGTH) return { value, issues: [] };
  return {
    value: null,
    issues: [{ path, message: `must be at least ${MIN_TOKEN_SECRET_LENGTH} characters` }],
  };
}

/**
 * The signing secret and the one still accepted. Unset = generated per deployment (kept in
 * Redis): deriving it from the admin password, as the reference does, would let anyone holding a
 * token guess that password offline.
 */
function tokenSecrets(env: AuthEnv): Parsed<{ current: string | null; previous: string | null }> {
  const current = secretVar(env, 'COORDINATOR_TOKEN_SECRET');
  const previous = secretVar(env, 'COORDINATOR_TOKEN_SECRET_PREVIOUS');
  const issues = [...current.issues, ...previous.issues];
  if (previous.value !== null && current.value === null && current.issues.length === 0) {
    const message = 'needs COORDINATOR_TOKEN_SECRET (the new secret) next to it';
    issues.push({ path: 'COORDINATOR_TOKEN_SECRET_PREVIOUS', message });
  }
  if (previous.value !== null && previous.value === current.value) {
    issues.push({ path: 'COORDINATOR_TOKEN_SECRET_PREVIOUS', message: 'equals COORDINATOR_TOKEN_SECRET' });
  }
  return { value: { current: current.value, previous: previous.value }, issues };
}

/** Authentication settings from the credential variables; `auth` is null in open mode. */
export function resolveAuthConfig(env: AuthEnv): { auth: AuthConfig | null; issues: AuthConfigIssue[] } {
  const admin = parseAdmin(env);
  const users = parseUsers(env.COORDINATOR_USERS);
  const issues = [...admin.issues, ...users.issues];
  const anyCredentials =
    present(env.COORDINATOR_ADMIN_PASSWORD) ||
    present(env.COORDINATOR_ADMIN_PASSWORD_HASH) ||
    present(env.COORDINATOR_USERS);

  if (!anyCredentials) {
    // Settings that only make sense with credentials would silently do nothing: refuse them.
    for (const path of [
      'COORDINATOR_TOKEN_SECRET',
      'COORDINATOR_TOKEN_SECRET_PREVIOUS',
      'COORDINATOR_MEMBER_STREAMS',
    ] as const) {
      if (present(env[path])) issues.push({ path, message: 'is set but no credentials are configured' });
    }
    if (env.COORDINATOR_AUTHENTICATE_MEMBER_API === true) {
      const message = 'is true but no credentials are configured';
      issues.push({ path: 'COORDINATOR_AUTHENTICATE_MEMBER_API', message });
    }
    return { auth: null, issues };
  }
  if (env.COORDINATOR_OPEN_MODE) {
    issues.push({
      path: 'COORDINATOR_OPEN_MODE',
      message: 'cannot be true while credentials are configured',
    });
  }
  if (present(env.COORDINATOR_USERS) && users.value.length === 0 && users.issues.length === 0) {
    issues.push({ path: 'COORDINATOR_USERS', message: 'has no entries' });
  }
  const adminName = admin.value?.username;
  if (users.value.some((u) => u.username === adminName)) {
    issues.push({ path: 'COORDINATOR_USERS', message: 'an entry repeats the admin username' });
  }
  const secrets = tokenSecrets(env);
  issues.push(...secrets.issues);
  const scopes = parseStreamScopes(env.COORDINATOR_MEMBER_STREAMS, users.value);
  issues.push(...scopes.issues);
  if (issues.length > 0) return { auth: null, issues };
  const scoped = users.value.map((u) => {
    const streams = scopes.value.get(u.username);
    return streams === undefined ? u : { ...u, streams };
  });
  return {
    auth: {
      users: admin.value ? [admin.value, ...scoped] : scoped,
      tokenSecret: secrets.value.current,
      previousTokenSecret: secrets.value.previous,
      tokenTtlSeconds: env.COORDINATOR_TOKEN_TTL_SECONDS,
      authenticateMemberApi: env.COORDINATOR_AUTHENTICATE_MEMBER_API ?? true,
      loginFailuresPerClientPerMinute: env.COORDINATOR_LOGIN_FAILURES_PER_CLIENT_PER_MINUTE,
      loginFailuresPerUserPerMinute: env.COORDINATOR_LOGIN_FAILURES_PER_USER_PER_MINUTE,
      maxConcurrentPasswordHashes: env.COORDINATOR_MAX_CONCURRENT_PASSWORD_HASHES,
    },
    issues,
  };
}
