import { describe, expect, it } from 'vitest';
import { vectorsText } from '../../test/support/vectors.js';
import { crc16, redisSlot } from './slot.js';

const vectors: { redisSlots?: Record<string, number> } = JSON.parse(vectorsText());

describe('routing > redisSlot', () => {
  it('computes the CRC16/XMODEM check value', () => {
    expect(crc16(new TextEncoder().encode('123456789'))).toBe(0x31c3);
  });

  it.each(Object.entries(vectors.redisSlots ?? {}))('puts %s in slot %i (vectors file)', (key, slot) => {
    expect(redisSlot(key)).toBe(slot);
  });

  it.each([
    ['orders:0', 8578],
    ['orders:1', 12707],
    ['orders:2', 448],
    ['orders:3', 4577],
    ['orders:4', 8454],
    ['orders:5', 12583],
    ['orders:6', 324],
    ['orders:7', 4453],
  ])('puts %s in slot %i', (key, slot) => {
    expect(redisSlot(key)).toBe(slot);
  });

  it('hashes only the first non-empty hash tag', () => {
    expect(redisSlot('{user1000}.following')).toBe(redisSlot('user1000'));
    expect(redisSlot('{user1000}.followers')).toBe(redisSlot('{user1000}.following'));
    expect(redisSlot('{orders:3}:idem:e1')).toBe(redisSlot('orders:3'));
    expect(redisSlot('a{b}{c}')).toBe(redisSlot('b'));
  });

  it('hashes the whole key when the tag is empty or unclosed', () => {
    expect(redisSlot('foo{}{bar}')).toBe(crc16(new TextEncoder().encode('foo{}{bar}')) & 16383);
    expect(redisSlot('foo{bar')).toBe(crc16(new TextEncoder().encode('foo{bar')) & 16383);
    expect(redisSlot('foo{}{bar}')).not.toBe(redisSlot('bar'));
  });

  it('hashes UTF-8 bytes', () => {
    const key = '주문:0';
    expect(redisSlot(key)).toBe(crc16(new TextEncoder().encode(key)) & 16383);
  });
});
