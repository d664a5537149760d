/**
 * The Authenticator's decoy: an unknown username costs the same PBKDF2 work as a
 * configured hashed user, so response times do not tell which usernames exist.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConfiguredUser } from './auth-config.js';
import { Authenticator } from './authenticator.js';
import { pbkdf2Sha256 } from './password.js';

async function hashedUser(username: string, iterations: number): Promise<ConfiguredUser> {
  const salt = new Uint8Array(16).fill(3);
  const hash = await pbkdf2Sha256('right-password', salt, iterations, 32);
  return {
    username,
    roles: ['READ'],
    password: { kind: 'pbkdf2', iterations, salt, hash: new Uint8Array(hash) },
  };
}

/** The iteration counts of every PBKDF2 derivation `work` makes. */
async function derivations(work: () => Promise<unknown>): Promise<number[]> {
  const spy = vi.spyOn(crypto.subtle, 'deriveBits');
  await work();
  const counts = spy.mock.calls.map(([params]) => (params as Pbkdf2Params).iterations);
  spy.mockRestore();
  return counts;
}

describe('auth > unknown usernames cost what a hashed user costs', () => {
  afterEach(() => vi.restoreAllMocks());

  it('derives PBKDF2 at the costliest configured iteration count for an unknown username', async () => {
    const users = [await hashedUser('light', 2000), await hashedUser('heavy', 6000)];
    const auth = new Authenticator({ users, tokenSecret: 'secret-0123456789abcdef', tokenTtlSeconds: 60 });
    expect(await derivations(() => auth.checkPassword('heavy', 'wrong', 0))).toEqual([6000]);
    expect(await derivations(() => auth.checkPassword('nobody', 'wrong', 0))).toEqual([6000]);
    expect(await auth.checkPassword('nobody', 'right-password', 0)).toBeNull();
  });

  it('needs no PBKDF2 for unknown usernames when no user is hashed', async () => {
    const users: ConfiguredUser[] = [
      { username: 'p', roles: ['READ'], password: { kind: 'plain', password: 'pw' } },
    ];
    const auth = new Authenticator({ users, tokenSecret: 'secret-0123456789abcdef', tokenTtlSeconds: 60 });
    expect(await derivations(() => auth.checkPassword('nobody', 'pw', 0))).toEqual([]);
    expect(await auth.checkPassword('p', 'pw', 0)).toMatchObject({ username: 'p' });
  });
});
