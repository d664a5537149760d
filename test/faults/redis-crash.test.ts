/**
 * Redis crashes and freezes under load: two coordinator
 * instances, two consumer processes, a producer and a scale-out in flight.
 */
import { describe, expect, it } from 'vitest';
import { describeFindings, printTable } from './support/invariants.js';
import { type RedisFault, type RedisFaultResult, runRedisFault } from './support/redis-fault-scenario.js';

function report(name: string, r: RedisFaultResult): void {
  printTable(name, {
    published: r.published,
    lost: r.lost.length,
    duplicates: r.duplicates,
    overlaps: r.overlaps.length,
    'outage ms': r.outageMs,
    'serve again ms': r.serveAgainMs.join('/'),
    'ready again ms': r.readyAgainMs.join('/'),
    'first record ms': r.firstHandledMs,
    'migration done ms': r.migrationDoneMs,
    'last non-2xx ms': r.lastNon2xxMs ?? '-',
    'fault answers': JSON.stringify(r.faultAnswers),
  });
}

function expectInvariants(r: RedisFaultResult): void {
  const why = `${describeFindings(r)}\n${r.log.join('\n')}\n${r.trace.join('\n')}`;
  expect(r.published, why).toBeGreaterThan(0);
  expect(r.lost, why).toEqual([]);
  expect(r.overlaps, why).toEqual([]);
  expect(r.badAnswers, why).toEqual([]);
}

describe.each<[string, RedisFault]>([
  ['SIGKILL and a restart from the AOF', 'kill'],
  ['SIGSTOP for 3 s, then SIGCONT', 'stop'],
])('faults > Redis %s while producing, consuming and scaling', (name, fault) => {
  it('loses no record, never lets two members read a shard, answers 2xx or a retryable 503 only during the fault, and finishes the migration', async () => {
    const r = await runRedisFault(fault);
    report(`redis ${fault}`, r);
    expectInvariants(r);
    // Serving again: within 1 s of readiness turning UP is what docs/operating.md#health-and-readiness promises; 3 s is the bound here.
    for (const ms of r.readyAgainMs) expect(ms, name).toBeLessThan(3000);
    for (const ms of r.serveAgainMs) expect(ms, name).toBeLessThan(3000);
    expect(r.firstHandledMs, name).toBeLessThan(10_000);
  }, 60_000);
});
