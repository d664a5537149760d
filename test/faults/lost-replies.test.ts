/**
 * Lost and cut replies on the coordinator → Redis path during admin calls: each call answers success or a retryable 503, and the state it leaves is right. Pending:
 * it depends on the in-doubt-commit fix in progress.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniquePrefix } from '../support/redis.js';
import { call, migrationState, must, scale, waitUntil } from './support/http.js';
import { printTable } from './support/invariants.js';
import {
  type FaultedCall,
  groupProblems,
  type LostReplyRig,
  shardGroupsProblems,
  startRig,
  summarise,
  sweepK,
} from './support/lost-replies.js';

const MAX_K = 14;
let rig: LostReplyRig;

beforeAll(async () => {
  rig = await startRig();
}, 60_000);
afterAll(async () => {
  await rig?.close();
});

function report(name: string, calls: FaultedCall[]): void {
  const hit = calls.filter((c) => c.hit);
  printTable(`lost replies: ${name}`, {
    'faulted calls': hit.length,
    '2xx first': hit.filter((c) => c.first.status >= 200 && c.first.status < 300).length,
    '503 first': hit.filter((c) => c.first.status === 503).length,
    'wrong answers or state': hit.filter((c) => c.problems.length > 0).length,
  });
  console.log(summarise(name, calls));
}

function expectClean(calls: FaultedCall[], name: string): void {
  expect(calls.some((c) => c.hit)).toBe(true);
  const bad = calls.filter((c) => c.problems.length > 0);
  expect(bad, summarise(name, bad)).toEqual([]);
}

const createStream = (p: string, shards = 4) =>
  must(rig.b.url, 'POST', `/streams/${p}`, { initialShardCount: shards, requestedBy: 'faults' }, 201);

describe('faults > lost replies between coordinator and Redis (pending the in-doubt fix)', () => {
  it('create stream answers 201 or a retryable 503 and leaves the shard streams with their consumer group', async () => {
    const calls = await sweepK(rig, MAX_K, async (k, kind) => {
      const p = uniquePrefix('lc');
      return {
        k,
        kind,
        match: new RegExp(p),
        op: () => call(rig.a.url, 'POST', `/streams/${p}`, { initialShardCount: 4, requestedBy: 'faults' }),
        appliedCodes: ['STREAM_PREFIX_ALREADY_EXISTS'],
        verify: async () => [
          ...(await groupProblems(rig.a.url, p, p, 4)),
          ...(await shardGroupsProblems(rig.direct, p, 4, p)),
        ],
      };
    });
    report('create stream', calls);
    expectClean(calls, 'create stream');
  }, 60_000);

  it('add group answers 201 or a retryable 503 and leaves the group on every shard', async () => {
    const p = uniquePrefix('lg');
    await createStream(p);
    const calls = await sweepK(rig, MAX_K, async (k, kind) => {
      const g = uniquePrefix('g');
      return {
        k,
        kind,
        match: new RegExp(p),
        op: () => call(rig.a.url, 'POST', `/streams/${p}/groups/${g}`, { requestedBy: 'faults' }),
        appliedCodes: ['GROUP_ALREADY_EXISTS'],
        verify: async () => [
          ...(await groupProblems(rig.a.url, p, g, 4)),
          ...(await shardGroupsProblems(rig.direct, p, 4, g)),
        ],
      };
    });
    report('add group', calls);
    expectClean(calls, 'add group');
  }, 60_000);

  it('delete group answers 200 or a retryable 503 and leaves the group gone', async () => {
    const p = uniquePrefix('ld');
    await createStream(p);
    const calls = await sweepK(rig, MAX_K, async (k, kind) => {
      const g = uniquePrefix('g');
      await must(rig.b.url, 'POST', `/streams/${p}/groups/${g}`, { requestedBy: 'faults' }, 201);
      return {
        k,
        kind,
        match: new RegExp(p),
        op: () =>
          call(rig.a.url, 'DELETE', `/streams/${p}/groups/${g}`, {
            requestedBy: 'faults',
            reason: 'fault test',
          }),
        appliedCodes: ['GROUP_NOT_FOUND'],
        verify: async () => {
          const r = await call(rig.a.url, 'GET', `/streams/${p}/groups/${g}`);
          const other = await groupProblems(rig.a.url, p, p, 4);
          return [...(r.status === 404 ? [] : [`deleted group still answers ${r.status}`]), ...other];
        },
      };
    });
    report('delete group', calls);
    expectClean(calls, 'delete group');
  }, 60_000);

  it('scale answers 202 or a retryable 503, and its migration completes with the new shards provisioned', async () => {
    const calls = await sweepK(rig, MAX_K, async (k, kind) => {
      const p = uniquePrefix('ls');
      await createStream(p, 2);
      return {
        k,
        kind,
        match: new RegExp(p),
        op: () => scale(rig.a.url, p, 3),
        appliedCodes: ['ACTIVE_MIGRATION_EXISTS'],
        verify: async () => {
          const done = await waitUntil(
            'shardCount 3 and no active migration',
            async () => {
              const g = await must(rig.b.url, 'GET', `/streams/${p}/groups/${p}`);
              if (g.shardCount !== 3) return false;
              if (g.activeMigration === null) return true;
              return (await migrationState(rig.b.url, p, g.activeMigration.reshardingId)) === 'DEPRECATED';
            },
            8000,
            100,
          ).then(
            () => [],
            (e: Error) => [e.message],
          );
          return [...done, ...(await shardGroupsProblems(rig.direct, p, 3, p))];
        },
      };
    });
    report('scale', calls);
    expectClean(calls, 'scale');
  }, 60_000);
});
