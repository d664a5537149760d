import { describe, expect, it } from 'vitest';
import { toBase64 } from './bytes.js';
import { parsePbkdf2Hash, parseStoredPassword, pbkdf2Sha256, verifyPassword } from './password.js';

// Computed independently with Python's hashlib.pbkdf2_hmac('sha256', 'pä:ss$word', salt, 1000).
const HASH = 'pbkdf2-sha256$1000$MDEyMzQ1Njc4OWFiY2RlZg==$MhGR4n1MKekouMR0+9b/8AfOgPOZQkRYiV0O4Y5z5VA=';

describe('auth > passwords', () => {
  it('derives PBKDF2-HMAC-SHA256 like the published vector (password/salt/4096)', async () => {
    const out = await pbkdf2Sha256('password', new TextEncoder().encode('salt'), 4096, 32);
    expect(Array.from(out, (b) => b.toString(16).padStart(2, '0')).join('')).toBe(
      'c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a',
    );
  });

  it('verifies the right password against a pbkdf2-sha256 hash and refuses others', async () => {
    const stored = parseStoredPassword(HASH);
    if ('error' in stored) throw new Error(stored.error);
    expect(stored.kind).toBe('pbkdf2');
    expect(await verifyPassword(stored, 'pä:ss$word')).toBe(true);
    expect(await verifyPassword(stored, 'pä:ss$wordX')).toBe(false);
    expect(await verifyPassword(stored, '')).toBe(false);
  });

  it('compares plaintext passwords exactly (case, length, unicode)', async () => {
    const stored = parseStoredPassword('S3cret!');
    if ('error' in stored) throw new Error(stored.error);
    expect(stored.kind).toBe('plain');
    expect(await verifyPassword(stored, 'S3cret!')).toBe(true);
    for (const wrong of ['s3cret!', 'S3cret', 'S3cret!!', '', 'S3cret!\u0000']) {
      expect(await verifyPassword(stored, wrong)).toBe(false);
    }
  });

  it.each([
    ['pbkdf2-sha256$1000$MDEyMzQ1Njc4OWFiY2RlZg==', 'expected'],
    ['pbkdf2-sha256$abc$MDEyMzQ1Njc4OWFiY2RlZg==$MhGR4n1MKekouMR0+9b/8AfOgPOZQkRYiV0O4Y5z5VA=', 'iterations'],
    ['pbkdf2-sha256$999$MDEyMzQ1Njc4OWFiY2RlZg==$MhGR4n1MKekouMR0+9b/8AfOgPOZQkRYiV0O4Y5z5VA=', 'iterations'],
    ['pbkdf2-sha256$1000$c2FsdA==$MhGR4n1MKekouMR0+9b/8AfOgPOZQkRYiV0O4Y5z5VA=', 'salt'],
    ['pbkdf2-sha256$1000$MDEyMzQ1Njc4OWFiY2RlZg==$not*base64', 'hash value'],
    ['pbkdf2-sha256$1000$MDEyMzQ1Njc4OWFiY2RlZg==$c2hvcnQ=', 'hash value'],
  ])('refuses the malformed hash %s with a reason that does not quote it', (value, reason) => {
    const r = parsePbkdf2Hash(value);
    expect(r).toHaveProperty('error');
    const { error } = r as { error: string };
    expect(error).toContain(reason);
    expect(error).not.toContain('MDEy');
  });

  it('accepts url-safe and unpadded base64 in hashes', () => {
    const salt = new Uint8Array(16).fill(251);
    const hash = new Uint8Array(32).fill(255);
    const urlSafe = (b: Uint8Array) => toBase64(b).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    expect(parsePbkdf2Hash(`pbkdf2-sha256$1000$${urlSafe(salt)}$${urlSafe(hash)}`)).toMatchObject({
      kind: 'pbkdf2',
      iterations: 1000,
      salt,
      hash,
    });
  });
});
