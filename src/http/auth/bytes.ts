/**
 * Byte helpers for credentials, on Web APIs only (runs on Node and Workers): base64 and
 * base64url codecs, UTF-8, and a constant-time comparison.
 */

const encoder = new TextEncoder();

/** UTF-8 bytes of `s`. */
export function utf8(s: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(s) as Uint8Array<ArrayBuffer>;
}

/** Standard base64 (with padding) of `bytes`. */
export function toBase64(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** base64url without padding, as tokens use. */
export function toBase64Url(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** Decodes standard base64 (padding optional; url-safe letters accepted); null when malformed. */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> | null {
  const std = text.replace(/-/g, '+').replace(/_/g, '/');
  if (!BASE64.test(std)) return null;
  const unpadded = std.replace(/=+$/, '');
  if (unpadded.length % 4 === 1) return null;
  try {
    const bin = atob(unpadded + '='.repeat((4 - (unpadded.length % 4)) % 4));
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

/**
 * Decodes base64url without padding, canonical form only (re-encoding gives the same text), so
 * one byte string has exactly one token spelling; null when malformed.
 */
export function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!BASE64URL.test(text)) return null;
  const bytes = fromBase64(text);
  return bytes !== null && toBase64Url(bytes) === text ? bytes : null;
}

/** Compares two byte strings in time that depends only on their lengths. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}
