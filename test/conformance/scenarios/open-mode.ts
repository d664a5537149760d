/**
 * Open mode (docs/security.md): without credentials, a mutation a browser sends on behalf of another
 * site (a foreign Origin, or Sec-Fetch-Site: cross-site) is refused with 403 and writes nothing;
 * non-browser clients and reads are served. With credentials, authentication alone decides.
 */
import { expect } from 'vitest';
import { uniquePrefix } from '../../support/redis.js';
import { groupPath, type Scenario } from '../scenario.js';

const create = { initialShardCount: 1, requestedBy: 'conformance' };

/** Scenarios about open mode. */
export const openModeScenarios: Scenario[] = [
  {
    name: 'refuses cross-origin mutations with 403 and a JSON reason, and writes nothing',
    async run(t) {
      const p = uniquePrefix('csrf');
      const refused: Array<Record<string, string>> = [
        { origin: 'http://evil.example' },
        { origin: 'null' },
        { 'sec-fetch-site': 'cross-site' },
      ];
      for (const headers of refused) {
        const res = await t.call('POST', `/coord/v1/streams/${p}`, create, headers);
        expect(res.status, JSON.stringify(headers)).toBe(403);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(res.body).toMatchObject({ status: 'FORBIDDEN', errorCode: 'FORBIDDEN' });
        expect(res.body.message).toMatch(/cross-origin POST refused/);
      }
      expect(await t.redis.keys(`*${p}*`)).toEqual([]);
      const read = await t.call('GET', groupPath(p), undefined, { origin: 'http://evil.example' });
      expect(read.status).toBe(404);
      expect((await t.call('POST', `/coord/v1/streams/${p}`, create)).status).toBe(201);
    },
  },
  {
    name: 'marks every JSON answer and the console page X-Content-Type-Options: nosniff',
    async run(t) {
      const p = uniquePrefix('nosniff');
      const answers = [
        await t.call('POST', `/coord/v1/streams/${p}`, create),
        await t.call('GET', groupPath(p)),
        await t.call('GET', groupPath(`${p}-missing`)),
        await t.call('POST', `/coord/v1/streams/${p}-bad`, '{'),
        await t.call('DELETE', '/coord/v1/monitoring/groups'),
        await t.call('GET', '/coord/v1/nowhere'),
        await t.call('POST', `/coord/v1/streams/${p}-x`, create, { origin: 'http://evil.example' }),
        await t.call('GET', '/actuator/health'),
        await t.call('GET', '/console'),
      ];
      expect(answers.map((a) => a.status)).toEqual([201, 200, 404, 400, 405, 404, 403, 200, 200]);
      for (const a of answers)
        expect(a.headers.get('x-content-type-options'), String(a.status)).toBe('nosniff');
    },
  },
  {
    name: 'with credentials configured, serves an authenticated mutation whatever its Origin',
    config: { COORDINATOR_ADMIN_PASSWORD: 'adm1n-secret' },
    async run(t) {
      const p = uniquePrefix('authed-origin');
      const res = await t.call('POST', `/coord/v1/streams/${p}`, create, {
        origin: 'http://evil.example',
        authorization: `Basic ${Buffer.from('admin:adm1n-secret').toString('base64')}`,
      });
      expect(res.status).toBe(201);
    },
  },
];
