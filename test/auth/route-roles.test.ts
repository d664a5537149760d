/**
 * Every route × every role, as docs/protocol.md#roles and docs/protocol.md#endpoints-and-roles say, over the real stack.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, uniquePrefix } from '../support/redis.js';
import { heartbeatBody } from '../support/stack.js';
import {
  type AuthStack,
  basicFor,
  credentialsEnv,
  makeAuthStack,
  tokenFor,
  type UserName,
} from './support.js';

type Required = 'READ' | 'WRITE' | 'ADMIN' | 'MEMBER' | 'NONE' | 'HEARTBEAT';
type Who = UserName | 'anonymous';

/** Every route the coordinator serves under /coord/v1 except login (tested on its own). */
const ROUTES: ReadonlyArray<readonly [string, string, Required]> = [
  ['POST', '/streams/{p}', 'WRITE'],
  ['POST', '/streams/{p}/groups/{g}', 'WRITE'],
  ['GET', '/streams/{p}/groups/{g}', 'READ'],
  ['DELETE', '/streams/{p}/groups/{g}', 'WRITE'],
  ['DELETE', '/streams/{p}', 'ADMIN'],
  ['POST', '/streams/{p}/groups/{g}/repair', 'ADMIN'],
  ['GET', '/streams/{p}/groups/{g}/producer-routing', 'READ'],
  ['POST', '/streams/{p}/scale', 'WRITE'],
  ['POST', '/streams/{p}/groups/{g}/scale', 'WRITE'],
  ['GET', '/streams/{p}/groups/{g}/migrations/{id}', 'READ'],
  ['POST', '/streams/{p}/groups/{g}/migrations/{id}/rollback', 'WRITE'],
  ['POST', '/admin/streams/{p}/groups/{g}/offsets/reset', 'WRITE'],
  ['POST', '/streams/{p}/groups/{g}/members/{m}/heartbeat', 'HEARTBEAT'],
  ['POST', '/streams/{p}/groups/{g}/heartbeats', 'HEARTBEAT'],
  ['GET', '/monitoring/session', 'READ'],
  ['GET', '/monitoring/health', 'READ'],
  ['GET', '/monitoring/compatibility', 'READ'],
  ['GET', '/monitoring/groups', 'READ'],
  ['GET', '/monitoring/streams/{p}/groups/{g}', 'READ'],
  ['GET', '/monitoring/streams/{p}/groups/{g}/members', 'READ'],
  ['GET', '/monitoring/streams/{p}/groups/{g}/assignments', 'READ'],
  ['GET', '/monitoring/streams/{p}/groups/{g}/consumption', 'READ'],
  ['GET', '/monitoring/streams/{p}/groups/{g}/migrations', 'READ'],
  ['GET', '/monitoring/streams/{p}/groups/{g}/offsets', 'READ'],
  ['GET', '/monitoring/streams/{p}/groups/{g}/lag', 'READ'],
  ['GET', '/monitoring/streams/{p}/groups/{g}/shards/{i}/messages', 'READ'],
  ['GET', '/monitoring/streams/{p}/groups/{g}/pending-entries', 'READ'],
  ['GET', '/monitoring/streams/{p}/groups/{g}/dead-letters', 'READ'],
  ['GET', '/monitoring/grafana/groups', 'READ'],
  ['GET', '/monitoring/grafana/options/streams', 'READ'],
  ['GET', '/monitoring/grafana/options/consumer-groups', 'READ'],
  ['GET', '/monitoring/grafana/options/shards', 'READ'],
  ['GET', '/monitoring/grafana/members', 'READ'],
  ['GET', '/monitoring/grafana/shards', 'READ'],
  ['GET', '/monitoring/grafana/assignments', 'READ'],
  ['GET', '/monitoring/grafana/messages', 'READ'],
  ['GET', '/openapi.json', 'NONE'],
  ['GET', '/docs', 'NONE'],
];

