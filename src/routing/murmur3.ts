/**
 * MurmurHash3 x86 32-bit, the hash behind `routeV1` (docs/protocol.md#routev1).
 *
 * Pure arithmetic over bytes: no `node:` imports, so it runs on Node, Workers and browsers.
 */

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

/**
 * MurmurHash3 x86_32 of `data` with `seed` (its low 32 bits), as a signed int32 — the value
 * the reference Python client and Spring starter return.
 */
export function murmur3Hash32(data: Uint8Array, seed = 0): number {
  let h = seed | 0;
  const len = data.length;
  const blocks = len & ~3;
  for (let i = 0; i < blocks; i += 4) {
    let k = data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24);
    k = Math.imul(k, C1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, C2);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  // Tail bytes are little-endian. (The starter skips mixing a zero tail; that is equivalent,
  // since mixing 0 leaves `h` unchanged.)
  const tail = len & 3;
  if (tail > 0) {
    let k = 0;
    if (tail === 3) k ^= data[blocks + 2]! << 16;
    if (tail >= 2) k ^= data[blocks + 1]! << 8;
    k ^= data[blocks]!;
    k = Math.imul(k, C1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, C2);
    h ^= k;
  }
  h ^= len;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/** MurmurHash3 x86_32 of `data` with `seed`, as an unsigned 32-bit integer. */
export function murmur3Hash32Unsigned(data: Uint8Array, seed = 0): number {
  return murmur3Hash32(data, seed) >>> 0;
}
