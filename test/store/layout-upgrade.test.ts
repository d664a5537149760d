/**
 * Metadata written by the previous release (layout 1: one JSON document per group) is upgraded
 * in place on first contact: nothing is lost, members keep their epochs and shards, and the
 * layout-1 documents are deleted so a coordinator of the old release fails closed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { groupKeys, streamKeys } from '../../src/store/keys.js';
import { layout1GroupKeys } from '../../src/store/layout1.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { heartbeat, idx, makeStack, type Stack } from '../support/stack.js';
import { groupDoc, member, streamDoc } from '../support/store-fixtures.js';

describe.each(backends)('store > upgrade from layout 1 ($name)', (backend) => {
  let stack: Stack;
  afterEach(async () => {
    await stack?.close();
  });

  /** Writes a stream with group `g` the way the previous release stored it. */
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
    const [docKey, leases, , fast] = layout1GroupKeys(ns, p, g);
    await stack.redis.hset(
      docKey!,
      'rev',
      '3',
      'doc',
      text,
      'len',
      Buffer.byteLength(text),
      'until',
      String(now + 60_000),
    );
    await stack.redis.zadd(leases!, now + 3000, 'A');
    await stack.redis.hset(fast!, 'A', '3|1|k|{}');
    await stack.store.registerStream(p);
  }

  it('converts a layout-1 stream on the first heartbeat and keeps every member, epoch and shard', async () => {
    stack = makeStack(backend);
    const p = uniquePrefix('old');
    await writeLayout1(p, p);
    const hb = await heartbeat(stack, p, p, 'A', { epoch: 4, mv: 5, owned: [0, 1] });
    expect(hb.body).toMatchObject({ status: 'OK', memberEpoch: 4, groupEpoch: 4, metadataVersion: 5 });
    expect(idx(hb.body.assignment.assignedShards)).toEqual([0, 1]);

    const ns = stack.config.keyPrefix;
    const [docKey, , , fast] = layout1GroupKeys(ns, p, p);
    expect(await stack.redis.exists(docKey!)).toBe(0);
    // The layout-1 fingerprint is gone (the key name is shared: layout 2 writes its own there).
    expect(await stack.redis.hget(fast!, 'A')).not.toBe('3|1|k|{}');
    expect(await stack.redis.hget(streamKeys(ns, p).stream, 'layout')).toBe('2');
    expect(await stack.redis.hget(groupKeys(ns, p, p).header, 'ge')).toBe('4');

    const group = (await stack.call('GET', `/coord/v1/streams/${p}/groups/${p}`)).body;
    expect(group).toMatchObject({
      groupEpoch: 4,
      assignmentEpoch: 4,
      metadataVersion: 5,
      shardCount: 2,
      state: 'STABLE',
    });
    const members = (await stack.call('GET', `/coord/v1/monitoring/streams/${p}/groups/${p}/members`)).body
      .members;
    expect(members[0]).toMatchObject({ memberId: 'A', state: 'ACTIVE', memberEpoch: 4 });

    // A new member joins the upgraded group as usual.
    const b = await heartbeat(stack, p, p, 'B', { epoch: 0, mv: 0 });
    expect(b.body).toMatchObject({ status: 'OK', memberEpoch: 5, groupEpoch: 5 });
  });

  it('converts on the first read, and a stream the old release wrote is never half converted', async () => {
    stack = makeStack(backend);
    const p = uniquePrefix('oldread');
    await writeLayout1(p, p);
    const routing = await stack.call('GET', `/coord/v1/streams/${p}/groups/${p}/producer-routing`);
    expect(routing.status).toBe(200);
    expect(routing.body.shardCount).toBe(2);
    const ns = stack.config.keyPrefix;
    expect(await stack.redis.exists(layout1GroupKeys(ns, p, p)[0]!)).toBe(0);
    expect(await stack.redis.hget(streamKeys(ns, p).stream, 'rev')).toBe('4');
    const members = (await stack.call('GET', `/coord/v1/monitoring/streams/${p}/groups/${p}/members`)).body
      .members;
    expect(members[0]).toMatchObject({
      memberId: 'A',
      state: 'ACTIVE',
      memberEpoch: 4,
      currentAssignment: [{ shardIndex: 0 }, { shardIndex: 1 }],
    });
    expect(members[0].shardProgress[0]).toMatchObject({ lastAckedId: '7-0' });
    // The sweep sees an ordinary layout-2 stream afterwards.
    const report = await stack.coordinator.sweep(stack.clock.now());
    expect(report.streams).toBeGreaterThanOrEqual(1);
  });
});