/** Who may call a route needing each role (docs/protocol.md#roles grants, written out). */
const ALLOWED: Record<Exclude<Required, 'HEARTBEAT'>, readonly Who[]> = {
  NONE: ['anonymous', 'member', 'monitor', 'reader', 'writer', 'admin'],
  READ: ['monitor', 'reader', 'writer', 'admin'],
  WRITE: ['writer', 'admin'],
  ADMIN: ['admin'],
  MEMBER: ['member', 'admin'],
};
const EVERYONE: readonly Who[] = ['anonymous', 'member', 'monitor', 'reader', 'writer', 'admin'];

function fill(template: string, p: string, g: string): string {
  const path = template
    .replace('{p}', p)
    .replace('{g}', g)
    .replace('{m}', 'm-1')
    .replace('{id}', 'reshard-x')
    .replace('{i}', '0');
  const query = path.startsWith('/monitoring/grafana/')
    ? `?streamPrefix=${p}&consumerGroup=${g}`
    : path.endsWith('/pending-entries')
      ? '?shard=0'
      : '';
  return `/coord/v1${path}${query}`;
}

function bodyFor(method: string, template: string, p: string): unknown {
  if (template.endsWith('/heartbeat')) return heartbeatBody('m-1', p, { epoch: 0, mv: 0 });
  if (template.endsWith('/heartbeats')) return { heartbeats: [heartbeatBody('m-1', p, { epoch: 0, mv: 0 })] };
  if (template.endsWith('/scale')) return { targetShardCount: 3, requestedBy: 'auth-suite' };
  if (template.endsWith('/repair')) return { mode: 'rebuild', requestedBy: 'auth-suite', reason: 'roles' };
  if (template.endsWith('/offsets/reset')) return { to: 'earliest', requestedBy: 'auth-suite' };
  if (method === 'DELETE' && template === '/streams/{p}')
    return { requestedBy: 'auth-suite', reason: 'roles', force: true };
  return { requestedBy: 'auth-suite', initialShardCount: 2 };
}

/** Sends every route as `who` and returns the mismatches with `expected`. */
async function sweep(
  s: AuthStack,
  who: Who,
  authorization: string | undefined,
  expected: (required: Required) => 'allowed' | 401 | 403,
): Promise<string[]> {
  const problems: string[] = [];
  for (const [method, template, required] of ROUTES) {
    const p = uniquePrefix('authz');
    await s.send('POST', `/coord/v1/streams/${p}`, {
      authorization: basicFor('admin'),
      body: { requestedBy: 'setup', initialShardCount: 2 },
    });
    const body = method === 'GET' ? undefined : bodyFor(method, template, p);
    const r = await s.send(method, fill(template, p, p), { authorization, body });
    const want = expected(required);
    const where = `${who} ${method} ${template}`;
    if (want === 'allowed') {
      if (r.status === 401 || r.status === 403) problems.push(`${where}: expected allowed, got ${r.status}`);
      continue;
    }
    if (r.status !== want) problems.push(`${where}: expected ${want}, got ${r.status}`);
    else if (r.text !== '') problems.push(`${where}: ${want} with a body`);
    else if (want === 401 && r.headers.get('www-authenticate') !== 'Basic realm="redis-stream-coordinator"') {
      problems.push(`${where}: 401 without the Basic challenge`);
    } else if (want === 403 && r.headers.has('www-authenticate'))
      problems.push(`${where}: 403 with a challenge`);
  }
  return problems;
}

const backend = backends[0]!;

