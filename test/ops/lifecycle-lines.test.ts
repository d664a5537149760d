/**
 * Lifecycle lines over a real Redis (docs/operating.md#logs): a member joining, leaving and
 * expiring, and a migration moving through its states, each get their own `info` line once the
 * change is committed — heartbeats that change nothing write none.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { Coordinator } from '../../src/coordinator.js';
import type { HeartbeatInput } from '../../src/core/heartbeat-types.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import { manualClock } from '../support/stack.js';

const client = standaloneClient();
afterAll(async () => {
  await client.quit();
});

interface Line {
  level: string;
  msg: string;
  fields?: Record<string, unknown>;
}

function setup() {
  const lines: Line[] = [];
  const clock = manualClock();
  const coordinator = new Coordinator({
    store: new IoredisStore(client, { namespace: uniquePrefix('ns') }),
    config: parseConfig({
      COORDINATOR_HEARTBEAT_INTERVAL_MS: '500',
      COORDINATOR_MEMBER_LEASE_TTL_MS: '3000',
    }),
    now: clock.now,
    log: (level, msg, fields) => lines.push({ level, msg, ...(fields ? { fields } : {}) }),
  });
  const lifecycle = () =>
    lines.filter((l) => l.msg.startsWith('member ') || l.msg === 'migration state changed');
  return { coordinator, clock, lifecycle };
}

function input(memberId: string, memberEpoch: number, metadataVersion: number): HeartbeatInput {
  return {
    protocolVersion: 1,
    requestId: 'r',
    memberId,
    pathMemberId: memberId,
    memberName: memberId,
    memberEpoch,
    metadataVersion,
    runtimeMaxConcurrency: 1,
    availableConcurrency: 1,
    ownedShards: [],
    revokingShards: [],
    shardProgress: [],
  };
}

const meta = { requestedBy: 'ops-test', reason: null };

describe('operating > lifecycle lines', () => {
  it('writes a line when a member joins, leaves and expires, and none for heartbeats that change nothing', async () => {
    const { coordinator, clock, lifecycle } = setup();
    const p = uniquePrefix('life');
    await coordinator.createStream(p, { initialShardCount: 2, consumerGroup: null, ...meta });
    const a = await coordinator.heartbeat(p, p, input('A', 0, 0));
    const b = await coordinator.heartbeat(p, p, input('B', 0, 0));
    expect(lifecycle()).toEqual([
      {
        level: 'info',
        msg: 'member joined',
        fields: { streamPrefix: p, consumerGroup: p, memberId: 'A', from: null, to: expect.any(String) },
      },
      {
        level: 'info',
        msg: 'member joined',
        fields: { streamPrefix: p, consumerGroup: p, memberId: 'B', from: null, to: expect.any(String) },
      },
    ]);
    // A steady heartbeat writes no line.
    clock.advance(100);
    await coordinator.heartbeat(p, p, input('A', a.memberEpoch, a.metadataVersion));
    expect(lifecycle()).toHaveLength(2);

    await coordinator.heartbeat(p, p, input('A', -1, a.metadataVersion));
    expect(lifecycle()[2]).toMatchObject({ msg: 'member leaving', fields: { memberId: 'A', to: 'LEAVING' } });

    // B falls silent: the sweep after its lease expires it.
    expect(b.status).toBe('OK');
    clock.advance(10_000);
    await coordinator.sweep(clock.now());
    const expired = lifecycle().filter((l) => l.msg === 'member expired');
    expect(expired).toMatchObject([{ level: 'info', fields: { memberId: 'B', to: 'EXPIRED' } }]);
  });

  it('writes a line for each state a migration passes through', async () => {
    const { coordinator, clock, lifecycle } = setup();
    const p = uniquePrefix('life');
    await coordinator.createStream(p, { initialShardCount: 2, consumerGroup: null, ...meta });
    const scaled = await coordinator.scaleStream(p, {
      targetShardCount: 4,
      reason: 'more',
      deprecatedAfter: null,
      requestedBy: 'ops-test',
    });
    const id = scaled.migration.reshardingId;
    // With no member the sweep drives the migration to its end.
    for (let i = 0; i < 10; i++) {
      clock.advance(5_000);
      await coordinator.sweep(clock.now());
    }
    const states = lifecycle()
      .filter((l) => l.msg === 'migration state changed' && l.fields?.reshardingId === id)
      .map((l) => `${l.fields?.from}->${l.fields?.to}`);
    // A scale-out is ACTIVE from the request (its audit line says so) until it completes.
    expect(states).toEqual(['ACTIVE->DEPRECATED']);
  });
});
