/**
 * One process per member id, over real HTTP and real Redis: consumer
 * processes with default options get different member ids; a second process sharing an
 * explicit id is told MEMBER_ID_IN_USE and reads nothing while the first is live (and joins once
 * it left); a reference-style heartbeat without `memberInstanceId` is never refused for it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MemberIdInUseError } from '../../src/client/consumer-errors.js';
import { createApp } from '../../src/http/app.js';
import { repoRoot } from '../node/child.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import { heartbeatBody } from '../support/stack.js';
import { collect, eventually, newStream, realStack, testConsumer } from './support.js';

const stack = realStack({ name: 'standalone', make: standaloneClient });
const redis = standaloneClient();
let server: Server;
let base = '';

beforeAll(async () => {
  const app = createApp({ coordinator: stack.coordinator, config: stack.config, now: stack.clock.now });
  server = createAdaptorServer({ fetch: app.fetch, hostname: '127.0.0.1' }) as Server;
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1' }, resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  await stack.close();
  await redis.quit();
});

const hbPath = (p: string, m: string) =>
  `/coord/v1/streams/${p}/groups/${p}/members/${encodeURIComponent(m)}/heartbeat`;

/** A heartbeat over real HTTP: status and parsed body. */
// biome-ignore lint/suspicious/noExplicitAny: tests index JSON bodies freely.
async function post(path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** Members the coordinator records for group `p` of stream `p`. */
async function members(p: string): Promise<Array<{ memberId: string; state: string }>> {
  const res = await stack.call('GET', `/coord/v1/monitoring/streams/${p}/groups/${p}/members`);
  return res.body.members;
}

interface Child {
  proc: ChildProcess;
  // biome-ignore lint/suspicious/noExplicitAny: tests index JSON lines freely.
  lines: Array<Record<string, any>>;
}

function spawnConsumer(prefix: string): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'test/consumer/member-ids-child.ts'], {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      COORDINATOR_URL: base,
      REDIS_URL: inject('redisUrl'),
      STREAM_PREFIX: prefix,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const child: Child = { proc, lines: [] };
  let buf = '';
  proc.stdout?.on('data', (chunk: Buffer) => {
    buf += chunk.toString();
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      child.lines.push(JSON.parse(buf.slice(0, nl)));
      buf = buf.slice(nl + 1);
    }
  });
  return child;
}

async function stop(child: Child): Promise<void> {
  if (child.proc.exitCode !== null) return;
  const exited = new Promise((resolve) => child.proc.once('exit', resolve));
  child.proc.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
  if (child.proc.exitCode === null) child.proc.kill('SIGKILL');
}

