/**
 * Defects found in the group repair use-case (src/coordinator/repair.ts), each shown over the
 * production path (HTTP → coordinator → real Redis). These fail on the current code.
 */
import { describe, expect, it } from 'vitest';
import { groupKeys } from '../../src/store/keys.js';
import { SimMember } from '../support/members.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { type Stack, stacksPerTest } from '../support/stack.js';

const meta = { requestedBy: 'repair-test', reason: 'keys deleted by hand' };
const STEP = 500;

describe('group repair defects', () => {
  const stackOf = stacksPerTest(backends[0]!);

  async function settled(stack: Stack) {
    const p = uniquePrefix('repair-defect');
    expect(
      (await stack.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 4, ...meta })).status,
    ).toBe(201);
    const members = [new SimMember('A', p, p), new SimMember('B', p, p)];
    for (let round = 0; round < 8; round++) {
      for (const m of members) expect((await m.beat(stack)).status).toBe(200);
      stack.clock.advance(STEP);
    }
    for (const m of members) expect(m.owned.length, m.id).toBe(2);
    return { p, members, keys: groupKeys(stack.config.keyPrefix, p, p) };
  }

  const repair = (stack: Stack, p: string, mode: string) =>
    stack.call('POST', `/coord/v1/streams/${p}/groups/${p}/repair`, { ...meta, mode });

  it('refuses to rebuild a group whose member records are lost, so a joiner never gets a shard a live member still reads', async () => {
    const stack = stackOf();
    const { p, members, keys } = await settled(stack);
    await stack.redis.del(keys.members);
    const rebuild = await repair(stack, p, 'rebuild');
    // Today: 200, a group with no members, no recovery hold.
    expect(rebuild.status, JSON.stringify(rebuild.body)).toBe(500);
    expect(rebuild.body.errorCode).toBe('METADATA_CORRUPT');
    expect(rebuild.body.message).toContain('reset');
    // What that allows: A and B are within their leases and have not heard anything yet.
    const c = new SimMember('C', p, p);
    for (let i = 0; i < 4; i++) {
      await c.beat(stack);
      stack.clock.advance(50);
    }
    const stillRead = members.flatMap((m) => m.owned);
    expect(c.owned.filter((s) => stillRead.includes(s))).toEqual([]);
  });

  it('says to use reset when a rebuild is refused (the header is lost)', async () => {
    const stack = stackOf();
    const { p, keys } = await settled(stack);
    await stack.redis.del(keys.header);
    const rebuild = await repair(stack, p, 'rebuild');
    expect(rebuild.status).toBe(500);
    expect(rebuild.body.errorCode).toBe('METADATA_CORRUPT');
    expect(rebuild.body.message).toContain('reset');
  });

  it('keeps every member on its shards when a rebuild restores only the lost owners index', async () => {
    const stack = stackOf();
    const { p, members, keys } = await settled(stack);
    const held = members.map((m) => [...m.owned].sort());
    await stack.redis.del(keys.owners);
    expect((await repair(stack, p, 'rebuild')).status).toBe(200);
    for (let round = 0; round < 4; round++) {
      for (const m of members) expect((await m.beat(stack)).status).toBe(200);
      stack.clock.advance(STEP);
    }
    // Today the targets are wiped whatever was lost, and the new round (sticky to targets only)
    // moves half the shards: A [0,1] → [0,2], B [2,3] → [1,3].
    expect(members.map((m) => [...m.owned].sort())).toEqual(held);
  });
});
