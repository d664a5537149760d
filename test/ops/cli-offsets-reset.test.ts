/**
 * `offsets reset <prefix> <group> --to … [--shards …] [--execute]`, run as a real child process
 * against a real coordinator over the private Redis: usage errors exit 1 before anything is sent,
 * a dry run prints a before/after table and changes nothing, `--execute` moves the listed shards,
 * refusals exit 2 (live member, unknown group) or 4 (READ role), and `offsets <p> <g>` is still the
 * offsets view.
 */
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { type RunningServer, startServer } from '../../node/server.js';
import { parseConfig } from '../../src/config.js';
import { shardKey } from '../../src/store/keys.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import { heartbeatBody } from '../support/stack.js';
import { runCli } from './cli-process.js';

// Every CLI run is a fresh Node process loading TypeScript through tsx.
vi.setConfig({ testTimeout: 120_000 });

const ADMIN = { RSC_USER: 'admin', RSC_PASSWORD: 'cli-reset-admin-secret' };
const READER = { RSC_USER: 'reader', RSC_PASSWORD: 'cli-reset-reader-secret' };
/** Record k (1-based) of every shard is written at `T0 + k * 1000` ms. */
const T0 = Date.parse('2026-05-24T08:00:00Z');
const rec = (k: number) => `${T0 + k * 1000}-0`;
const redis = standaloneClient();
let server: RunningServer;
let url: string;

beforeAll(async () => {
  server = await startServer({
    config: parseConfig({
      PORT: '0',
      REDIS_URL: inject('redisUrl'),
      COORDINATOR_KEY_PREFIX: uniquePrefix('cli-reset'),
      COORDINATOR_ADMIN_PASSWORD: ADMIN.RSC_PASSWORD,
      COORDINATOR_USERS: `reader:${READER.RSC_PASSWORD}:READ`,
    }),
    log: () => {},
  });
  url = server.url;
});
afterAll(async () => {
  await server?.close();
  await redis.quit();
});

function cli(args: string[], who: Record<string, string> = ADMIN) {
  return runCli(args, { RSC_URL: url, ...who });
}

const authorization = `Basic ${Buffer.from(`${ADMIN.RSC_USER}:${ADMIN.RSC_PASSWORD}`).toString('base64')}`;