describe('consumer > member ids', () => {
  it('gives two consumer processes with default options different member ids, each reading its own shard', async () => {
    const p = await newStream(stack, 2, 'ids');
    const children = [spawnConsumer(p), spawnConsumer(p)];
    try {
      const ids = (c: Child) => c.lines.find((l) => l.type === 'started')?.memberIds as string[] | undefined;
      await eventually(() => {
        for (const c of children) expect(ids(c)).toBeDefined();
      }, 30_000);
      const [a, b] = children.map((c) => ids(c)![0]!);
      expect(a).not.toBe(b);
      for (const id of [a!, b!]) expect(id).toMatch(/^[A-Za-z0-9._-]+-\d+-[0-9a-f]{6}-m0$/);
      await eventually(async () => {
        const m = await members(p);
        expect(m.map((x) => [x.memberId, x.state]).sort()).toEqual(
          [
            [a, 'ACTIVE'],
            [b, 'ACTIVE'],
          ].sort(),
        );
        for (const c of children) expect(c.lines.some((l) => l.type === 'assigned')).toBe(true);
      }, 30_000);
      for (const c of children) expect(c.lines.filter((l) => l.code === 'MEMBER_ID_IN_USE')).toEqual([]);
    } finally {
      await Promise.all(children.map(stop));
    }
  }, 60_000);

  it('tells a second process sharing an explicit member id MEMBER_ID_IN_USE; it reads nothing until the first left', async () => {
    const p = await newStream(stack, 2, 'ids');
    const memberBase = uniquePrefix('fixed');
    // The refused member learns no lease from the coordinator: tell it this stack's (3 s).
    const opts = {
      streamPrefix: p,
      redis,
      handler: () => 'ack' as const,
      memberBase,
      coordinatorUrl: base,
      fallbackLeaseTtlMs: 3000,
    };
    const first = testConsumer({ ...opts, fetch: (url, init) => fetch(url, init) });
    first.start();
    await eventually(() => expect(first.status()[0]!.reading).toEqual([0, 1]));

    const second = testConsumer({ ...opts, fetch: (url, init) => fetch(url, init) });
    const errors = collect(second, 'error');
    const assigned = collect(second, 'assigned');
    second.start();
    await eventually(() => expect(errors.some((e) => e.error instanceof MemberIdInUseError)).toBe(true));
    const refusal = errors.find((e) => e.error instanceof MemberIdInUseError)!;
    expect(refusal).toMatchObject({ memberId: `${memberBase}-m0`, context: 'heartbeat' });
    expect(refusal.error).toMatchObject({ code: 'MEMBER_ID_IN_USE', memberId: `${memberBase}-m0` });
    // While the first is live: the second never reads, the first keeps both shards.
    await new Promise((r) => setTimeout(r, 1500));
    expect(assigned).toEqual([]);
    expect(second.status()[0]).toMatchObject({
      reading: [],
      lastStatus: 'MEMBER_ID_IN_USE',
      leaseValid: false,
    });
    expect(first.status()[0]).toMatchObject({ reading: [0, 1], lastStatus: 'OK' });

    // The first leaves: the second joins at its slow retry pace (one member lease, 3 s here).
    await first.close();
    await eventually(() => expect(second.status()[0]!.reading).toEqual([0, 1]), 15_000);
    await second.close();
  }, 40_000);

  it('answers 409 MEMBER_ID_IN_USE to another instance (also after fast-path answers) and never to a heartbeat without the field', async () => {
    const p = await newStream(stack, 1, 'ids');
    const m = 'shared-m0';
    const X = 'a'.repeat(32);
    const Y = 'b'.repeat(32);
    const beat = (a: { epoch: number; mv: number; owned?: number[] }, instance?: string) =>
      post(hbPath(p, m), { ...heartbeatBody(m, p, a), ...(instance ? { memberInstanceId: instance } : {}) });
    const joined = await beat({ epoch: 0, mv: 0 }, X);
    expect(joined).toMatchObject({ status: 200, body: { status: 'OK' } });
    let e = joined.body.memberEpoch as number;
    let mv = joined.body.metadataVersion as number;
    for (let i = 0; i < 3; i++) {
      const r = await beat({ epoch: e, mv, owned: [0] }, X);
      expect(r).toMatchObject({
        status: 200,
        body: { status: 'OK', assignment: { assignedShards: [{ shardIndex: 0 }] } },
      });
      e = r.body.memberEpoch;
      mv = r.body.metadataVersion;
    }
    const refused = {
      status: 409,
      body: {
        status: 'CONFLICT',
        errorCode: 'MEMBER_ID_IN_USE',
        message: `member id ${m} is in use by another process; give each process a unique member id (memberBase)`,
        requestId: expect.any(String),
      },
    };
    // The steady request of X, sent by Y: the fast path must not answer it.
    expect(await beat({ epoch: e, mv, owned: [0] }, Y)).toEqual(refused);
    expect(await beat({ epoch: 0, mv: 0 }, Y)).toEqual(refused);
    // Reference clients never send the field: the reference's rules answer them, with a 200.
    expect(await beat({ epoch: e, mv, owned: [0] })).toMatchObject({ status: 200, body: { status: 'OK' } });
    expect(await beat({ epoch: 0, mv: 0 })).toMatchObject({
      status: 200,
      body: { status: 'INVALID_REQUEST' },
    });
    // The holder is unaffected.
    expect(await beat({ epoch: e, mv, owned: [0] }, X)).toMatchObject({
      status: 200,
      body: { status: 'OK' },
    });
    expect(await members(p)).toMatchObject([{ memberId: m, state: 'ACTIVE' }]);
  });

  it.each([['x'.repeat(129)], ['has space'], ['']])(
    'rejects memberInstanceId %j with 400 INVALID_REQUEST',
    async (bad) => {
      const p = await newStream(stack, 1, 'ids');
      const r = await post(hbPath(p, 'm0'), {
        ...heartbeatBody('m0', p, { epoch: 0, mv: 0 }),
        memberInstanceId: bad,
      });
      expect(r).toMatchObject({ status: 400, body: { errorCode: 'INVALID_REQUEST' } });
      expect(r.body.message).toContain('memberInstanceId');
    },
  );

  it.each([[-1], [1.5], ['7'], [2 ** 53]])('rejects requestSeq %j with 400 INVALID_REQUEST', async (bad) => {
    const p = await newStream(stack, 1, 'ids');
    const r = await post(hbPath(p, 'm0'), {
      ...heartbeatBody('m0', p, { epoch: 0, mv: 0 }),
      memberInstanceId: 'inst-1',
      requestSeq: bad,
    });
    expect(r).toMatchObject({ status: 400, body: { errorCode: 'INVALID_REQUEST' } });
    expect(r.body.message).toContain('requestSeq');
  });
});
