import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FENCED_COMMAND, OWNER_CLAIM, OWNER_RELEASE, ownerKey, tokenHolder } from './shard-owner.js';

// Changing a script changes its SHA: update the pin here and in the module together.
const PINNED = {
  'shard-owner-claim': '4fed50d356b74f548eadfaba13f64840049b8c98',
  'shard-owner-release': '3b0474e73ebfd7ca683b959c6f765396bc70d60c',
  'shard-fenced-command': '2ed11ea64b91b7d29c036e1ca432df5c966f7a13',
};

describe('shard-owner scripts', () => {
  it('match their pinned SHA1s', () => {
    for (const s of [OWNER_CLAIM, OWNER_RELEASE, FENCED_COMMAND]) {
      expect(createHash('sha1').update(s.lua).digest('hex')).toBe(PINNED[s.name as keyof typeof PINNED]);
      expect(s.sha1).toBe(PINNED[s.name as keyof typeof PINNED]);
    }
  });

  it('keep the token in the shard key slot: its hash tag is the whole shard key', () => {
    expect(ownerKey('orders:3')).toBe('{orders:3}:owner');
  });

  it('read the holder out of a stored token, member ids with colons included', () => {
    expect(tokenHolder('12:1700000000000:host-1-m0')).toEqual({ epoch: 12, memberId: 'host-1-m0' });
    expect(tokenHolder(new TextEncoder().encode('3:0:a:b'))).toEqual({ epoch: 3, memberId: 'a:b' });
    expect(tokenHolder(null)).toBeNull();
    expect(tokenHolder('garbage')).toBeNull();
  });
});
