/**
 * The CLI's stream listing and deletion commands, each run as a real child process against a real
 * coordinator: the list commands, logout, tokens kept per URL and sent nowhere else, `--json`
 * failures as JSON on stderr (exit codes unchanged), and a clear refusal of a wrong password.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { type RunningServer, startServer } from '../../node/server.js';
import { parseConfig } from '../../src/config.js';
import { uniquePrefix } from '../support/redis.js';
import { freshHome, runCli } from './cli-process.js';

vi.setConfig({ testTimeout: 120_000 });

const ADMIN = { RSC_USER: 'admin', RSC_PASSWORD: 'cli-lists-admin-secret' };
let server: RunningServer;
let url: string;
/** A stand-in coordinator that records the Authorization header of every request. */
let spy: Server;
let spyUrl: string;
const spied: Array<string | undefined> = [];

beforeAll(async () => {
  server = await startServer({
    config: parseConfig({
      PORT: '0',
      REDIS_URL: inject('redisUrl'),
      COORDINATOR_KEY_PREFIX: uniquePrefix('cli-lists'),
      COORDINATOR_ADMIN_PASSWORD: ADMIN.RSC_PASSWORD,
    }),
    log: () => {},
  });
  url = server.url;
  spy = createServer((req, res) => {
    spied.push(req.headers.authorization);
    res.writeHead(401, { 'content-type': 'application/json' }).end();
  });
  await new Promise<void>((resolve) => spy.listen(0, '127.0.0.1', resolve));
  spyUrl = `http://127.0.0.1:${(spy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await server?.close();
  await new Promise((resolve) => spy?.close(resolve));
});

function cli(args: string[], env: Record<string, string> = ADMIN, home?: string) {
  return runCli(args, { RSC_URL: url, ...env }, home);
}

describe('cli > lists', () => {
  it('lists streams, groups and migrations as tables and as JSON', async () => {
    const p = uniquePrefix('list');
    expect((await cli(['streams', 'create', p, '--shards', '2', '--group', 'billing'])).code).toBe(0);
    const scaled = await cli(['scale', p, '3', '--reason', 'more', '--json']);
    expect(scaled.code, scaled.stderr).toBe(0);
    const id = JSON.parse(scaled.stdout).migrations[0].reshardingId as string;

    const [streams, streamsJson, groups, ofStream, migrations, migrationsJson] = await Promise.all([
      cli(['streams', 'list']),
      cli(['streams', 'list', '--json']),
      cli(['groups', 'list']),
      cli(['groups', 'list', p, '--json']),
      cli(['migrations', 'list', p, 'billing']),
      cli(['migrations', 'list', p, 'billing', '--json']),
    ]);
    expect(streams.code, streams.stderr).toBe(0);
    expect(streams.stdout).toMatch(/^STREAM\s+SHARDS\s+GROUPS\s+LIVE MEMBERS\s+MIGRATION/);
    expect(streams.stdout).toMatch(new RegExp(`${p}\\s+3\\s+billing\\s+0\\s+-`));
    const row = JSON.parse(streamsJson.stdout).streams.find(
      (s: { streamPrefix: string }) => s.streamPrefix === p,
    );
    expect(row).toEqual({
      streamPrefix: p,
      shardCount: 3,
      groups: ['billing'],
      liveMembers: 0,
      activeMigration: null,
    });
    expect(groups.stdout).toMatch(new RegExp(`${p}\\s+billing\\s+EMPTY\\s+3`));
    expect(JSON.parse(ofStream.stdout).groups.map((g: { consumerGroup: string }) => g.consumerGroup)).toEqual(
      ['billing'],
    );
    expect(migrations.code, migrations.stderr).toBe(0);
    expect(migrations.stdout).toMatch(new RegExp(`^ID\\s+FROM\\s+TO\\s+STATE[\\s\\S]*${id}\\s+2\\s+3`));
    // Without members the scale-out has nothing to wait for: it is over at once (DEPRECATED: done).
    expect(migrations.stdout).toMatch(new RegExp(`${id}\\s+2\\s+3\\s+DEPRECATED`));
    expect(JSON.parse(migrationsJson.stdout)).toMatchObject({ activeReshardingId: null, shardCount: 3 });
  });

  it('refuses list arguments it does not take (exit 1)', async () => {
    const [extra, missing] = await Promise.all([
      cli(['streams', 'list', 'x']),
      cli(['migrations', 'list', 'x']),
    ]);
    expect(extra.code).toBe(1);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('missing <group>');
  });
});

describe('cli > streams delete', () => {
  it('deletes a stream with its groups and shard keys so the name can be created again', async () => {
    const p = uniquePrefix('gone');
    expect((await cli(['streams', 'create', p, '--shards', '2'])).code).toBe(0);
    const noReason = await cli(['streams', 'delete', p]);
    expect(noReason.code).toBe(1);
    expect(noReason.stderr).toContain('--reason');
    const deleted = await cli(['streams', 'delete', p, '--reason', 'retired']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toContain(`Deleted stream ${p}: groups ${p}, 2 shard key(s).`);
    const missing = await cli(['streams', 'delete', p, '--reason', 'again', '--json']);
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stderr).error.errorCode).toBe('STREAM_NOT_FOUND');
    expect((await cli(['streams', 'create', p, '--shards', '2'])).code).toBe(0);
  });
});

describe('cli > tokens per URL, logout', () => {
  it('sends a stored token only to the URL that issued it; logout forgets it', async () => {
    const home = freshHome();
    const login = await cli(['login'], ADMIN, home);
    expect(login.code, login.stderr).toBe(0);
    const file = join(home, '.config', 'redis-stream-coordinator', 'tokens.json');
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')).tokens)).toEqual([url]);

    const here = await cli(['streams', 'list'], {}, home);
    expect(here.code, here.stderr).toBe(0);
    spied.length = 0;
    const elsewhere = await runCli(['streams', 'list', '--url', spyUrl], {}, home);
    expect(elsewhere.code).toBe(4);
    expect(spied).toEqual([undefined]);

    const out = await cli(['logout'], {}, home);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain(`Forgot the token of ${url}`);
    expect(JSON.parse(readFileSync(file, 'utf8')).tokens).toEqual({});
    const after = await cli(['streams', 'list'], {}, home);
    expect(after.code).toBe(4);
    expect((await cli(['logout'], {}, home)).stdout).toContain(`No token stored for ${url}`);
  });
});

describe('cli > version', () => {
  it('prints the package version for --version and -V, and nothing else (exit 0)', async () => {
    const version = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;
    const [long, short] = await Promise.all([runCli(['--version'], {}), runCli(['-V'], {})]);
    for (const run of [long, short]) {
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(`${version}\n`);
      expect(run.stderr).toBe('');
    }
  });
});

describe('cli > failures', () => {
  it('prints --json failures as JSON on stderr with the exit codes unchanged', async () => {
    const [notFound, usage, unreachable] = await Promise.all([
      cli(['groups', 'get', 'nope', 'nope', '--json']),
      cli(['groups', 'get', '--json']),
      runCli(['streams', 'list', '--json'], { RSC_URL: 'http://127.0.0.1:9' }),
    ]);
    expect(notFound.code).toBe(2);
    expect(JSON.parse(notFound.stderr)).toEqual({
      error: {
        exitCode: 2,
        status: 404,
        errorCode: 'GROUP_NOT_FOUND',
        message: expect.stringContaining('404'),
      },
    });
    expect(usage.code).toBe(1);
    expect(JSON.parse(usage.stderr).error).toMatchObject({ exitCode: 1 });
    expect(unreachable.code).toBe(3);
    expect(JSON.parse(unreachable.stderr).error).toMatchObject({ exitCode: 3 });
  });

  it('says the credentials were refused when login gets a wrong password (exit 4)', async () => {
    const refused = await cli(['login'], { RSC_USER: 'admin', RSC_PASSWORD: 'wrong' }, freshHome());
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('credentials refused');
    expect(refused.stderr).not.toContain('no credentials given');
  });
});
