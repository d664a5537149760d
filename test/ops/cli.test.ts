/**
 * The CLI end to end: the real launcher as a child process against a real coordinator
 * (`startServer` on a free port over the private Redis), checking output and exit codes.
 */
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { freeLoopbackPort } from '../../node/net.js';
import { type RunningServer, startServer } from '../../node/server.js';
import { parseConfig } from '../../src/config.js';
import { streamKeys } from '../../src/store/keys.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import { heartbeatBody } from '../support/stack.js';
import { freshHome, runCli, startCli } from './cli-process.js';

// Every CLI run is a fresh Node process loading TypeScript through tsx (about a second each on
// an idle machine); several run per test, so allow for a busy machine.
vi.setConfig({ testTimeout: 120_000 });

const ADMIN = { RSC_USER: 'admin', RSC_PASSWORD: 'cli-admin-secret' };
const READER = { RSC_USER: 'reader', RSC_PASSWORD: 'cli-reader-secret' };
const namespace = uniquePrefix('cli');
const redis = standaloneClient();
let server: RunningServer;
let url: string;

beforeAll(async () => {
  server = await startServer({
    config: parseConfig({
      PORT: '0',
      REDIS_URL: inject('redisUrl'),
      COORDINATOR_KEY_PREFIX: namespace,
      COORDINATOR_ADMIN_PASSWORD: ADMIN.RSC_PASSWORD,
      COORDINATOR_USERS: `reader:${READER.RSC_PASSWORD}:READ`,
      COORDINATOR_LOCK_WAIT_MS: '200',
      // A member that heartbeats once must stay live while several CLI processes run on a busy machine.
      COORDINATOR_MEMBER_LEASE_TTL_MS: '600000',
    }),
    log: () => {},
  });
  url = server.url;
});
afterAll(async () => {
  await server?.close();
  await redis.quit();
});

/** The CLI pointed at the test coordinator as admin (or as `who`). */
function cli(args: string[], who: Record<string, string> = ADMIN, home?: string) {
  return runCli(args, { RSC_URL: url, ...who }, home);
}

async function createStream(shards = 4): Promise<string> {
  const p = uniquePrefix('s');
  const res = await cli(['streams', 'create', p, '--shards', String(shards), '--reason', 'test']);
  expect(res.code, res.stderr).toBe(0);
  return p;
}

describe('cli > usage', () => {
  it('prints help with the exit codes (0) and refuses bad command lines with exit 1', async () => {
    const [help, none, unknown, inherited, missing, badNumber, noReason, badOption, wrongOption] =
      await Promise.all([
        cli(['--help']),
        cli([]),
        cli(['frobnicate']),
        cli(['toString']),
        cli(['streams', 'create']),
        cli(['scale', 'p', 'lots', '--reason', 'x']),
        cli(['groups', 'delete', 'p', 'g']),
        cli(['members', 'p', 'g', '--frobnicate']),
        cli(['members', 'p', 'g', '--shards', '3']),
      ]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Exit codes:[\s\S]*4 {2}authentication failed/);
    for (const cmd of [
      'serve',
      'streams create',
      'groups get',
      'scale',
      'migrations rollback',
      'watch',
      'login',
    ]) {
      expect(help.stdout).toContain(cmd);
    }
    for (const r of [none, unknown, inherited, missing, badNumber, noReason, badOption, wrongOption]) {
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/^error: /);
    }
    expect(missing.stderr).toContain('missing <prefix>');
    expect(noReason.stderr).toContain('--reason');
    expect(wrongOption.stderr).toContain("--shards does not apply to 'members'");
  });
});

