/**
 * The sweep's cost and bounds, and the heartbeat fast path around a migration (standalone and
 * 6-node Cluster): a stream with nothing due costs no Redis call once the due index knows it, a
 * stream is visited when its work falls due, a call from a cursor stays within its budget and
 * the next one resumes there; steady heartbeats take one round trip unless a migration is under
 * way.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { backends } from '../support/redis.js';
import { makeStack, type Stack } from '../support/stack.js';
import { createStream, migration, readingMembers, round, roundsUntil, scale } from './support.js';

describe.each(backends)('resharding > sweep and fast path ($name)', (backend) => {
  let stack: Stack;
  afterEach(async () => {
    vi.restoreAllMocks();
    await stack?.close();
  });

  it('visits 200 idle streams once to learn nothing is due, then spends one Redis call a sweep on them', async () => {
    stack = makeStack(backend);
    const prefixes: string[] = [];
    for (let i = 0; i < 200; i++) prefixes.push(await createStream(stack, 1, 'idle'));
    const tryLock = vi.spyOn(stack.store, 'tryLock');
    const commit = vi.spyOn(stack.store, 'commit');
    const probe = vi.spyOn(stack.store, 'probeStream');
    // The first sweep seeds the due index with every stream and visits each once.
    const first = await stack.coordinator.sweep(stack.clock.now());
    expect(first).toMatchObject({ streams: 200, groupsChanged: 0, skippedBusy: 0, backlog: 0 });
    expect(probe).toHaveBeenCalledTimes(200);
    probe.mockClear();
    for (let i = 0; i < 5; i++) {
      stack.clock.advance(60_000);
      expect(await stack.coordinator.sweep(stack.clock.now())).toMatchObject({ streams: 0, backlog: 0 });
    }
    expect(probe).not.toHaveBeenCalled();
    expect(tryLock).not.toHaveBeenCalled();
    expect(commit).not.toHaveBeenCalled();
  });

  it('visits a stream when the work a commit created falls due, not before', async () => {
    stack = makeStack(backend);
    const p = await createStream(stack, 2);
    await stack.coordinator.sweep(stack.clock.now());
    const team = readingMembers(p, p, 2);
    for (let r = 0; r < 3; r++) await round(stack, team);
    const probe = vi.spyOn(stack.store, 'probeStream');
    // The members' leases end a lease TTL after their last full heartbeat.
    await stack.coordinator.sweep(stack.clock.now());
    const visited = probe.mock.calls.length;
    stack.clock.advance(stack.config.memberLeaseTtlMs - 1_000);
    expect((await stack.coordinator.sweep(stack.clock.now())).streams).toBe(0);
    expect(probe.mock.calls.length).toBe(visited);
    stack.clock.advance(2_000);
    expect(await stack.coordinator.sweep(stack.clock.now())).toMatchObject({ streams: 1, groupsChanged: 1 });
  });

  it('takes a stream again within seconds when the sweep that claimed it died before settling', async () => {
    stack = makeStack(backend);
    const p = await createStream(stack, 4);
    await stack.coordinator.sweep(stack.clock.now());
    const res = await scale(stack, p, 6);
    expect(res.status).toBe(202);
    const id = res.body.migrations[0].reshardingId as string;
    // Another instance claims the due stream and dies mid-visit: its probe never answers.
    const probe = vi.spyOn(stack.store, 'probeStream').mockReturnValueOnce(new Promise(() => {}));
    void stack.coordinator.sweep(stack.clock.now());
    await vi.waitFor(() => expect(probe).toHaveBeenCalledTimes(1));
    expect((await stack.coordinator.sweep(stack.clock.now())).streams).toBe(0);
    // Its claim lapses after DUE_CLAIM_MS: the next sweep visits the stream and ends the migration.
    stack.clock.advance(10_000);
    await stack.coordinator.sweep(stack.clock.now());
    expect((await migration(stack, p, id)).state).toBe('DEPRECATED');
  });

  it('hands back the claimed streams it has not started once its claim is half gone', async () => {
    stack = makeStack(backend);
    for (let i = 0; i < 6; i++) await createStream(stack, 1, 'slow');
    await stack.coordinator.sweep(stack.clock.now());
    await stack.store.seedDue(await stack.store.listStreams(), stack.clock.now());
    // Each visit takes 2 s of the 10 s claim: three start, the other three stay due for the next call.
    const probe = stack.store.probeStream.bind(stack.store);
    vi.spyOn(stack.store, 'probeStream').mockImplementation(async (p, now) => {
      stack.clock.advance(2_000);
      return probe(p, now);
    });
    const first = await stack.coordinator.sweep(stack.clock.now());
    expect(first).toMatchObject({ streams: 3, backlog: 3 });
    expect(await stack.coordinator.sweep(stack.clock.now())).toMatchObject({ streams: 3, backlog: 0 });
  });

  it('stays within maxCalls and leaves what it could not visit due for the next call', async () => {
    stack = makeStack(backend);
    for (let i = 0; i < 12; i++) await createStream(stack, 1, 'page');
    const seen: number[] = [];
    for (let call = 0; call < 4; call++) {
      const r = await stack.coordinator.sweep(stack.clock.now(), { maxCalls: 11 });
      expect(r.calls).toBeLessThanOrEqual(11);
      seen.push(r.streams);
    }
    // One to claim and two per stream with nothing due: five streams a call until none is left.
    // The first call also seeded the due index (a failed claim, the list, the seed): three.
    expect(seen).toEqual([3, 5, 4, 0]);
    // The numeric signature still bounds by streams.
    await stack.store.seedDue(await stack.store.listStreams(), stack.clock.now());
    expect((await stack.coordinator.sweep(stack.clock.now(), 4)).streams).toBe(4);
  });

  it('expires members of an idle-looking stream once their lease passed, under the lock', async () => {
    stack = makeStack(backend);
    const p = await createStream(stack, 2);
    const team = readingMembers(p, p, 2);
    for (let r = 0; r < 3; r++) await round(stack, team);
    stack.clock.advance(stack.config.memberLeaseTtlMs + 1);
    const report = await stack.coordinator.sweep(stack.clock.now());
    expect(report.groupsChanged).toBe(1);
    const members = (await stack.call('GET', `/coord/v1/monitoring/streams/${p}/groups/${p}/members`)).body
      .members;
    expect(members.map((m: { state: string }) => m.state)).toEqual(['EXPIRED', 'EXPIRED']);
  });

  it('keeps steady heartbeats on the one-round-trip fast path, except while a migration is under way', async () => {
    stack = makeStack(backend);
    const p = await createStream(stack, 4);
    const team = readingMembers(p, p, 2);
    for (let r = 0; r < 6; r++) await round(stack, team);
    const load = vi.spyOn(stack.store, 'load');
    await round(stack, team);
    expect(load).not.toHaveBeenCalled();

    const id = (await scale(stack, p, 6)).body.migrations[0].reshardingId;
    load.mockClear();
    await round(stack, team);
    expect(load).toHaveBeenCalled();
    await roundsUntil(stack, team, async () => (await migration(stack, p, id)).state === 'DEPRECATED');
    for (let r = 0; r < 5; r++) await round(stack, team);
    load.mockClear();
    await round(stack, team);
    expect(load).not.toHaveBeenCalled();
  });
});
