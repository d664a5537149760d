/**
 * Truthful ownership views: with a live member, one whose lease lapsed (not yet
 * swept: the server's sweep interval is far longer than the test) and one LEAVING, no view —
 * the console, the CLI, the monitoring API — shows the expired or the leaving member as a current
 * owner or counts it live; their records stay visible as history.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../ops/cli-process.js';
import { SimMember } from '../support/members.js';
import { type Browser, launchBrowser, openPage, type Page, problemsOf, waitForView } from './browser.js';
import { type ConsoleFixture, startConsoleFixture } from './fixture.js';

const LEASE_MS = 3000;

let fx: ConsoleFixture;
let browser: Browser;
let page: Page;
let keepAlive: ReturnType<typeof setInterval> | undefined;
let live: SimMember;

beforeAll(async () => {
  [fx, browser] = await Promise.all([
    startConsoleFixture({
      credentials: false,
      config: {
        COORDINATOR_MEMBER_LEASE_TTL_MS: String(LEASE_MS),
        // No sweep during the test: what the views show comes from the read path alone.
        COORDINATOR_SWEEP_INTERVAL_MS: '600000',
      },
    }),
    launchBrowser(),
  ]);
  [live] = fx.members as [SimMember, SimMember];
  // worker-a keeps heartbeating; worker-b falls silent (its lease lapses); worker-c joins and leaves.
  keepAlive = setInterval(() => void live.beat({ call: fx.call }), 500);
  const leaving = new SimMember('worker-c', fx.p, fx.p);
  expect((await leaving.beat({ call: fx.call })).status).toBe(200);
  expect((await leaving.leave({ call: fx.call })).body.status).toBe('OK');
  await new Promise((r) => setTimeout(r, LEASE_MS + 500));
  page = await openPage(browser);
}, 30_000);

afterAll(async () => {
  if (keepAlive) clearInterval(keepAlive);
  await browser?.close();
  await fx?.close();
});

const group = () => `/coord/v1/streams/${fx.p}/groups/${fx.p}`;

describe('ownership views > an expired and a LEAVING member beside a live one', () => {
  it('the API lists neither as a current owner, and keeps their records with their states', async () => {
    const g = (await fx.call('GET', group())).body;
    expect(Object.keys(g.currentAssignmentSummary)).toEqual(['worker-a']);
    expect(Object.keys(g.targetAssignmentSummary)).toEqual(['worker-a']);
    const members = (await fx.call('GET', `/coord/v1/monitoring/streams/${fx.p}/groups/${fx.p}/members`)).body
      .members as Array<{ memberId: string; state: string }>;
    expect(Object.fromEntries(members.map((m) => [m.memberId, m.state]))).toEqual({
      'worker-a': 'ACTIVE',
      'worker-b': 'EXPIRED',
      'worker-c': 'LEAVING',
    });
    const offsets = (await fx.call('GET', `/coord/v1/monitoring/streams/${fx.p}/groups/${fx.p}/offsets`))
      .body;
    const owners = new Set(offsets.shards.flatMap((s: { ownerMemberIds: string[] }) => s.ownerMemberIds));
    expect([...owners].every((id) => id === 'worker-a')).toBe(true);
  });

  it('the console counts one live member of three and shows no shard held by the others', async () => {
    await page.goto(`${fx.url}/console/streams/${fx.p}/groups/${fx.p}`);
    await waitForView(page, 'group');
    const card = (await page.evaluate("document.querySelector('#group-members .value').innerText")) as string;
    expect(card.replace(/\s/g, '')).toBe('1/3');
    const grid = (await page.evaluate("document.querySelector('#shard-grid').innerText")) as string;
    expect(grid).not.toContain('worker-b');
    expect(grid).not.toContain('worker-c');
    const rows = (await page.evaluate(
      "[...document.querySelectorAll('tr[data-member]')].map((r) => r.getAttribute('data-member') + ' ' + r.innerText.includes('EXPIRED') + ' ' + r.innerText.includes('LEAVING'))",
    )) as string[];
    expect(rows).toEqual(['worker-a false false', 'worker-b true false', 'worker-c false true']);
    expect(problemsOf(page)).toEqual([]);
  });

  it("the groups page counts only the live member and shows the group's lag and pending", async () => {
    const rows = (await fx.call('GET', '/coord/v1/monitoring/grafana/groups')).body as Array<{
      streamPrefix: string;
      totalLag: number;
      totalPendingCount: number;
    }>;
    const mine = rows.find((r) => r.streamPrefix === fx.p)!;
    expect(mine.totalLag).toBeGreaterThan(0);
    await page.goto(`${fx.url}/console`);
    await waitForView(page, 'groups');
    const row = `document.querySelector('tr[data-group="${fx.p}/${fx.p}"]')`;
    const cells = (await page.evaluate(
      `[${row}.querySelector('td.lag').innerText, ${row}.querySelector('td.pending').innerText]`,
    )) as string[];
    expect(cells).toEqual([String(mine.totalLag), String(mine.totalPendingCount)]);
    expect(problemsOf(page)).toEqual([]);
  });

  it('the CLI shows the expired member as EXPIRED and only the live one as current owner', async () => {
    const members = await runCli(['members', fx.p, fx.p, '--url', fx.url], {});
    expect(members.code).toBe(0);
    expect(members.stdout).toMatch(/worker-b\s+EXPIRED/);
    const g = await runCli(['groups', 'get', fx.p, fx.p, '--url', fx.url, '--json'], {});
    expect(JSON.parse(g.stdout).currentAssignmentSummary).toEqual({ 'worker-a': 4 });
  });
});