async function api(method: string, path: string, body: unknown) {
  const res = await fetch(`${url}/coord/v1${path}`, {
    method,
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** A 2-shard stream with records 1…4 on each shard, its group at the start. */
async function arrange(): Promise<string> {
  const p = uniquePrefix('s');
  expect((await api('POST', `/streams/${p}`, { initialShardCount: 2, requestedBy: 'test' })).status).toBe(
    201,
  );
  for (const i of [0, 1])
    for (let k = 1; k <= 4; k++) await redis.xadd(shardKey(p, i), rec(k), 'k', String(k));
  return p;
}

/** `last-delivered-id` of the stream's group on shards 0 and 1. */
async function positions(p: string): Promise<unknown[]> {
  return Promise.all(
    [0, 1].map(async (i) => {
      const [info] = (await redis.xinfo('GROUPS', shardKey(p, i))) as unknown[][];
      return info![info!.indexOf('last-delivered-id') + 1];
    }),
  );
}

describe('cli > offsets reset usage', () => {
  it('refuses a missing or bad --to, bad --shards and foreign options with exit 1; help lists it', async () => {
    const [noTo, badTo, badTime, badShards, foreign, noGroup, help] = await Promise.all([
      cli(['offsets', 'reset', 'p', 'g']),
      cli(['offsets', 'reset', 'p', 'g', '--to', 'yesterday']),
      cli(['offsets', 'reset', 'p', 'g', '--to', '2026-13-45T99:00:00Z']),
      cli(['offsets', 'reset', 'p', 'g', '--to', 'earliest', '--shards', '0,x']),
      cli(['offsets', 'reset', 'p', 'g', '--to', 'earliest', '--force']),
      cli(['offsets', 'reset', 'p', '--to', 'earliest']),
      cli(['help', 'offsets']),
    ]);
    for (const r of [noTo, badTo, badTime, badShards, foreign, noGroup]) {
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/^error: /);
    }
    expect(noTo.stderr).toContain('needs --to');
    expect(badTo.stderr).toContain("got 'yesterday'");
    expect(badShards.stderr).toContain('--shards');
    expect(foreign.stderr).toContain("--force does not apply to 'offsets reset'");
    expect(noGroup.stderr).toContain('missing <group>');
    expect(help.stdout).toContain('offsets reset <prefix> <group> --to earliest|latest|<time>|<id>');
  });
});

describe('cli > offsets reset against a coordinator', () => {
  it('prints a dry run as a before/after table and changes nothing; --execute moves the listed shards', async () => {
    const p = await arrange();
    const dry = await cli(['offsets', 'reset', p, p, '--to', 'latest']);
    expect(dry.code, dry.stderr).toBe(0);
    const lines = dry.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`Dry run (nothing changed): group ${p} of stream ${p} to latest.`);
    expect(lines[1]).toMatch(/^SHARD\s+KEY\s+BEFORE\s+AFTER\s+SKIPPED\s+REPLAYED\s+LAG AFTER\s+PENDING$/);
    expect(lines[2]!.split(/\s+/)).toEqual(['0', shardKey(p, 0), '0-0', rec(4), '4', '0', '0', '0']);
    expect(lines[4]).toBe('total: 8 skipped, 0 replayed');
    expect(lines.at(-1)).toContain('--execute');
    expect(await positions(p)).toEqual(['0-0', '0-0']);

    // Just before the record written at T0 + 3 s, on shard 1 only.
    const time = new Date(T0 + 3000).toISOString();
    const done = await cli(['offsets', 'reset', p, p, '--to', time, '--shards', '1', '--execute']);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain(
      `Reset group ${p} of stream ${p} to ${time} (${T0 + 3000} ms): 1 of 1 shard(s) moved.`,
    );
    expect(done.stdout).not.toContain('--execute');
    expect(await positions(p)).toEqual(['0-0', rec(2)]);

    const json = await cli(['offsets', 'reset', p, p, '--to', rec(3), '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      to: 'id',
      id: rec(3),
      dryRun: true,
      totalSkippedRecords: 4,
      shards: [
        { lastDeliveredIdAfter: rec(3), skippedRecords: 3 },
        { lastDeliveredIdBefore: rec(2), skippedRecords: 1 },
      ],
    });

    const view = await cli(['offsets', p, p]);
    expect(view.code, view.stderr).toBe(0);
    expect(view.stdout).toMatch(/^SHARD\s+KEY\s+LENGTH/);
  });

  it('exits 2 while a member holds a lease or for an unknown group, and 4 for a READ role; nothing moves', async () => {
    const p = await arrange();
    const hb = await api(
      'POST',
      `/streams/${p}/groups/${p}/members/m1/heartbeat`,
      heartbeatBody('m1', p, { epoch: 0, mv: 0 }),
    );
    expect(hb.status).toBe(200);
    const [live, unknown, reader] = await Promise.all([
      cli(['offsets', 'reset', p, p, '--to', 'latest', '--execute']),
      cli(['offsets', 'reset', p, 'nope', '--to', 'latest', '--execute']),
      cli(['offsets', 'reset', p, p, '--to', 'latest', '--execute'], READER),
    ]);
    expect(live.code).toBe(2);
    expect(live.stderr).toMatch(/^error: HTTP 409 GROUP_HAS_ACTIVE_MEMBERS: .*m1/);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/HTTP 404 GROUP_NOT_FOUND: /);
    expect(reader.code).toBe(4);
    expect(reader.stderr).toContain('HTTP 403');
    expect(await positions(p)).toEqual(['0-0', '0-0']);
  });
});
