/**
 * The console's migration panel end to end: a scale-in left draining (one removed shard still has
 * an unread record, the other is still held), shown with drain state, holders, evidence and
 * rollback eligibility, then rolled back through the confirm step.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Browser,
  evaluate,
  launchBrowser,
  openPage,
  type Page,
  problemsOf,
  screenshot,
  textOf,
  typeInto,
  waitFor,
  waitForView,
} from './browser.js';
import {
  ADMIN_PASSWORD,
  type ConsoleFixture,
  publishShots,
  shotsDir,
  startConsoleFixture,
} from './fixture.js';

const READER_PASSWORD = 'reader-only-pw';

let fx: ConsoleFixture;
let browser: Browser;
let page: Page;
let shots: string;
let reshardingId: string;

const text = (selector: string) => textOf(page, selector);
const groupUrl = () => `${fx.url}/console/streams/${fx.p}/groups/${fx.p}`;

async function tokenFor(username: string, password: string): Promise<string> {
  const res = await fx.call('POST', '/coord/v1/auth/login', { username, password });
  expect(res.status).toBe(200);
  return res.body.accessToken;
}

async function migrations(): Promise<{
  status: number;
  body: Record<string, unknown> & { migrations: Array<{ state: string }> };
}> {
  return fx.call('GET', `/coord/v1/monitoring/streams/${fx.p}/groups/${fx.p}/migrations`);
}

beforeAll(async () => {
  [fx, browser, shots] = await Promise.all([
    startConsoleFixture({ credentials: true, users: `reader:${READER_PASSWORD}:READ` }),
    launchBrowser(),
    shotsDir(),
  ]);
  page = await openPage(browser);
  const scaled = await fx.call('POST', `/coord/v1/streams/${fx.p}/scale`, {
    targetShardCount: 2,
    requestedBy: 'test',
    reason: 'console migration test',
  });
  expect(scaled.status).toBe(202);
  reshardingId = scaled.body.migrations[0].reshardingId;
  // The sweep moves a scale-in from ACTIVE to DRAINING on its first pass.
  const deadline = Date.now() + 10_000;
  while ((await migrations()).body.migrations.at(-1)?.state !== 'DRAINING') {
    if (Date.now() > deadline)
      throw new Error(`migration did not reach DRAINING: ${JSON.stringify((await migrations()).body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
});

afterAll(async () => {
  await browser?.close();
  await fx?.close();
  if (shots) await publishShots(shots);
});

describe('console > migration panel', () => {
  it('shows the draining scale-in with removed shards, holders, evidence and rollback eligibility', async () => {
    await page.goto(`${groupUrl()}#token=${encodeURIComponent(await tokenFor('admin', ADMIN_PASSWORD))}`);
    await waitForView(page, 'group');
    expect(await page.evaluate(`document.querySelector('#active-migration').dataset.reshardingId`)).toBe(
      reshardingId,
    );
    expect(await text('#active-migration')).toContain('4 → 2 shards (scale-in)');
    expect(await text('#active-migration')).toContain('DRAINING');

    const rows = await evaluate<string[]>(
      page,
      `[...document.querySelectorAll('tr[data-removed-shard]')].map((r) => r.dataset.removedShard)`,
    );
    expect(rows).toEqual(['2', '3']);
    // Shard 2 holds one record nobody read: its evidence shows lag 1 for the group.
    expect(await text('tr[data-removed-shard="2"]')).toContain(`${fx.p} pending 0, lag 1`);
    const holder = fx.members.find((m) => m.owned.includes(2))!.id;
    expect(await text('tr[data-removed-shard="2"]')).toContain(holder);
    expect(await page.evaluate(`document.querySelectorAll('#shard-grid .shard.removed').length`)).toBe(2);
    expect(await text('.shard[data-shard="2"] .flags')).toContain('REMOVED');

    expect(await text('#rollback-eligibility')).toContain('Rollback allowed');
    expect(await page.evaluate(`document.querySelector('#rollback-open').disabled`)).toBe(false);
    await screenshot(page, join(shots, '06-migration.png'));
  });

  it('rolls back only after the confirm step, with a reason', async () => {
    await page.click('#rollback-open');
    await waitFor(page, "document.querySelector('#rollback-confirm-box')", 'the confirm step');
    // Auto-refresh must not wipe the confirm step while the operator types.
    const before = Number(await page.evaluate("document.body.getAttribute('data-refreshes')"));
    await waitFor(
      page,
      `Number(document.body.getAttribute('data-refreshes')) > ${before}`,
      'a refresh during confirm',
    );
    expect(await page.evaluate("Boolean(document.querySelector('#rollback-confirm-box'))")).toBe(true);

    // No reason: nothing is sent.
    await page.click('#rollback-confirm');
    expect(
      await page.evaluate(`document.querySelector('#rollback-reason').getAttribute('aria-invalid')`),
    ).toBe('true');
    expect((await migrations()).body.activeReshardingId).toBe(reshardingId);

    await typeInto(page, '#rollback-reason', 'rollback from the console test');
    await screenshot(page, join(shots, '07-rollback-confirm.png'));
    await page.click('#rollback-confirm');
    await waitFor(page, "document.querySelector('#rollback-result')", 'the rollback result');
    expect(await text('#rollback-result')).toBe(`Rolled back ${reshardingId}: state ROLLED_BACK.`);
    await waitFor(page, "document.querySelector('#no-migration')", 'the panel without an active migration');
    expect(await text('#no-migration')).toBe('No active migration. The stream has 4 shards.');
    expect((await migrations()).body.activeReshardingId).toBeNull();
    await screenshot(page, join(shots, '08-rolled-back.png'));
    expect(problemsOf(page)).toEqual([]);
  });

  it('offers no rollback to a READ-only user', async () => {
    const scaled = await fx.call('POST', `/coord/v1/streams/${fx.p}/scale`, {
      targetShardCount: 3,
      requestedBy: 'test',
      reason: 'second migration',
    });
    expect(scaled.status).toBe(202);
    const tab = await openPage(browser);
    try {
      await tab.goto(`${groupUrl()}#token=${encodeURIComponent(await tokenFor('reader', READER_PASSWORD))}`);
      await waitForView(tab, 'group');
      expect(await tab.evaluate(`document.querySelector('#who').innerText`)).toBe('Signed in as reader');
      expect(await tab.evaluate(`document.querySelector('#active-migration') !== null`)).toBe(true);
      expect(await tab.evaluate(`document.querySelector('#rollback-open').disabled`)).toBe(true);
    } finally {
      await tab.close();
    }
  });
});