describe('cli > commands against a coordinator', () => {
  it('creates a stream and shows it: JSON is the raw API answer, tables by default', async () => {
    const p = uniquePrefix('s');
    const created = await cli(['streams', 'create', p, '--shards', '3', '--group', 'billing', '--json']);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({
      streamPrefix: p,
      consumerGroup: 'billing',
      shardCount: 3,
    });

    const [json, human] = await Promise.all([
      cli(['groups', 'get', p, 'billing', '--json']),
      cli(['groups', 'get', p, 'billing']),
    ]);
    const api = await fetch(`${url}/coord/v1/streams/${p}/groups/billing`, {
      headers: { authorization: `Basic ${Buffer.from('admin:cli-admin-secret').toString('base64')}` },
    });
    expect(JSON.parse(json.stdout)).toEqual(await api.json());
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/stream:\s+\S+/);
    expect(human.stdout).toMatch(/shards:\s+3 \(consumable 0-2\)/);
    expect(human.stdout).toContain('No live members.');
  });

  it('shows members, assignments and offsets of a group with a member', async () => {
    const p = await createStream(4);
    const hb = await fetch(`${url}/coord/v1/streams/${p}/groups/${p}/members/m1/heartbeat`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from('admin:cli-admin-secret').toString('base64')}`,
      },
      body: JSON.stringify(heartbeatBody('m1', p, { epoch: 0, mv: 0 })),
    });
    expect(hb.status).toBe(200);
    await redis.xadd(`${p}:1`, '*', 'payload', 'x');
    const [members, assignments, offsets, offsetsJson] = await Promise.all([
      cli(['members', p, p]),
      cli(['assignments', p, p]),
      cli(['offsets', p, p]),
      cli(['offsets', p, p, '--json']),
    ]);
    expect(members.code, members.stderr).toBe(0);
    expect(members.stdout).toMatch(/^MEMBER\s+STATE\s+EPOCH/m);
    expect(members.stdout).toMatch(/^m1\s+(ACTIVE|STARTING)\s+\d+/m);
    expect(assignments.stdout).toMatch(/^m1\s+0-3\s/m);
    expect(assignments.stdout).toContain('Invariants: ok');
    expect(offsets.stdout).toContain(`${p}:1`);
    expect(offsets.stdout).toMatch(/total: length 1,/);
    expect(JSON.parse(offsetsJson.stdout).totalStreamLength).toBe(1);
    // -o yaml and -o json print the same answer as --json; an unknown format is a usage error.
    const [yaml, oJson, bad] = await Promise.all([
      cli(['offsets', p, p, '-o', 'yaml']),
      cli(['offsets', p, p, '--output=json']),
      cli(['offsets', p, p, '-o', 'xml']),
    ]);
    expect(yaml.code, yaml.stderr).toBe(0);
    expect(yaml.stdout).toMatch(/^totalStreamLength: 1$/m);
    expect(JSON.parse(oJson.stdout).totalStreamLength).toBe(1);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("-o/--output must be one of table, wide, json, yaml, got 'xml'");
    // A heartbeat just now reads as "just now", never "in 0s".
    expect(members.stdout).not.toMatch(/in 0s/);
    // A refusal names the CLI's flag, not the API's query parameter.
    const refused = await cli(['groups', 'delete', p, p, '--reason', 'cleanup']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/HTTP 409 \w+: .*pass --force/);
    expect(refused.stderr).not.toContain('force=true');
  });

  it('scales a stream and reads its migration back', async () => {
    const p = await createStream(2);
    const scaled = await cli(['scale', p, '4', '--reason', 'grow', '--json']);
    expect(scaled.code, scaled.stderr).toBe(0);
    const body = JSON.parse(scaled.stdout);
    expect(body).toMatchObject({ streamPrefix: p, targetShardCount: 4, affectedConsumerGroups: [p] });
    const id = body.migrations[0].reshardingId as string;
    const [got, human] = await Promise.all([
      cli(['migrations', 'get', p, p, id, '--json']),
      cli(['migrations', 'get', p, p, id]),
    ]);
    expect(JSON.parse(got.stdout)).toMatchObject({ reshardingId: id, fromShardCount: 2, toShardCount: 4 });
    expect(human.stdout).toMatch(/shards:\s+2 → 4/);
    const unknown = await cli(['migrations', 'get', p, p, 'reshard-nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('MIGRATION_NOT_FOUND');
  });

  it('watches a group for the requested number of frames, as text or one JSON line per frame', async () => {
    const p = await createStream(2);
    const [text, json, missing] = await Promise.all([
      cli(['watch', p, p, '--iterations', '2', '--interval', '100']),
      cli(['watch', p, p, '--iterations', '2', '--interval', '100', '--json']),
      cli(['watch', p, 'nope', '--iterations', '2', '--interval', '100']),
    ]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout.match(/^watch \S+ \/ \S+ — /gm)).toHaveLength(2);
    expect(text.stdout).toContain('Members:');
    expect(text.stdout).toMatch(/^SHARD\s+TARGET\s+CURRENT/m);
    const frames = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(frames).toHaveLength(2);
    expect(frames[0].group.streamPrefix).toBe(p);
    expect(frames[0].migrations).toMatchObject({ activeReshardingId: null });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('GROUP_NOT_FOUND');
  });
});

describe('cli > exit codes scripts rely on', () => {
  it('exits 2 with errorCode and message when the API refuses (4xx)', async () => {
    const p = await createStream(2);
    const [again, unknown] = await Promise.all([
      cli(['streams', 'create', p, '--reason', 'again']),
      cli(['groups', 'get', p, 'nope']),
    ]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/^error: HTTP 409 STREAM_PREFIX_ALREADY_EXISTS: /);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/HTTP 404 GROUP_NOT_FOUND: /);
  });

  it('exits 4 on 401 and 403', async () => {
    const p = await createStream(2);
    const [wrong, none, reader, readerReads] = await Promise.all([
      cli(['groups', 'get', p, p], { RSC_USER: 'admin', RSC_PASSWORD: 'wrong' }),
      cli(['groups', 'get', p, p], {}),
      cli(['streams', 'create', uniquePrefix('r'), '--reason', 'x'], READER),
      cli(['groups', 'get', p, p], READER),
    ]);
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toContain('HTTP 401');
    expect(none.code).toBe(4);
    expect(none.stderr).toContain('login');
    expect(reader.code).toBe(4);
    expect(reader.stderr).toContain('HTTP 403');
    expect(readerReads.code).toBe(0);
  });

  it('exits 3 when the coordinator cannot be reached or fails (5xx)', async () => {
    const p = await createStream(2);
    const deadUrl = `http://127.0.0.1:${await freeLoopbackPort()}`;
    // Someone else holds the stream's mutex: the delete waits 200 ms, then answers 503.
    await redis.set(streamKeys(namespace, p).lock, 'someone-else', 'PX', 30_000);
    const [unreachable, busy] = await Promise.all([
      runCli(['groups', 'get', p, p], { RSC_URL: deadUrl, ...ADMIN }),
      cli(['groups', 'delete', p, p, '--reason', 'cleanup', '--force']),
    ]);
    await redis.del(streamKeys(namespace, p).lock);
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toContain(`cannot reach ${deadUrl}`);
    expect(busy.code).toBe(3);
    expect(busy.stderr).toMatch(/HTTP 503 COORDINATOR_STATE_MUTEX_UNAVAILABLE/);
  });
});

