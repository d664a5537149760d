/**
 * Upstash's per-key script locks. Imports nothing at runtime.
 *
 * Upstash runs a script under its global lock (nothing else runs meanwhile) unless the script's
 * text starts with the `allow-key-locking` shebang; then only the keys passed in KEYS are locked
 * and scripts on other keys run in parallel (docs/workers.md#upstash-key-locking). A key the script
 * did not declare is then refused, so only scripts that declare every key they touch may carry
 * it; each component lists its own, and the Upstash port (src/redis/upstash-port.ts) flags them
 * when told to. The flag is part of the text, so the flagged script has its own SHA1, computed
 * here once per script (Workers have no synchronous SHA-1).
 */
import type { LuaScript } from './scripts/lua-script.js';

/** The first line of a script Upstash runs under per-key locks. Redis 7 refuses the flag. */
export const KEY_LOCKING_SHEBANG = '#!lua flags=allow-key-locking\n';

const flagged = new WeakMap<LuaScript, LuaScript>();

/** `script` with the key-locking shebang: its own text and SHA1 (computed on first use, then kept). */
export function withKeyLocking(script: LuaScript): LuaScript {
  let out = flagged.get(script);
  if (!out) {
    const lua = KEY_LOCKING_SHEBANG + script.lua;
    out = { name: script.name, lua, sha1: sha1Hex(lua) };
    flagged.set(script, out);
  }
  return out;
}

/**
 * Whether key locking is on when nothing says otherwise: only on Upstash itself (a REST URL whose
 * host ends with `.upstash.io`); a self-hosted REST endpoint in front of Redis would refuse it.
 */
export function keyLockingByDefault(restUrl: string): boolean {
  try {
    return new URL(restUrl).hostname.toLowerCase().endsWith('.upstash.io');
  } catch {
    return false;
  }
}

/** SHA-1 of the UTF-8 bytes of `text`, lowercase hex (FIPS 180-4; synchronous, for any runtime). */
export function sha1Hex(text: string): string {
  const bytes = new TextEncoder().encode(text);
  const len = bytes.length;
  // Message, a 1 bit, zeros, and the bit length in the last 64 bits of a 64-byte block.
  const n = (((len + 8) >>> 6) + 1) * 16;
  const m = new Uint32Array(n);
  for (let i = 0; i < len; i++) m[i >>> 2]! |= bytes[i]! << (24 - (i & 3) * 8);
  m[len >>> 2]! |= 0x80 << (24 - (len & 3) * 8);
  m[n - 2] = Math.floor(len / 0x20000000);
  m[n - 1] = (len * 8) >>> 0;
  const h = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0];
  const w = new Uint32Array(80);
  for (let off = 0; off < n; off += 16) {
    for (let t = 0; t < 16; t++) w[t] = m[off + t]!;
    for (let t = 16; t < 80; t++) {
      const x = w[t - 3]! ^ w[t - 8]! ^ w[t - 14]! ^ w[t - 16]!;
      w[t] = (x << 1) | (x >>> 31);
    }
    let [a, b, c, d, e] = h as [number, number, number, number, number];
    for (let t = 0; t < 80; t++) {
      const f =
        t < 20 ? (b & c) | (~b & d) : t < 40 ? b ^ c ^ d : t < 60 ? (b & c) | (b & d) | (c & d) : b ^ c ^ d;
      const k = t < 20 ? 0x5a827999 : t < 40 ? 0x6ed9eba1 : t < 60 ? 0x8f1bbcdc : 0xca62c1d6;
      const next = (((a << 5) | (a >>> 27)) + f + e + k + w[t]!) >>> 0;
      e = d;
      d = c;
      c = ((b << 30) | (b >>> 2)) >>> 0;
      b = a;
      a = next;
    }
    h[0] = (h[0]! + a) >>> 0;
    h[1] = (h[1]! + b) >>> 0;
    h[2] = (h[2]! + c) >>> 0;
    h[3] = (h[3]! + d) >>> 0;
    h[4] = (h[4]! + e) >>> 0;
  }
  return h.map((x) => x.toString(16).padStart(8, '0')).join('');
}
