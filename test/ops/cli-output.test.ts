/**
 * How the CLI prints, as kubectl and gh do, each run as a real child process against a real
 * coordinator (its COORDINATOR_MAX_SHARD_COUNT lowered to 64, leases of 10 minutes): `-o wide|yaml|json`, colour only
 * on a terminal or with FORCE_COLOR and never in JSON or YAML, relative times of past events, and
 * the server's own limit in a refused scale, named as the CLI's argument.
 */
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { parse } from 'yaml';
import { type RunningServer, startServer } from '../../node/server.js';
import { parseConfig } from '../../src/config.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import { heartbeatBody } from '../support/stack.js';
import { runCli } from './cli-process.js';

vi.setConfig({ testTimeout: 120_000 });

const ADMIN = { RSC_USER: 'admin', RSC_PASSWORD: 'cli-output-admin-secret' };
const ESC = '\u001b[';
/** `ESC` in a regular expression. */
const ESC_RE = '\\u001b\\[';
const redis = standaloneClient();
let server: RunningServer;
let url: string;
/** A stream of 4 shards whose group has one live member, m1, and one record on shard 1. */
let p: string;

beforeAll(async () => {
  server = await startServer({
    config: parseConfig({
      PORT: '0',
      REDIS_URL: inject('redisUrl'),
      COORDINATOR_KEY_PREFIX: uniquePrefix('cli-output'),
      COORDINATOR_ADMIN_PASSWORD: ADMIN.RSC_PASSWORD,
      COORDINATOR_MAX_SHARD_COUNT: '64',
      // m1 heartbeats once: its lease must outlast every test of the file on a busy machine.
      COORDINATOR_MEMBER_LEASE_TTL_MS: '600000',
    }),
    log: () => {},
  });
  url = server.url;
  p = uniquePrefix('out');
  expect((await cli(['streams', 'create', p, '--shards', '4', '--reason', 'test'])).code).toBe(0);
  const hb = await fetch(`${url}/coord/v1/streams/${p}/groups/${p}/members/m1/heartbeat`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`admin:${ADMIN.RSC_PASSWORD}`).toString('base64')}`,
    },
    body: JSON.stringify(heartbeatBody('m1', p, { epoch: 0, mv: 0 })),
  });
  expect(hb.status).toBe(200);
  await redis.xadd(`${p}:1`, '*', 'payload', 'x');
});
afterAll(async () => {
  await server?.close();
  await redis.quit();
});

function cli(args: string[], env: Record<string, string> = {}) {
  return runCli(args, { RSC_URL: url, ...ADMIN, ...env });
}

/** The header line of a table (the first line starting with `first`). */
function header(out: string, first: string): string {
  return out.split('\n').find((l) => l.startsWith(first)) ?? '';
}

describe('cli > output formats', () => {
  it('-o wide adds columns to members, offsets and groups list', async () => {
    const [members, membersWide, offsets, offsetsWide, groupsWide, clash] = await Promise.all([
      cli(['members', p, p]),
      cli(['members', p, p, '-o', 'wide']),
      cli(['offsets', p, p]),
      cli(['offsets', p, p, '--output=wide']),
      cli(['groups', 'list', p, '-o', 'wide']),
      cli(['members', p, p, '-o', 'wide', '--json']),
    ]);
    for (const r of [members, membersWide, offsets, offsetsWide, groupsWide])
      expect(r.code, r.stderr).toBe(0);
    expect(header(members.stdout, 'MEMBER')).not.toContain('NAME');
    expect(header(membersWide.stdout, 'MEMBER')).toMatch(
      /^MEMBER\s+NAME\s+STATE\s+EPOCH\s+METADATA\s+CURRENT\s+GRANTED\s+REVOKING\s+LEASE\s+LAST HEARTBEAT\s+REBALANCE BY\s+PENDING\s+WORKERS$/,
    );
    // memberName is the instance name the consumer reported (the fixture names it as its id).
    expect(membersWide.stdout).toMatch(/^m1\s+m1\s+(ACTIVE|STARTING)\s+\d+\s+\d+\s/m);
    expect(header(offsets.stdout, 'SHARD')).not.toContain('DELIVERED');
    expect(header(offsetsWide.stdout, 'SHARD')).toMatch(/\bDELIVERED\s+LAST ID\s+MEMORY\s+SLOT\b/);
    expect(offsetsWide.stdout).toMatch(new RegExp(`^1\\s+${p}:1\\s+1\\s+0\\s+1\\s`, 'm'));
    expect(header(groupsWide.stdout, 'STREAM')).toMatch(/\bEPOCHS\s+CONSUMABLE\s+REMOVED\b/);
    expect(groupsWide.stdout).toMatch(/\bg\d+\/a\d+\/m\d+\s+0-3\s/);
    expect(clash.code).toBe(1);
    expect(clash.stderr).toContain('--json contradicts -o wide');
  });

  it('-o yaml and -o json print the same API answer', async () => {
    const [yaml, json] = await Promise.all([
      cli(['groups', 'get', p, p, '-o', 'yaml']),
      cli(['groups', 'get', p, p, '-o', 'json']),
    ]);
    expect(yaml.code, yaml.stderr).toBe(0);
    expect(parse(yaml.stdout)).toEqual(JSON.parse(json.stdout));
    const [lists, listsJson] = await Promise.all([
      cli(['streams', 'list', '-o', 'yaml']),
      cli(['streams', 'list', '--json']),
    ]);
    expect(parse(lists.stdout)).toEqual(JSON.parse(listsJson.stdout));
  });

  it('shows a heartbeat that just happened as just now, its lease as a countdown', async () => {
    const members = await cli(['members', p, p]);
    expect(members.stdout).toMatch(/^m1\s.*\sin \d+m\d*s?\s+(just now|[\dms]+ ago)\s/m);
    expect(members.stdout).not.toMatch(/\bin 0s\b/);
  });
});

describe('cli > colour', () => {
  it('writes no escape codes when piped or with NO_COLOR', async () => {
    const runs = await Promise.all([
      cli(['groups', 'get', p, p]),
      cli(['members', p, p], { NO_COLOR: '1' }),
      cli(['assignments', p, p], { NO_COLOR: '1' }),
      cli(['groups', 'get', p, 'nope']),
    ]);
    for (const r of runs) {
      expect(r.stdout).not.toContain(ESC);
      expect(r.stderr).not.toContain(ESC);
    }
  });

  it('colours status words with FORCE_COLOR, keeping the table aligned, and never JSON or YAML', async () => {
    const [plain, forced, invariants, json, yaml, refused, refusedJson] = await Promise.all([
      cli(['groups', 'list', p]),
      cli(['groups', 'list', p], { FORCE_COLOR: '1' }),
      cli(['assignments', p, p], { FORCE_COLOR: '1' }),
      cli(['groups', 'get', p, p, '-o', 'json'], { FORCE_COLOR: '1' }),
      cli(['groups', 'get', p, p, '-o', 'yaml'], { FORCE_COLOR: '1' }),
      cli(['groups', 'get', p, 'nope'], { FORCE_COLOR: '1' }),
      cli(['groups', 'get', p, 'nope', '--json'], { FORCE_COLOR: '1' }),
    ]);
    expect(forced.stdout).toMatch(new RegExp(`${ESC_RE}3[23]m(STABLE|RECONCILING|ASSIGNING)${ESC_RE}39m`));
    // Only the escape codes differ: the columns line up as without colour.
    expect(forced.stdout).not.toBe(plain.stdout);
    expect(stripVTControlCharacters(forced.stdout)).toBe(plain.stdout);
    expect(invariants.stdout).toContain(`Invariants: ${ESC}32mok${ESC}39m`);
    for (const r of [json, yaml, refusedJson]) {
      expect(r.stdout).not.toContain(ESC);
      expect(r.stderr).not.toContain(ESC);
    }
    expect(JSON.parse(json.stdout).consumerGroup).toBe(p);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(new RegExp(`^${ESC_RE}31merror:${ESC_RE}39m HTTP 404 GROUP_NOT_FOUND`));
  });
});

describe('cli > limits from the server', () => {
  it("refuses a shard count above the coordinator's maximum with its figure, named as the CLI's argument", async () => {
    const [scale, create, absurd] = await Promise.all([
      cli(['scale', p, '100', '--reason', 'too many']),
      cli(['streams', 'create', uniquePrefix('big'), '--shards', '65']),
      cli(['scale', p, '20000', '--reason', 'far too many']),
    ]);
    // The CLI reads the maximum from the compatibility view and refuses before sending.
    expect(scale.code).toBe(1);
    expect(scale.stderr).toContain(
      "<n> must be at most 64, the coordinator's COORDINATOR_MAX_SHARD_COUNT (got 100)",
    );
    expect(create.code).toBe(2);
    expect(create.stderr).toMatch(/^error: HTTP 400 INVALID_REQUEST: --shards: must be at most 64$/m);
    // Beyond what the protocol allows any coordinator, refused before anything is sent.
    expect(absurd.code).toBe(1);
    expect(absurd.stderr).toContain('<n> must be an integer between 0 and 16384');
  });
});