describe('cli > login', () => {
  it('stores a token readable by the owner only, and later commands use it', async () => {
    const p = await createStream(2);
    const home = freshHome();
    const login = await runCli(
      ['login', '--user', 'admin', '--password', ADMIN.RSC_PASSWORD],
      { RSC_URL: url },
      home,
    );
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain('Logged in as admin');
    const file = join(home, '.config', 'redis-stream-coordinator', 'tokens.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
    const withToken = await runCli(['groups', 'get', p, p], { RSC_URL: url }, home);
    expect(withToken.code, withToken.stderr).toBe(0);
  });

  it('prints the token with --print (storing nothing) and exits 4 on bad credentials', async () => {
    const home = freshHome();
    const [printed, refused] = await Promise.all([
      runCli(['login', '--print'], { RSC_URL: url, ...READER }, home),
      runCli(['login', '--user', 'admin', '--password', 'wrong'], { RSC_URL: url }, home),
    ]);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout.trim()).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(() => statSync(join(home, '.config', 'redis-stream-coordinator', 'tokens.json'))).toThrow();
    expect(refused.code).toBe(4);
    const viaToken = await runCli(['members', uniquePrefix('x'), 'g'], {
      RSC_URL: url,
      RSC_TOKEN: printed.stdout.trim(),
    });
    // Authenticated by the token: the refusal is about the group, not the credentials.
    expect(viaToken.code).toBe(2);
  });
});

describe('cli > serve', () => {
  it('runs the coordinator from the environment and stops cleanly on SIGTERM', async () => {
    const child = startCli(['serve', '--port', '0'], {
      REDIS_URL: inject('redisUrl'),
      COORDINATOR_KEY_PREFIX: uniquePrefix('serve'),
    });
    try {
      const line = await child.waitForLine((l) => l.includes('"msg":"listening"'));
      const served = String(JSON.parse(line).url);
      expect(served).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await fetch(`${served}/actuator/health`)).status).toBe(200);
      const status = await runCli(['groups', 'get', 'nope', 'nope'], { RSC_URL: served });
      expect(status.code).toBe(2);
      child.proc.kill('SIGTERM');
      expect(await child.exited).toBe(0);
    } finally {
      if (child.proc.exitCode === null) child.proc.kill('SIGKILL');
    }
  });
});