describe.each(['basic', 'bearer'] as const)(
  'auth > route roles with %s credentials (member auth on)',
  (kind) => {
    let s: AuthStack;
    const credentials = new Map<Who, string | undefined>();
    beforeAll(async () => {
      s = makeAuthStack(backend, credentialsEnv());
      credentials.set('anonymous', undefined);
      for (const who of ['member', 'monitor', 'reader', 'writer', 'admin'] as const) {
        credentials.set(who, kind === 'basic' ? basicFor(who) : `Bearer ${await tokenFor(s, who)}`);
      }
    });
    afterAll(() => s.close());

    it.each(EVERYONE)('%s reaches exactly the routes its roles allow', async (who) => {
      const problems = await sweep(s, who, credentials.get(who), (required) => {
        const role = required === 'HEARTBEAT' ? 'MEMBER' : required;
        if (ALLOWED[role].includes(who)) return 'allowed';
        return who === 'anonymous' ? 401 : 403;
      });
      expect(problems).toEqual([]);
    });
  },
);

describe('auth > route roles with member auth off', () => {
  let s: AuthStack;
  beforeAll(() => {
    s = makeAuthStack(backend, credentialsEnv({ COORDINATOR_AUTHENTICATE_MEMBER_API: 'false' }));
  });
  afterAll(() => s.close());

  it.each(['anonymous', 'monitor', 'member'] as const)(
    'heartbeats are open to %s; everything else unchanged',
    async (who) => {
      const problems = await sweep(s, who, who === 'anonymous' ? undefined : basicFor(who), (required) => {
        const role = required === 'HEARTBEAT' ? 'NONE' : required;
        if (ALLOWED[role].includes(who)) return 'allowed';
        return who === 'anonymous' ? 401 : 403;
      });
      expect(problems).toEqual([]);
    },
  );

  it('answers an anonymous heartbeat with the protocol answer', async () => {
    const p = uniquePrefix('hb');
    await s.send('POST', `/coord/v1/streams/${p}`, {
      authorization: basicFor('admin'),
      body: { requestedBy: 'setup', initialShardCount: 2 },
    });
    const r = await s.send('POST', `/coord/v1/streams/${p}/groups/${p}/members/m-1/heartbeat`, {
      body: heartbeatBody('m-1', p, { epoch: 0, mv: 0 }),
    });
    expect(r.status).toBe(200);
    expect(r.json.status).toBe('OK');
  });
});

describe('auth > open mode (no credentials)', () => {
  let s: AuthStack;
  beforeAll(() => {
    s = makeAuthStack(backend, {});
  });
  afterAll(() => s.close());

  it.each([
    ['no header', undefined],
    ['garbage credentials', 'Bearer not-a-token'],
    ['a wrong password', basicFor('admin')],
  ])('lets every route through with %s', async (_label, authorization) => {
    const problems = await sweep(s, 'anonymous', authorization, () => 'allowed');
    expect(problems).toEqual([]);
  });
});

describe('auth > public actuator', () => {
  it('serves /actuator/health (readiness, liveness) and /actuator/info without credentials when auth is on', async () => {
    const s = makeAuthStack(backend, credentialsEnv());
    try {
      expect((await s.send('GET', '/actuator/health')).status).toBe(200);
      expect((await s.send('GET', '/actuator/health/readiness')).status).toBe(200);
      expect((await s.send('GET', '/actuator/health/liveness')).status).toBe(200);
      expect((await s.send('GET', '/actuator/info')).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});

describe('auth > route table completeness', () => {
  it('lists every /coord/v1 route the app serves', async () => {
    const s = makeAuthStack(backend, credentialsEnv());
    try {
      const shape = (path: string) => path.replace(/\/:[^/]+/g, '/{}').replace(/\/\{[^}]+\}/g, '/{}');
      const known = new Set(ROUTES.map(([m, t]) => `${m} /coord/v1${shape(t)}`));
      known.add('POST /coord/v1/auth/login');
      const served = s.app.routes
        .filter((r) => r.method !== 'ALL' && r.path.startsWith('/coord/v1/'))
        .map((r) => `${r.method} ${shape(r.path)}`);
      expect(served.length).toBeGreaterThan(10);
      expect(served.filter((r) => !known.has(r))).toEqual([]);
    } finally {
      await s.close();
    }
  });
});
