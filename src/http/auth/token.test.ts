import { describe, expect, it } from 'vitest';
import { fromBase64Url, toBase64Url, utf8 } from './bytes.js';
import { decodeToken, encodeToken, importTokenKey, type TokenClaims } from './token.js';

const SECRET = 'admin:s3cret:redis-stream-coordinator-token';
const EXPIRY = 1_780_000_000; // 2026-05-28T20:26:40Z
const BEFORE = (EXPIRY - 1) * 1000;
// Computed independently (Python hmac/base64) from the format of docs/protocol.md#roles.
const KNOWN = 'djEKYWxpY2UKMTc4MDAwMDAwMApNRU1CRVIsUkVBRA.yA7HFm5CrG--pI1P8uaebWI701Og4Wozy-fU5eu0pv8';
const CLAIMS: TokenClaims = { username: 'alice', roles: ['READ', 'MEMBER'], expiresAtSeconds: EXPIRY };

/** A token over an arbitrary payload, correctly signed with SECRET. */
async function signed(payload: string): Promise<string> {
  const first = toBase64Url(utf8(payload));
  const key = await crypto.subtle.importKey('raw', utf8(SECRET), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, utf8(first)));
  return `${first}.${toBase64Url(mac)}`;
}

describe('auth > bearer token codec', () => {
  it('writes the reference format byte for byte (roles sorted)', async () => {
    expect(await encodeToken(await importTokenKey(SECRET), CLAIMS)).toBe(KNOWN);
  });

  it('round-trips the claims of a token it issued', async () => {
    const key = await importTokenKey(SECRET);
    const token = await encodeToken(key, {
      username: 'bob',
      roles: ['WRITE', 'ADMIN'],
      expiresAtSeconds: EXPIRY,
    });
    expect(await decodeToken(key, token, BEFORE)).toEqual({
      username: 'bob',
      roles: ['ADMIN', 'WRITE'],
      expiresAtSeconds: EXPIRY,
    });
  });

  it('accepts a reference-format token signed elsewhere with the same secret', async () => {
    expect(await decodeToken(await importTokenKey(SECRET), KNOWN, BEFORE)).toEqual({
      ...CLAIMS,
      roles: ['MEMBER', 'READ'],
    });
  });

  it('refuses a token at and after its expiry second (expiry must be strictly in the future)', async () => {
    const key = await importTokenKey(SECRET);
    expect(await decodeToken(key, KNOWN, EXPIRY * 1000 - 1)).not.toBeNull();
    expect(await decodeToken(key, KNOWN, EXPIRY * 1000)).toBeNull();
    expect(await decodeToken(key, KNOWN, EXPIRY * 1000 + 86_400_000)).toBeNull();
  });

  it('refuses a token signed with another secret (forged MAC)', async () => {
    const other = await importTokenKey('another-secret-of-sufficient-length');
    expect(await decodeToken(other, KNOWN, BEFORE)).toBeNull();
  });

  it('refuses a token whose MAC part was altered', async () => {
    const key = await importTokenKey(SECRET);
    const [first, mac] = KNOWN.split('.') as [string, string];
    const bytes = fromBase64Url(mac)!;
    bytes[0]! ^= 1;
    expect(await decodeToken(key, `${first}.${toBase64Url(bytes)}`, BEFORE)).toBeNull();
    expect(await decodeToken(key, `${first}.${mac.slice(0, -2)}`, BEFORE)).toBeNull();
  });

  it('refuses a tampered payload (roles raised, expiry extended) under the original MAC', async () => {
    const key = await importTokenKey(SECRET);
    const mac = KNOWN.split('.')[1]!;
    for (const payload of ['v1\nalice\n1780000000\nADMIN', 'v1\nalice\n1880000000\nMEMBER,READ']) {
      expect(await decodeToken(key, `${toBase64Url(utf8(payload))}.${mac}`, BEFORE)).toBeNull();
    }
  });

  it('refuses a wrong version, a wrong line count, a bad expiry and no known role, even when signed', async () => {
    const key = await importTokenKey(SECRET);
    const bad = [
      'v2\nalice\n1780000000\nREAD',
      'V1\nalice\n1780000000\nREAD',
      'v1\nalice\n1780000000',
      'v1\nalice\n1780000000\nREAD\nextra',
      'v1\n \n1780000000\nREAD',
      'v1\nalice\nsoon\nREAD',
      'v1\nalice\n-1780000000\nREAD',
      'v1\nalice\n1780000000\n',
      'v1\nalice\n1780000000\nroot,superuser',
    ];
    for (const payload of bad)
      expect(await decodeToken(key, await signed(payload), BEFORE), payload).toBeNull();
    // Unknown roles are dropped, known ones kept.
    expect((await decodeToken(key, await signed('v1\nalice\n1780000000\nroot,READ'), BEFORE))?.roles).toEqual(
      ['READ'],
    );
  });

  it('needs exactly two non-blank parts', async () => {
    const key = await importTokenKey(SECRET);
    const [first, mac] = KNOWN.split('.') as [string, string];
    for (const t of [
      '',
      '.',
      first,
      `${first}.`,
      `.${mac}`,
      `${first}.${mac}.x`,
      `${first}..${mac}`,
      ' . ',
    ]) {
      expect(await decodeToken(key, t, BEFORE), JSON.stringify(t)).toBeNull();
    }
  });

  it('refuses non-canonical or non-base64url spellings of the same bytes', async () => {
    const key = await importTokenKey(SECRET);
    const [first, mac] = KNOWN.split('.') as [string, string];
    expect(await decodeToken(key, `${first}.${mac}=`, BEFORE)).toBeNull();
    expect(await decodeToken(key, `${first}.${mac.replace(/-/g, '+')}`, BEFORE)).toBeNull();
    expect(await decodeToken(key, `${first}=.${mac}`, BEFORE)).toBeNull();
  });
});
