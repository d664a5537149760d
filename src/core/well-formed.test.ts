import { describe, expect, it } from 'vitest';
import { isWellFormed } from './well-formed.js';

describe('names > well-formed Unicode', () => {
  it('refuses unpaired surrogates and accepts pairs and ordinary text', () => {
    for (const bad of ['\ud800', 'a\udfff', '\udc00\ud800', 'x\ud83d'])
      expect(isWellFormed(bad), bad).toBe(false);
    for (const good of ['orders', '😀', 'grüße', '']) expect(isWellFormed(good), good).toBe(true);
  });
});
