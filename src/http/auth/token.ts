/**
 * Bearer tokens in the reference format (docs/protocol.md#roles), so tokens survive a swap between
 * implementations that share a secret: payload = `v1\n<user>\n<expiry epoch-s>\n<ROLE,ROLE>`,
 * token = base64url(payload) + '.' + base64url(HMAC-SHA256(key, first part)).
 */
import { constantTimeEqual, fromBase64Url, toBase64Url, utf8 } from './bytes.js';
import { isRole, type Role, sortRoles } from './roles.js';

/** Version line of the token payload. */
const TOKEN_VERSION = 'v1';

/** What a token asserts. */
export interface TokenClaims {
  username: string;
  /** Sorted, recognised roles. */
  roles: Role[];
  /** Expiry, epoch seconds; the token is valid while `now < expiresAtSeconds`. */
  expiresAtSeconds: number;
}

/** Imports the HMAC-SHA256 signing key for `secret`. */
export function importTokenKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', utf8(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
}

async function mac(key: CryptoKey, firstPart: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, utf8(firstPart)));
}

/** Signs `claims` into a token. */
export async function encodeToken(key: CryptoKey, claims: TokenClaims): Promise<string> {
  const payload = [
    TOKEN_VERSION,
    claims.username,
    String(claims.expiresAtSeconds),
    sortRoles(claims.roles).join(','),
  ];
  const first = toBase64Url(utf8(payload.join('\n')));
  return `${first}.${toBase64Url(await mac(key, first))}`;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The claims of a valid, unexpired token, or null: exactly two non-blank parts, a matching MAC
 * (constant time), four payload lines, version `v1`, expiry after `nowMs`, one known role at least.
 */
export async function decodeToken(key: CryptoKey, token: string, nowMs: number): Promise<TokenClaims | null> {
  const parts = token.split('.');
  if (parts.length !== 2) return null;
  const [first, sig] = parts as [string, string];
  if (first.trim() === '' || sig.trim() === '') return null;
  const given = fromBase64Url(sig);
  const payloadBytes = fromBase64Url(first);
  if (given === null || payloadBytes === null) return null;
  // Check the MAC before looking at anything the token claims.
  if (!constantTimeEqual(await mac(key, first), given)) return null;

  let payload: string;
  try {
    payload = strictUtf8.decode(payloadBytes);
  } catch {
    return null;
  }
  const lines = payload.split('\n');
  if (lines.length !== 4) return null;
  const [version, username, expiry, roleList] = lines as [string, string, string, string];
  if (version !== TOKEN_VERSION || username.trim() === '' || !/^\d{1,15}$/.test(expiry)) return null;
  const expiresAtSeconds = Number(expiry);
  if (expiresAtSeconds * 1000 <= nowMs) return null;
  const roles = sortRoles(
    roleList
      .split(',')
      .map((r) => r.trim())
      .filter(isRole),
  );
  if (roles.length === 0) return null;
  return { username, roles, expiresAtSeconds };
}
