/**
 * Redis Cluster hash slot of a key: CRC16/XMODEM of the key (or its first non-empty `{tag}`)
 * modulo 16384. Runs on Node and Workers (no `node:` imports).
 */

const utf8 = new TextEncoder();

/** Number of Redis Cluster hash slots. */
const REDIS_SLOT_COUNT = 16384;

const CRC16_TABLE = (() => {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
    table[i] = crc & 0xffff;
  }
  return table;
})();

/** CRC16/XMODEM (poly 0x1021, init 0, no reflection) of `bytes[start, end)`. */
export function crc16(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = 0;
  for (let i = start; i < end; i++) {
    crc = ((crc << 8) ^ CRC16_TABLE[((crc >>> 8) ^ bytes[i]!) & 0xff]!) & 0xffff;
  }
  return crc;
}

/** Hash slot of a key given as raw bytes (hash-tag aware, as Redis computes it). */
function redisSlotOfBytes(key: Uint8Array): number {
  const open = key.indexOf(0x7b);
  if (open !== -1) {
    const close = key.indexOf(0x7d, open + 1);
    // An empty tag `{}` does not count: the whole key is hashed.
    if (close > open + 1) return crc16(key, open + 1, close) & (REDIS_SLOT_COUNT - 1);
  }
  return crc16(key) & (REDIS_SLOT_COUNT - 1);
}

/** Hash slot of `key` (UTF-8 bytes; hash-tag aware). */
export function redisSlot(key: string): number {
  return redisSlotOfBytes(utf8.encode(key));
}
