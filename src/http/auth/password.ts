/**
 * Stored passwords and their verification with Web Crypto: plaintext secrets are compared as
 * SHA-256 digests (fixed length, constant time); `pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>`
 * hashes are re-derived with PBKDF2-HMAC-SHA256 and compared in constant time.
 */
import { constantTimeEqual, fromBase64, utf8 } from './bytes.js';

/** Prefix that marks a PBKDF2 hash instead of a plaintext password. */
const PBKDF2_PREFIX = 'pbkdf2-sha256$';

/** Iteration bounds accepted in a hash. Cloudflare Workers cap PBKDF2 at 100,000. */
const PBKDF2_MIN_ITERATIONS = 1000;
/** Upper iteration bound: more would stall every uncached login. */
const PBKDF2_MAX_ITERATIONS = 10_000_000;

/** A configured password: plaintext (kept as given) or a parsed PBKDF2 hash. */
export type StoredPassword =
  | { kind: 'plain'; password: string }
  | { kind: 'pbkdf2'; iterations: number; salt: Uint8Array<ArrayBuffer>; hash: Uint8Array<ArrayBuffer> };

/** True when `value` is meant as a PBKDF2 hash (it starts with `pbkdf2-sha256$`). */
function isPbkdf2Hash(value: string): boolean {
  return value.startsWith(PBKDF2_PREFIX);
}

/**
 * Parses `pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>`; returns a reason (never the value)
 * when it is malformed.
 */
export function parsePbkdf2Hash(value: string): StoredPassword | { error: string } {
  const parts = value.split('$');
  if (parts.length !== 4 || `${parts[0]}$` !== PBKDF2_PREFIX) {
    return { error: 'expected pbkdf2-sha256$<iterations>$<salt base64>$<hash base64>' };
  }
  const [, iter, saltText, hashText] = parts as [string, string, string, string];
  if (!/^\d{1,9}$/.test(iter)) return { error: 'hash iterations must be an integer' };
  const iterations = Number(iter);
  if (iterations < PBKDF2_MIN_ITERATIONS || iterations > PBKDF2_MAX_ITERATIONS) {
    return { error: `hash iterations must be between ${PBKDF2_MIN_ITERATIONS} and ${PBKDF2_MAX_ITERATIONS}` };
  }
  const salt = fromBase64(saltText);
  if (salt === null || salt.length < 8) return { error: 'hash salt must be base64 of at least 8 bytes' };
  const hash = fromBase64(hashText);
  if (hash === null || hash.length < 16 || hash.length > 64) {
    return { error: 'hash value must be base64 of 16 to 64 bytes' };
  }
  return { kind: 'pbkdf2', iterations, salt, hash };
}

/** Parses a configured password: a PBKDF2 hash when it has the prefix, else plaintext. */
export function parseStoredPassword(value: string): StoredPassword | { error: string } {
  return isPbkdf2Hash(value) ? parsePbkdf2Hash(value) : { kind: 'plain', password: value };
}

/** SHA-256 of the UTF-8 text. */
export async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', utf8(text)));
}

/** PBKDF2-HMAC-SHA256 of `password` with `salt`, `iterations`, `bytes` output bytes. */
export async function pbkdf2Sha256(
  password: string,
  salt: Uint8Array<ArrayBuffer>,
  iterations: number,
  bytes: number,
): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey('raw', utf8(password), 'PBKDF2', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits(
    { name: 'PBKDF2', hash: 'SHA-256', salt, iterations },
    key,
    bytes * 8,
  );
  return new Uint8Array(bits);
}

/** True when `candidate` matches the stored password; the comparison is constant-time. */
export async function verifyPassword(stored: StoredPassword, candidate: string): Promise<boolean> {
  if (stored.kind === 'plain') {
    // Digests have a fixed length, so the comparison leaks neither content nor length.
    const [a, b] = await Promise.all([sha256(stored.password), sha256(candidate)]);
    return constantTimeEqual(a, b);
  }
  const derived = await pbkdf2Sha256(candidate, stored.salt, stored.iterations, stored.hash.length);
  return constantTimeEqual(derived, stored.hash);
}
