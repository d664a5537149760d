/**
 * Reads the `Authorization` header: `Basic base64(user:password)` (the Spring starter) or
 * `Bearer <token>` (the Python client); both schemes match case-insensitively.
 */
import { fromBase64 } from './bytes.js';

/** What a request presents. */
export type Credentials =
  | { scheme: 'basic'; username: string; password: string }
  | { scheme: 'bearer'; token: string };

const HEADER = /^\s*([A-Za-z]+)\s+(\S+)\s*$/;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Parses the header value; null when absent, of another scheme, or malformed. */
export function parseAuthorization(header: string | undefined | null): Credentials | null {
  if (!header) return null;
  const m = HEADER.exec(header);
  if (!m) return null;
  const scheme = m[1]!.toLowerCase();
  const value = m[2]!;
  if (scheme === 'bearer') return { scheme: 'bearer', token: value };
  if (scheme !== 'basic') return null;
  const bytes = fromBase64(value);
  if (bytes === null) return null;
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    // Spring's setBasicAuth encodes ISO-8859-1 by default; each byte is its own code point.
    text = String.fromCharCode(...bytes);
  }
  const colon = text.indexOf(':');
  if (colon <= 0) return null;
  return { scheme: 'basic', username: text.slice(0, colon), password: text.slice(colon + 1) };
}
