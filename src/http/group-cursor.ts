/**
 * The opaque cursor of a group list (docs/protocol.md#listing-groups-in-pages): the last
 * (stream, group) of a page, versioned and base64url-encoded so clients pass it back unread.
 * Plain Web APIs only (runs on Node and on the Worker).
 */
import type { GroupPosition } from '../coordinator-api.js';

const VERSION = 'g1';
/** Longest name a cursor may carry (a stream prefix or group name is at most 200 characters). */
const MAX_NAME = 200;

function toBase64Url(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    const bin = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
    return Uint8Array.from(bin, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** The cursor that continues after `pos`. */
export function encodeGroupCursor(pos: GroupPosition): string {
  return toBase64Url(new TextEncoder().encode(JSON.stringify([VERSION, pos.stream, pos.group])));
}

/** The position a cursor names; undefined when `cursor` is not one this server wrote. */
export function decodeGroupCursor(cursor: string): GroupPosition | undefined {
  const bytes = fromBase64Url(cursor);
  if (!bytes) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.length !== 3 || value[0] !== VERSION) return undefined;
  const [, stream, group] = value;
  const name = (v: unknown): v is string => typeof v === 'string' && v !== '' && v.length <= MAX_NAME;
  return name(stream) && name(group) ? { stream, group } : undefined;
}
