/**
 * Layout 1 (one JSON document per group) was only ever written by unreleased development builds.
 * A coordinator that meets it refuses it, failing closed: every read answers 500
 * METADATA_CORRUPT naming layout 1 and what to do, nothing is written, and the sweep skips the
 * stream instead of failing as a whole.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isCoordinatorError } from '../../src/core/errors.js';
import { streamKeys } from '../../src/store/keys.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { snapshotKeys } from '../support/scan.js';
import { heartbeat, makeStack, type Stack } from '../support/stack.js';
import { groupDoc, member, streamDoc } from '../support/store-fixtures.js';

describe.each(backends)('store > layout 1 is refused ($name)', (backend) => {
  let stack: Stack;
  afterEach(async () => {
    await stack?.close();
  });

  /** Writes a stream with group `g` the way the layout-1 development builds stored it. */
  async function writeLayout1(p: string, g: string): Promise<void> {
    const ns = stack.config.keyPrefix;
    const now = stack.clock.now();
    const doc = JSON.stringify(streamDoc(p, [g], { shardCount: 2 }));
    await stack.redis.hset(streamKeys(ns, p).stream, 'rev', '3', 'doc', doc, 'len', Buffer.byteLength(doc));
    const group = groupDoc(
      p,
      g,
      [
        member('A', {
          memberEpoch: 4,
          metadataVersion: 5,
          currentAssignment: [0, 1],
          grantedAssignment: [0, 1],
          lastHeartbeatAt: now,
          memberLeaseExpiresAt: now + 3000,
          shardProgress: [
            {
              shard: 0,
              streamKey: `${p}:0`,
              lastDeliveredId: '7-0',
              lastAckedId: '7-0',
              pendingCount: 0,
              updatedAt: null,
            },
          ],
        }),
      ],
      {
        groupEpoch: 4,
        assignmentEpoch: 4,
        metadataVersion: 5,
        targetAssignments: { A: [0, 1] },
        state: 'STABLE',
      },
    );
    const text = JSON.stringify(group);
    // The layout-1 keys of a group: document, leases, live entries, fast-path fingerprints.
    const base = `${ns}:{${p}}`;
    const e = encodeURIComponent(g);
    await stack.redis.hset(
      `${base}:group:${e}`,
      'rev',
      '3',
      'doc',
      text,
      'len',
      Buffer.byteLength(text),
      'until',
      String(now + 60_000),
    );
    await stack.redis.zadd(`${base}:leases:${e}`, now + 3000, 'A');
    await stack.redis.hset(`${base}:fast:${e}`, 'A', '3|1|k|{}');
    await stack.store.registerStream(p);
  }

  /** Every key of the namespace and of the stream's shards, with its serialized value and TTL. */
  async function dumpAll(p: string): Promise<Array<[string, string, number]>> {
    // The namespace's due index is the sweep's own bookkeeping, not the stream's state.
    const keys = (await snapshotKeys(stack.redis, stack.config.keyPrefix, p)).filter(
      (k) => !k.includes(':{#due}:'),
    );
    const out: Array<[string, string, number]> = [];
    for (const k of keys) {
      const dump = await stack.redis.dumpBuffer(k);
      out.push([k, dump ? dump.toString('hex') : '', await stack.redis.pttl(k)]);
    }
    return out;
  }

  function expectRefusal(res: { status: number; body: { errorCode: string; message: string } }, p: string) {
    expect(res.status).toBe(500);
    expect(res.body.errorCode).toBe('METADATA_CORRUPT');
    expectLayout1Message(res.body.message, p);
  }

  function expectLayout1Message(message: string, p: string) {
    expect(message).toContain(`"${p}"`);
    expect(message).toContain('layout 1');
    expect(message).toContain('layout 2 only');
    expect(message).toMatch(/delete the stream's coordinator keys .* create the stream again/);
    expect(message).not.toMatch(/redis:\/\/|rediss:\/\/|password/i);
  }

  it('answers 500 METADATA_CORRUPT to a heartbeat, a group read and a scale, and writes nothing', async () => {
    stack = makeStack(backend);
    const p = uniquePrefix('old');
    await writeLayout1(p, p);
    const before = await dumpAll(p);
    expect(before.length).toBeGreaterThanOrEqual(5);

    // A steady heartbeat (the fast-path key is sent) and a join.
    expectRefusal(await heartbeat(stack, p, p, 'A', { epoch: 4, mv: 5, owned: [0, 1] }), p);
    expectRefusal(await heartbeat(stack, p, p, 'B', { epoch: 0, mv: 0 }), p);
    expectRefusal(await stack.call('GET', `/coord/v1/streams/${p}/groups/${p}`), p);
    expectRefusal(
      await stack.call('POST', `/coord/v1/streams/${p}/scale`, {
        targetShardCount: 4,
        requestedBy: 'test',
        reason: 'layout 1',
      }),
      p,
    );
    expect(await dumpAll(p)).toEqual(before);
  });

  it('refuses on every read of the store the same way', async () => {
    stack = makeStack(backend);
    const p = uniquePrefix('oldstore');
    await writeLayout1(p, p);
    const before = await dumpAll(p);
    const now = stack.clock.now();
    const reads: Array<[string, () => Promise<unknown>]> = [
      ['load', () => stack.store.load(p, 'all')],
      ['load named', () => stack.store.load(p, [p])],
      [
        'readMember',
        () =>
          stack.store.readMember({
            prefix: p,
            group: p,
            memberId: 'A',
            now,
            fastKey: 'k',
            leaseExpiresAt: now + 3000,
            progressJson: '[]',
            shards: [0, 1],
            maxDue: 10,
            recoveryHoldMs: 3000,
          }),
      ],
      ['readAssignment', () => stack.store.readAssignment(p, p, now, 'token', 1000)],
      ['readMembers', () => stack.store.readMembers(p, p, ['A'])],
      ['readDue', () => stack.store.readDue(p, p, now, 10)],
      ['probeStream', () => stack.store.probeStream(p, now)],
    ];
    for (const [name, read] of reads) {
      const err = await read().then(
        () => null,
        (e: unknown) => e,
      );
      expect(isCoordinatorError(err), name).toBe(true);
      if (!isCoordinatorError(err)) continue;
      expect(err.code, name).toBe('METADATA_CORRUPT');
      expectLayout1Message(err.message, p);
    }
    expect(await dumpAll(p)).toEqual(before);
  });

  it('the sweep skips such a stream and leaves it alone', async () => {
    stack = makeStack(backend);
    const p = uniquePrefix('oldsweep');
    await writeLayout1(p, p);
    const before = await dumpAll(p);
    stack.clock.advance(60_000);
    const report = await stack.coordinator.sweep(stack.clock.now());
    expect(report).toMatchObject({ streams: 1, groupsChanged: 0, skippedBusy: 0 });
    expect(await dumpAll(p)).toEqual(before);
  });
});
