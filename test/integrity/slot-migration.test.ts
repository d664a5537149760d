/**
 * A Redis Cluster slot half migrated (what `redis-cli --cluster reshard` does one key at a time):
 * the group's slot is MIGRATING on its master and IMPORTING on another, and some of the group's
 * keys have moved. Every script declares every key it touches, so Redis answers ASK/TRYAGAIN
 * instead of running over half the state: the coordinator answers 503 REDIS_UNAVAILABLE
 * (retryable), never grants over half the state, and the group works again once the slot has
 * moved. On a Cluster of its own.
 */
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupKeyList, groupKeys } from '../../src/store/keys.js';
import { type Backend, uniquePrefix } from '../support/redis.js';
import { type ClusterRedis, startCluster } from '../support/redis-server.js';
import { heartbeat, idx, makeStack, type Stack } from '../support/stack.js';

interface Node {
  id: string;
  port: number;
  client: Redis;
  master: boolean;
  slots: Array<[number, number]>;
}

/** Whether `key` is on this node (a migrating slot answers ASK for a key it no longer has). */
async function existsOn(client: Redis, key: string): Promise<boolean> {
  try {
    return (await client.exists(key)) === 1;
  } catch (err) {
    if (err instanceof Error && err.message.startsWith('ASK')) return false;
    throw err;
  }
}

describe('Redis Cluster slot half migrated', () => {
  let cluster: ClusterRedis;
  let stack: Stack;
  let nodes: Node[] = [];
  beforeAll(async () => {
    cluster = await startCluster();
    const own: Backend = {
      name: 'cluster',
      make: () =>
        new Cluster(cluster.nodes, {
          redisOptions: { protocol: 2, maxRetriesPerRequest: 1 },
          retryDelayOnTryAgain: 20,
          maxRedirections: 4,
        }),
    };
    stack = makeStack(own, { config: { COORDINATOR_MEMBER_LEASE_TTL_MS: '5000' } });
    for (const n of cluster.nodes) {
      const client = new Redis(n.port, n.host, { protocol: 2 });
      const me = String(await client.cluster('NODES'))
        .split('\n')
        .find((l) => l.includes('myself'))!
        .split(' ');
      const slots = me.slice(8).map((r) => {
        const [a, b] = r.split('-').map(Number);
        return [a!, b ?? a!] as [number, number];
      });
      nodes.push({ id: me[0]!, port: n.port, client, master: me[2]!.includes('master'), slots });
    }
  }, 60_000);
  afterAll(async () => {
    for (const n of nodes) n.client.disconnect();
    nodes = [];
    await stack?.close();
    await cluster?.stop();
  });

  it('answers 503 while the slot moves, never two owners, and converges after it moved', async () => {
    const p = uniquePrefix('orders');
    expect(
      (await stack.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 4, requestedBy: 't' })).status,
    ).toBe(201);
    const told = new Map<string, { epoch: number; mv: number; owned: number[] }>();
    const statuses: number[] = [];
    const violations: string[] = [];
    const beat = async (id: string) => {
      const t = told.get(id) ?? { epoch: 0, mv: 0, owned: [] };
      const r = await heartbeat(stack, p, p, id, t);
      statuses.push(r.status);
      if (r.status === 200 && r.body.status === 'OK') {
        told.set(id, {
          epoch: r.body.memberEpoch,
          mv: r.body.metadataVersion,
          owned: idx(r.body.assignment.assignedShards),
        });
      } else if (r.status === 200) told.delete(id);
      else expect(r.body.errorCode, JSON.stringify(r.body)).toBe('REDIS_UNAVAILABLE');
      const holder = new Map<number, string>();
      for (const [m, x] of told) {
        for (const s of x.owned) {
          if (holder.has(s)) violations.push(`shard ${s}: ${holder.get(s)} and ${m}`);
          holder.set(s, m);
        }
      }
    };
    for (let i = 0; i < 6; i++) {
      for (const id of ['A', 'B']) await beat(id);
      stack.clock.advance(1000);
    }
    expect([...told.values()].flatMap((t) => t.owned).sort()).toEqual([0, 1, 2, 3]);

    // Half migrate the group's slot: everything but the holder-status and owners hashes moves.
    const keys = groupKeys(stack.config.keyPrefix, p, p);
    const streamHash = `${keys.header.slice(0, keys.header.lastIndexOf(':g:'))}:stream`;
    const slot = Number(await stack.redis.cluster('KEYSLOT', keys.header));
    const source = nodes.find((n) => n.master && n.slots.some(([a, b]) => slot >= a && slot <= b))!;
    const target = nodes.find((n) => n.master && n !== source)!;
    await target.client.cluster('SETSLOT', slot, 'IMPORTING', source.id);
    await source.client.cluster('SETSLOT', slot, 'MIGRATING', target.id);
    const migrate = (which: string[]) =>
      source.client.call('MIGRATE', '127.0.0.1', target.port, '', 0, 5000, 'KEYS', ...which);
    const first: string[] = [];
    for (const k of [streamHash, ...groupKeyList(keys)]) {
      if (k !== keys.status && k !== keys.owners && (await existsOn(source.client, k))) first.push(k);
    }
    await migrate(first);

    // A and B keep heartbeating past the recovery hold the other node's run id starts, then C
    // joins: nobody is answered over half the state, 503 while the slot moves.
    statuses.length = 0;
    for (let i = 0; i < 7; i++) {
      for (const id of ['A', 'B']) await beat(id);
      stack.clock.advance(1000);
    }
    for (let i = 0; i < 4; i++) {
      await beat('C');
      stack.clock.advance(500);
    }
    expect(violations).toEqual([]);
    expect(new Set(statuses), JSON.stringify([...told])).toEqual(new Set([503]));

    // The rest of the slot moves, and the slot is the target's.
    const rest: string[] = [];
    for (const k of [streamHash, ...groupKeyList(keys)]) {
      if (await existsOn(source.client, k)) rest.push(k);
    }
    const others = (await source.client.cluster('GETKEYSINSLOT', slot, 1000)) as string[];
    await migrate([...new Set([...rest, ...others])]);
    for (const n of nodes.filter((x) => x.master)) await n.client.cluster('SETSLOT', slot, 'NODE', target.id);

    statuses.length = 0;
    for (let i = 0; i < 8; i++) {
      for (const id of ['A', 'B', 'C']) await beat(id);
      stack.clock.advance(1000);
    }
    expect(violations).toEqual([]);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect([...told.values()].flatMap((t) => t.owned).sort()).toEqual([0, 1, 2, 3]);
  }, 60_000);
});
