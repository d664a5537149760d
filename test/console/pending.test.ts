/**
 * The pending page, reached from the group page and the message browser: per consumable shard
 * what Redis holds delivered and not acknowledged (count, oldest id and age, also on the group
 * page's tiles) and which members report on it; per member what it last reported holding;
 * draining shards still listed (docs/protocol.md#resharding); an unknown group shows its error.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heartbeatBody } from '../support/stack.js';
import {
  type Browser,
  evaluate,
  launchBrowser,
  openPage,
  type Page,
  problemsOf,
  screenshot,
  textOf,
  waitFor,
  waitForView,
} from './browser.js';
import { type ConsoleFixture, publishShots, shotsDir, startConsoleFixture } from './fixture.js';

let fx: ConsoleFixture;
let browser: Browser;
let page: Page;
let shots: string;

const shardRows = () =>
  evaluate<string[]>(
    page,
    `[...document.querySelectorAll('#pending-shards tr[data-shard]')].map((r) => r.dataset.shard)`,
  );
const cell = (shard: number, cls: string) =>
  textOf(page, `#pending-shards tr[data-shard="${shard}"] .${cls}`);

/** Sends `member`'s next heartbeat with a progress report of every shard it owns. */
async function report(member: ConsoleFixture['members'][number], pendingCount: number): Promise<void> {
  const body = heartbeatBody(member.id, fx.p, { epoch: member.epoch, mv: member.mv, owned: member.owned });
  body.shardProgress = member.owned.map((shardIndex) => ({
    shard: { shardIndex },
    streamKey: `${fx.p}:${shardIndex}`,
    lastDeliveredId: `${shardIndex + 1}000-0`,
    lastAckedId: `${shardIndex + 1}000-0`,
    pendingCount,
    updatedAt: new Date().toISOString(),
  }));
  const res = await fx.call(
    'POST',
    `/coord/v1/streams/${fx.p}/groups/${fx.p}/members/${member.id}/heartbeat`,
    body,
  );
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  [fx, browser, shots] = await Promise.all([
    startConsoleFixture({ credentials: false }),
    launchBrowser(),
    shotsDir(),
  ]);
  page = await openPage(browser);
});

afterAll(async () => {
  await browser?.close();
  await fx?.close();
  if (shots) await publishShots(shots);
});

describe('console > pending entries', () => {
  it('shows per shard the pending count and oldest entry Redis holds, and who reports on it', async () => {
    const [a, b] = fx.members as [ConsoleFixture['members'][number], ConsoleFixture['members'][number]];
    await report(a, 3);
    await report(b, 0);
    const pendingUrl = `${fx.url}/console/streams/${fx.p}/groups/${fx.p}/pending`;
    await page.goto(`${fx.url}/console/streams/${fx.p}/groups/${fx.p}/messages`);
    await waitForView(page, 'messages');
    expect(await evaluate<string>(page, "document.querySelector('a.pending-link').href")).toBe(pendingUrl);
    await page.goto(`${fx.url}/console/streams/${fx.p}/groups/${fx.p}`);
    await waitForView(page, 'group');
    expect(await evaluate<string>(page, "document.querySelector('a.pending-link').href")).toBe(pendingUrl);
    // The tiles tell how old the oldest pending entry is, where there is one.
    expect(await textOf(page, '.shard[data-shard="0"] .oldest-pending')).toMatch(/ s$/);
    expect(
      await evaluate<number>(
        page,
        'document.querySelectorAll(\'.shard[data-shard="1"] .oldest-pending\').length',
      ),
    ).toBe(0);
    await page.click('.shard[data-shard="0"] a.pending-count');
    await waitForView(page, 'pending');
    expect(page.url()).toBe(pendingUrl);
    expect(await shardRows()).toEqual(['0', '1', '2', '3']);
    // The fixture's raw reader read 6 records of shard 0 and acknowledged the first 4.
    expect(await cell(0, 'pending-count')).toBe('2');
    expect(await cell(0, 'oldest-id')).toBe(fx.shard0[4]);
    expect(await cell(0, 'oldest-age')).toMatch(/ s$/);
    expect(await cell(1, 'pending-count')).toBe('0');
    expect(await cell(1, 'oldest-age')).toBe('—');
    const owner0 = fx.members.find((m) => m.owned.includes(0))!;
    expect(await cell(0, 'owners')).toBe(owner0.id);
  });

  it("lists each member's last report per shard with what it holds", async () => {
    const [a, b] = fx.members as [ConsoleFixture['members'][number], ConsoleFixture['members'][number]];
    const rows = await evaluate<string[]>(
      page,
      `[...document.querySelectorAll('#pending-owners tr[data-member]')].map((r) => r.dataset.member + ':' + r.dataset.shard + ' ' + r.querySelector('.reported-pending').innerText)`,
    );
    expect(rows).toEqual([...a.owned.map((s) => `${a.id}:${s} 3`), ...b.owned.map((s) => `${b.id}:${s} 0`)]);
    expect(await textOf(page, `#pending-owners tr[data-member="${a.id}"]`)).toContain('ACTIVE');
    await screenshot(page, join(shots, '18-pending.png'));
    expect(problemsOf(page)).toEqual([]);
  });

  it('still lists the shards a scale-in removed, marked draining', async () => {
    const scaled = await fx.call('POST', `/coord/v1/streams/${fx.p}/scale`, {
      targetShardCount: 2,
      requestedBy: 'test',
      reason: 'draining shards on the pending page',
    });
    expect(scaled.status).toBe(202);
    await waitFor(
      page,
      'document.querySelector(\'#pending-shards tr[data-shard="3"] .badge\')',
      'the draining mark',
    );
    expect(await shardRows()).toEqual(['0', '1', '2', '3']);
    expect(await textOf(page, '#pending-shards tr[data-shard="2"] .badge')).toBe('draining');
    expect(await textOf(page, '#pending-shards tr[data-shard="1"]')).not.toContain('draining');
  });

  it('shows the error in both panels of a group the coordinator does not know', async () => {
    await page.goto(`${fx.url}/console/streams/${fx.p}/groups/no-such-group/pending`);
    await waitFor(page, "document.querySelector('#pending-error .alert')", 'the group error');
    expect(await textOf(page, '#pending-error')).toContain('404 GROUP_NOT_FOUND');
    expect(await textOf(page, '#view')).not.toContain('Loading…');
    for (const panel of ['#pending-shards', '#pending-owners']) {
      expect(await textOf(page, panel)).toContain('GROUP_NOT_FOUND');
    }
    await screenshot(page, join(shots, '19-pending-unknown-group.png'));
    expect(problemsOf(page)).toEqual([]);
  });
});
