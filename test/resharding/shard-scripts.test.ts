/**
 * The shard scripts against real Redis (standalone and 6-node Cluster): pinned SHAs, drain
 * evidence reads, the atomic check-and-delete, and provisioning that never creates a key.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainVerdict } from '../../src/core/drain-evidence.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { SHARD_SCRIPTS } from '../../src/store/scripts/shard-args.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { exists, fill, readAndAck } from './support.js';

const PINNED: Record<string, string> = {
  'shard-evidence': '27bbbc46709cbbda9b3fe003738657e152b48352',
  'retire-shard': '00c6469fb8126a5042a9ee4b2cc7afecf8e40d4f',
  'provision-existing': 'c0b8976c972c6bf74c5263496c39487442caeb7b',
};

describe('resharding > shard scripts are pinned', () => {
  it.each(SHARD_SCRIPTS.map((s) => [s.name, s] as const))('%s matches its pinned SHA1', (name, script) => {
    expect(createHash('sha1').update(script.lua).digest('hex')).toBe(PINNED[name]);
    expect(script.sha1).toBe(PINNED[name]);
  });
});

describe.each(backends)('resharding > shard scripts ($name)', (backend) => {
  const redis = backend.make();
  let store: IoredisStore;
  const key = (name: string) => `${uniquePrefix('shard')}:${name}`;
  beforeAll(() => {
    store = new IoredisStore(backend.make(), { namespace: uniquePrefix('ns'), ownsClient: true });
  });
  afterAll(async () => {
    await store.close();
    redis.disconnect();
  });

  it('Redis agrees with every pinned SHA', async () => {
    for (const s of SHARD_SCRIPTS) {
      expect(await redis.eval('return redis.sha1hex(ARGV[1])', 1, key('sha'), s.lua)).toBe(s.sha1);
    }
  });

  it('reads an absent key, a wrong type and a stream with its groups', async () => {
    expect(await store.readShard(key('absent'))).toEqual({ kind: 'absent' });
    const str = key('string');
    await redis.set(str, 'x');
    expect(await store.readShard(str)).toMatchObject({
      kind: 'error',
      message: expect.stringContaining('WRONGTYPE'),
    });

    const k = key('stream');
    await redis.xgroup('CREATE', k, 'g', '$', 'MKSTREAM');
    const ids = await fill(redis, k, 4);
    await redis.xgroup('CREATE', k, 'late', '$');
    await redis.xreadgroup('GROUP', 'g', 'c', 'COUNT', 2, 'STREAMS', k, '>');
    await redis.xack(k, 'g', ids[0]!);
    expect(await store.readShard(k)).toEqual({
      kind: 'stream',
      length: 4,
      entriesAdded: 4,
      groups: [
        { name: 'g', pending: 1, lag: 2, lastDeliveredId: ids[1], entryAfterLastDelivered: true },
        { name: 'late', pending: 0, lag: 0, lastDeliveredId: ids[3], entryAfterLastDelivered: false },
      ],
    });
    await redis.xdel(k, ids[3]!);
    const reading = await store.readShard(k);
    expect(reading).toMatchObject({
      kind: 'stream',
      length: 3,
      groups: [{ name: 'g', lag: null }, { name: 'late' }],
    });
    expect(drainVerdict(reading, ['g']).drained).toBe(false);
  });

  it('deletes a drained key, refuses anything unread or pending, and never deletes what it cannot read', async () => {
    const k = key('retire');
    await redis.xgroup('CREATE', k, 'g', '$', 'MKSTREAM');
    await fill(redis, k, 2);
    // Unread (lag 2): refused, nothing deleted.
    expect(await store.retireShard(k, ['g'])).toMatchObject({
      kind: 'refused',
      reading: { kind: 'stream', groups: [{ name: 'g', pending: 0, lag: 2 }] },
    });
    const read = (await redis.xreadgroup('GROUP', 'g', 'c', 'STREAMS', k, '>')) as unknown as Array<
      [string, Array<[string]>]
    >;
    // Delivered but not acknowledged: refused.
    expect((await store.retireShard(k, ['g'])).kind).toBe('refused');
    await redis.xack(k, 'g', ...read[0]![1].map(([id]) => id));
    // A managed group missing while entries remain: refused.
    expect((await store.retireShard(k, ['g', 'other'])).kind).toBe('refused');
    expect(await exists(redis, k)).toBe(true);
    expect(await store.retireShard(k, ['g'])).toEqual({ kind: 'deleted' });
    expect(await exists(redis, k)).toBe(false);
    expect(await store.retireShard(k, ['g'])).toEqual({ kind: 'absent' });

    // A group the coordinator does not manage, everything read and acknowledged: never deleted.
    const foreign = key('foreign');
    await redis.xgroup('CREATE', foreign, 'g', '$', 'MKSTREAM');
    await redis.xgroup('CREATE', foreign, 'intruder', '$');
    expect(await store.retireShard(foreign, ['g'])).toMatchObject({
      kind: 'refused',
      reading: { kind: 'stream', length: 0, groups: [{ name: 'g' }, { name: 'intruder' }] },
    });
    await fill(redis, foreign, 1);
    await readAndAck(redis, foreign, 'g', 'c');
    await readAndAck(redis, foreign, 'intruder', 'c');
    expect((await store.retireShard(foreign, ['g'])).kind).toBe('refused');
    expect(await exists(redis, foreign)).toBe(true);
    expect(await store.retireShard(foreign, ['g', 'intruder'])).toEqual({ kind: 'deleted' });

    const entriesNoGroup = key('nogroup');
    await redis.xadd(entriesNoGroup, '*', 'f', 'v');
    expect((await store.retireShard(entriesNoGroup, [])).kind).toBe('refused');
    const str = key('str');
    await redis.set(str, 'x');
    expect(await store.retireShard(str, ['g'])).toMatchObject({
      kind: 'refused',
      reading: { kind: 'error' },
    });
    expect(await redis.get(str)).toBe('x');
  });

  it('provisions a group on an existing shard only, at its tail, and never creates the key', async () => {
    const missing = key('missing');
    expect(await store.provisionExisting(missing, 'g')).toBe(false);
    expect(await exists(redis, missing)).toBe(false);
    const k = key('existing');
    await redis.xgroup('CREATE', k, 'g', '$', 'MKSTREAM');
    await fill(redis, k, 3);
    expect(await store.provisionExisting(k, 'new')).toBe(true);
    expect(await store.provisionExisting(k, 'new')).toBe(true);
    const reading = await store.readShard(k);
    expect(reading).toMatchObject({
      kind: 'stream',
      groups: [
        { name: 'g', lag: 3 },
        { name: 'new', lag: 0 },
      ],
    });
  });
});
