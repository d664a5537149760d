import { describe, expect, it } from 'vitest';
import { dict, own, withEntry } from './dict.js';

const NAMES = ['valueOf', 'constructor', '__proto__', 'toString', 'hasOwnProperty'];

describe('dict > names that are Object.prototype members', () => {
  it.each(NAMES)('reads %s as absent until it is set, then as an ordinary key', (name) => {
    const plain: Record<string, number> = JSON.parse('{"a":1}');
    expect(own(plain, name)).toBeUndefined();
    const d = dict<number>();
    expect(own(d, name)).toBeUndefined();
    d[name] = 7;
    expect(own(d, name)).toBe(7);
    expect(Object.keys(d)).toEqual([name]);
    const copy = withEntry(plain, name, 8);
    expect(Object.entries(copy)).toEqual([
      ['a', 1],
      [name, 8],
    ]);
    expect(JSON.parse(JSON.stringify(dict([[name, 1]])))).toEqual(JSON.parse(`{"${name}":1}`));
  });
});
