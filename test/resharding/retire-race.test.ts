/**
 * A late XADD racing the retirement of a removed shard is never lost (docs/protocol.md#invariants): it either
 * lands before the atomic re-check (which then fails, the shard drains again and the entry is
 * consumed) or it is refused by NOMKSTREAM after the delete. Standalone and 6-node Cluster.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { backends } from '../support/redis.js';
import { makeStack, type Stack } from '../support/stack.js';
import {
  createStream,
  exists,
  migration,
  migrations,
  readAndAck,
  readingMembers,
  round,
  scale,
} from './support.js';

describe.each(backends)('resharding > late writes racing retirement ($name)', (backend) => {
  let stack: Stack;
  afterEach(async () => {
    await stack?.close();
  });

  it('a write that lands between the drain evidence and the deletion sends the shard back to DRAINING; it is consumed, then retired', async () => {
    stack = makeStack(backend);
    const p = await createStream(stack, 2);
    const id = (await scale(stack, p, 1)).body.migrations[0].reshardingId;
    const [a] = readingMembers(p, p, 1);
    // A drains the empty shard 1 and gives it up once drained; nobody holds it → RETIRING.
    const state = async () => (await migrations(stack, p)).removedShards[0].state;
    for (let r = 0; r < 8 && (await state()) !== 'RETIRING'; r++) await round(stack, [a!]);
    expect(await state()).toBe('RETIRING');
    expect(a!.owned).toEqual([0]);
    const late = await stack.redis.xadd(`${p}:1`, 'NOMKSTREAM', '*', 'payload', 'late');
    expect(late).not.toBeNull();

    stack.clock.advance(stack.config.heartbeatIntervalMs);
    await a!.step(stack);
    const [shard] = (await migrations(stack, p)).removedShards;
    expect(shard.state).toBe('DRAINING');
    expect(shard.reason).toContain('re-check before deletion failed');
    expect(shard.lastEvidence).toMatchObject({ drained: false, streamLength: 1 });

    for (let r = 0; r < 12 && (await migration(stack, p, id)).state !== 'DEPRECATED'; r++)
      await round(stack, [a!]);
    expect((await migration(stack, p, id)).state).toBe('DEPRECATED');
    expect(a!.read).toContain(late);
    expect(await exists(stack.redis, `${p}:1`)).toBe(false);
  });

  it('never lets a racing XADD land in a deleted key (50 races against the sweep)', async () => {
    stack = makeStack(backend);
    const outcomes = { refused: 0, landed: 0 };
    for (let i = 0; i < 50; i++) {
      const p = await createStream(stack, 2);
      const id = (await scale(stack, p, 1)).body.migrations[0].reshardingId;
      const key = `${p}:1`;
      // One sweep of this stream: evidence (empty → drained → RETIRING), then the retire script.
      const [, added] = await Promise.all([
        stack.coordinator.sweep(stack.clock.now()),
        sleep(i % 9).then(() => stack.redis.xadd(key, 'NOMKSTREAM', '*', 'payload', `race-${i}`)),
      ]);
      if (added === null) {
        outcomes.refused++;
        expect(await exists(stack.redis, key)).toBe(false);
      } else {
        outcomes.landed++;
      }
      // Finish: a plain reader drains whatever exists; the sweep retires once it is drained.
      const read: string[] = [];
      for (let r = 0; r < 6 && (await migration(stack, p, id)).state !== 'DEPRECATED'; r++) {
        if (await exists(stack.redis, key)) read.push(...(await readAndAck(stack.redis, key, p, 'reader')));
        stack.clock.advance(stack.config.heartbeatIntervalMs);
        await stack.coordinator.sweep(stack.clock.now());
      }
      expect((await migration(stack, p, id)).state).toBe('DEPRECATED');
      if (added !== null) expect(read).toContain(added);
      expect(await stack.redis.xadd(key, 'NOMKSTREAM', '*', 'payload', 'after')).toBeNull();
    }
    expect(outcomes.refused + outcomes.landed).toBe(50);
  });

  it('the retire script alone: a concurrent XADD is either refused or makes the re-check fail', async () => {
    stack = makeStack(backend);
    const p = await createStream(stack, 1);
    for (let i = 0; i < 50; i++) {
      const key = `${p}:r${i}`;
      await stack.redis.xgroup('CREATE', key, p, '$', 'MKSTREAM');
      const [outcome, added] = await Promise.all([
        stack.store.retireShard(key, [p]),
        sleep(i % 3).then(() => stack.redis.xadd(key, 'NOMKSTREAM', '*', 'f', 'v')),
      ]);
      if (outcome.kind === 'deleted') {
        // Deleted first: the write must have been refused, and nothing exists.
        expect(added).toBeNull();
        expect(await exists(stack.redis, key)).toBe(false);
      } else {
        expect(outcome.kind).toBe('refused');
        expect(added).not.toBeNull();
        expect(await stack.redis.xlen(key)).toBe(1);
        await stack.redis.del(key);
      }
    }
  });
});
