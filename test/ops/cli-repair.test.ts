/**
 * `repair <prefix> <group> --mode rebuild|reset`, run as a real child process against a real
 * coordinator over the private Redis: usage errors exit 1 before anything is sent, a lost index
 * is rebuilt, a lost header refuses `rebuild` (exit 3) until `reset`, the audit line names who and
 * why, and only ADMIN may repair (exit 4).
 */
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { LogFn } from '../../node/logger.js';
import { type RunningServer, startServer } from '../../node/server.js';
import { parseConfig } from '../../src/config.js';
import { groupKeys } from '../../src/store/keys.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import { heartbeatBody } from '../support/stack.js';
import { runCli } from './cli-process.js';

// Every CLI run is a fresh Node process loading TypeScript through tsx.
vi.setConfig({ testTimeout: 120_000 });

const ADMIN = { RSC_USER: 'admin', RSC_PASSWORD: 'cli-repair-admin-secret' };
const WRITER = { RSC_USER: 'writer', RSC_PASSWORD: 'cli-repair-writer-secret' };
const READER = { RSC_USER: 'reader', RSC_PASSWORD: 'cli-repair-reader-secret' };
const namespace = uniquePrefix('cli-repair');
const redis = standaloneClient();
const logs: Array<{ msg: string; fields?: Record<string, unknown> | undefined }> = [];
const log: LogFn = (_level, msg, fields) => {
  logs.push({ msg, fields });
};
let server: RunningServer;
let url: string;

beforeAll(async () => {
  server = await startServer({
    config: parseConfig({
      PORT: '0',
      REDIS_URL: inject('redisUrl'),
      COORDINATOR_KEY_PREFIX: namespace,
      COORDINATOR_ADMIN_PASSWORD: ADMIN.RSC_PASSWORD,
      COORDINATOR_USERS: `writer:${WRITER.RSC_PASSWORD}:WRITE,reader:${READER.RSC_PASSWORD}:READ`,
    }),
    log,
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

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${url}/coord/v1${path}`, {
    method,
    headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

/** A 2-shard stream whose group has one member `m1`; its first answer. */
async function streamWithMember() {
  const p = uniquePrefix('s');
  expect((await api('POST', `/streams/${p}`, { initialShardCount: 2, requestedBy: 'test' })).status).toBe(
    201,
  );
  const hb = await api(
    'POST',
    `/streams/${p}/groups/${p}/members/m1/heartbeat`,
    heartbeatBody('m1', p, { epoch: 0, mv: 0 }),
  );
  expect(hb.status).toBe(200);
  return { p, keys: groupKeys(namespace, p, p), hb: hb.body };
}

describe('cli > repair usage', () => {
  it('refuses a missing or unknown mode, a missing group and foreign options with exit 1; help lists it', async () => {
    const [noMode, badMode, noGroup, foreign, help, own] = await Promise.all([
      cli(['repair', 'p', 'g']),
      cli(['repair', 'p', 'g', '--mode', 'fix']),
      cli(['repair', 'p', '--mode', 'reset']),
      cli(['repair', 'p', 'g', '--mode', 'reset', '--force']),
      cli(['--help']),
      cli(['help', 'repair']),
    ]);
    for (const r of [noMode, badMode, noGroup, foreign]) {
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/^error: /);
    }
    expect(noMode.stderr).toContain('--mode rebuild or --mode reset');
    expect(badMode.stderr).toContain("(got 'fix')");
    expect(noGroup.stderr).toContain('missing <group>');
    expect(foreign.stderr).toContain("--force does not apply to 'repair'");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('repair <prefix> <group> --mode rebuild|reset');
    expect(own.stdout).toMatch(/^Usage: \S+ repair <prefix> <group> --mode rebuild\|reset/);
  });
});

describe('cli > repair against a coordinator', () => {
  it('rebuilds a group that lost its owners index, audited with who and why', async () => {
    const { p, keys } = await streamWithMember();
    await redis.del(keys.owners);
    const res = await cli([
      'repair',
      p,
      p,
      '--mode',
      'rebuild',
      '--reason',
      'owners evicted',
      '--requested-by',
      'ops@example.com',
      '--json',
    ]);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ streamPrefix: p, consumerGroup: p, shardCount: 2 });
    expect(await redis.exists(keys.owners)).toBe(1);
    const audit = logs.filter((l) => l.msg === 'group repaired' && l.fields?.streamPrefix === p);
    expect(audit.map((l) => l.fields)).toEqual([
      expect.objectContaining({ requestedBy: 'ops@example.com', reason: 'owners evicted', mode: 'rebuild' }),
    ]);
  });

  it('exits 3 when a rebuild is refused (header lost), then resets: the member is unknown and rejoins', async () => {
    const { p, keys, hb } = await streamWithMember();
    await redis.del(keys.header);
    const refused = await cli(['repair', p, p, '--mode', 'rebuild']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/^error: HTTP 500 METADATA_CORRUPT: /);
    const reset = await cli(['repair', p, p, '--mode', 'reset', '--reason', 'header lost']);
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toContain(`Reset group ${p} of stream ${p}: every member rejoins at epoch 0`);
    expect(reset.stdout).toMatch(/stream:\s+\S+/);
    const after = await api(
      'POST',
      `/streams/${p}/groups/${p}/members/m1/heartbeat`,
      heartbeatBody('m1', p, { epoch: hb.memberEpoch, mv: hb.metadataVersion }),
    );
    expect(after.status).toBe(200);
    expect(after.body.status).toBe('UNKNOWN_MEMBER_ID');
    // The refused rebuild is not audited; the reset is, with its reason.
    const audit = logs.filter((l) => l.msg === 'group repaired' && l.fields?.streamPrefix === p);
    expect(audit.map((l) => l.fields?.reason)).toEqual(['header lost']);
  });

  it('exits 4 for WRITE and READ roles, 2 for an unknown group', async () => {
    const { p, keys } = await streamWithMember();
    await redis.del(keys.owners);
    const [writer, reader, unknown] = await Promise.all([
      cli(['repair', p, p, '--mode', 'rebuild'], WRITER),
      cli(['repair', p, p, '--mode', 'rebuild'], READER),
      cli(['repair', p, 'nope', '--mode', 'reset']),
    ]);
    expect(writer.code).toBe(4);
    expect(writer.stderr).toContain('HTTP 403');
    expect(reader.code).toBe(4);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/HTTP 404 GROUP_NOT_FOUND: /);
    // Refused requests repaired nothing (the server's own sweep may rebuild the index meanwhile).
    expect(logs.filter((l) => l.msg === 'group repaired' && l.fields?.streamPrefix === p)).toEqual([]);
  });
});
