/**
 * Redis restarted with older data: a restore from an older snapshot, or a failover to
 * a lagging replica, hands the coordinator state older than what members were told. The store
 * notices the other Redis run id and holds new grants for one member lease, so no shard is read
 * by two members at once; members reporting epochs the store never issued are refused.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { canConnect, freeLoopbackPort } from '../../node/net.js';
import { groupKeys } from '../../src/store/keys.js';
import { type Backend, backends, uniquePrefix } from '../support/redis.js';
import { type HeartbeatArgs, heartbeat, idx, makeStack, type Stack } from '../support/stack.js';

const LEASE_MS = 3000;

/** Who is reading which shard, as members following their answers would. */
class Readers {
  private readonly reading = new Map<string, number[]>();

  apply(
    member: string,
    body: { status: string; assignment: { assignedShards: Array<{ shardIndex: number }> } },
  ) {
    this.reading.set(member, body.status === 'OK' ? idx(body.assignment.assignedShards) : []);
    const seen = new Map<number, string>();
    for (const [m, shards] of this.reading) {
      for (const s of shards) {
        expect(seen.get(s), `shard ${s} read by ${seen.get(s)} and ${m}`).toBeUndefined();
        seen.set(s, m);
      }
    }
  }
}

async function beat(stack: Stack, p: string, m: string, a: HeartbeatArgs, readers: Readers) {
  const res = await heartbeat(stack, p, p, m, a);
  expect(res.status).toBe(200);
  readers.apply(m, res.body);
  return res.body;
}

async function createStream(stack: Stack, shards: number): Promise<string> {
  const p = uniquePrefix('orders');
  const res = await stack.call('POST', `/coord/v1/streams/${p}`, {
    initialShardCount: shards,
    requestedBy: 't',
  });
  expect(res.status).toBe(201);
  return p;
}

/** `m` joins and settles on every shard; returns its epoch and metadata version. */
async function settle(
  stack: Stack,
  p: string,
  m: string,
  readers: Readers,
): Promise<{ epoch: number; mv: number }> {
  const joined = await beat(stack, p, m, { epoch: 0, mv: 0 }, readers);
  const owned = idx(joined.assignment.assignedShards);
  const steady = await beat(
    stack,
    p,
    m,
    { epoch: joined.memberEpoch, mv: joined.metadataVersion, owned },
    readers,
  );
  expect(idx(steady.assignment.assignedShards)).toEqual([0, 1]);
  return { epoch: steady.memberEpoch, mv: steady.metadataVersion };
}

describe.each(backends)('recovery hold after Redis served another run ($name)', (backend) => {
  let stack: Stack;
  afterEach(async () => {
    await stack?.close();
  });

  it('grants no free shard for one lease, keeps reported ones, then grants as usual', async () => {
    stack = makeStack(backend, { config: { COORDINATOR_MEMBER_LEASE_TTL_MS: String(LEASE_MS) } });
    const readers = new Readers();
    const p = await createStream(stack, 2);
    const a = await settle(stack, p, 'A', readers);
    // Data written by another Redis run (what a restore or a failover looks like to the store).
    await stack.redis.hset(groupKeys(stack.config.keyPrefix, p, p).header, 'rn', 'f'.repeat(40));

    const kept = await beat(stack, p, 'A', { epoch: a.epoch, mv: a.mv, owned: [0, 1] }, readers);
    expect(idx(kept.assignment.assignedShards)).toEqual([0, 1]);
    const future = await beat(stack, p, 'A', { epoch: a.epoch + 5, mv: a.mv, owned: [0, 1] }, readers);
    expect(future.status).toBe('INVALID_REQUEST');
    const left = await beat(stack, p, 'A', { epoch: -1, mv: a.mv }, readers);
    expect(idx(left.assignment.assignedShards)).toEqual([]);

    const b = await beat(stack, p, 'B', { epoch: 0, mv: 0 }, readers);
    expect(idx(b.assignment.assignedShards)).toEqual([]);
    expect(idx(b.assignment.pendingShards)).toEqual([0, 1]);
    let last = b;
    for (let t = 0; t < LEASE_MS; t += 1000) {
      stack.clock.advance(1000);
      last = await beat(
        stack,
        p,
        'B',
        { epoch: last.memberEpoch, mv: last.metadataVersion, owned: [] },
        readers,
      );
    }
    expect(idx(last.assignment.assignedShards)).toEqual([0, 1]);
  });
});

describe('Redis restarted from an older snapshot (standalone)', () => {
  let stack: Stack | undefined;
  let redis: ChildProcess | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await stack?.close();
    redis?.kill('SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function startRedis(port: number, at: string): Promise<ChildProcess> {
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      at,
      '--save',
      '',
      '--appendonly',
      'no',
    ];
    const child = spawn('redis-server', args, { stdio: 'ignore' });
    await vi.waitFor(async () => expect(await canConnect('127.0.0.1', port, 200)).toBe(true), {
      timeout: 10_000,
    });
    return child;
  }

  it('never lets two members read a shard: the member from the lost future is refused, the joiner waits', async () => {
    const port = await freeLoopbackPort();
    dir = mkdtempSync(join(tmpdir(), 'rsc-snapshot-'));
    redis = await startRedis(port, dir);
    const url = `redis://127.0.0.1:${port}`;
    const own: Backend = {
      name: 'standalone',
      make: () => new Redis(url, { protocol: 2, maxRetriesPerRequest: 1 }),
    };
    stack = makeStack(own, { config: { COORDINATOR_MEMBER_LEASE_TTL_MS: String(LEASE_MS) } });
    const readers = new Readers();
    const p = await createStream(stack, 2);
    const a = await settle(stack, p, 'A', readers);
    await stack.redis.save(); // the snapshot: A owns both shards

    // The lost future: A leaves, B takes both shards.
    const left = await beat(stack, p, 'A', { epoch: -1, mv: a.mv }, readers);
    expect(left.status).toBe('OK');
    const b0 = await settle(stack, p, 'B', readers);

    // Redis dies and comes back from the snapshot; A's lease there has run out meanwhile.
    const exited = new Promise((r) => redis?.once('exit', r));
    redis.kill('SIGKILL');
    await exited;
    redis = await startRedis(port, dir);
    await vi.waitFor(async () => expect(await stack?.redis.ping()).toBe('PONG'), { timeout: 10_000 });
    stack.clock.advance(LEASE_MS + 500);

    // C joins while B, unaware, still reads both shards.
    const c = await beat(stack, p, 'C', { epoch: 0, mv: 0 }, readers);
    expect(idx(c.assignment.assignedShards)).toEqual([]);
    // B's epoch was never issued by the restored store: it must drop everything.
    const b = await beat(stack, p, 'B', { epoch: b0.epoch, mv: b0.mv, owned: [0, 1] }, readers);
    expect(b.status).not.toBe('OK');

    let last = c;
    for (let t = 0; t < LEASE_MS + 1000; t += 1000) {
      stack.clock.advance(1000);
      last = await beat(
        stack,
        p,
        'C',
        { epoch: last.memberEpoch, mv: last.metadataVersion, owned: [] },
        readers,
      );
      if (idx(last.assignment.assignedShards).length > 0) break;
    }
    expect(idx(last.assignment.assignedShards)).toEqual([0, 1]);
  });
});
