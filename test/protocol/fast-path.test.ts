import { describe, expect, it } from 'vitest';
import { durablyEqual } from '../../src/core/group-equality.js';
import type { HeartbeatInput } from '../../src/core/heartbeat-types.js';
import { CONFIG, Driver, hb } from '../support/protocol-driver.js';

/**
 * Sends `req`, then the same request again at `d.now + laterMs`: `fast` says whether the store
 * answered the repeat in one round trip (the fingerprint the first answer recorded still held).
 */
async function sendTwice(d: Driver, req: HeartbeatInput, laterMs = 0) {
  const response = await d.send(req);
  const group = d.group;
  d.advance(laterMs);
  const hits = d.fastPathHits();
  const repeat = await d.send(req);
  return { response, repeat, fast: d.fastPathHits() > hits, unchanged: durablyEqual(group, d.group) };
}

/** Whether the store answers `req` from its fast path now. */
async function answeredFast(d: Driver, req: HeartbeatInput): Promise<boolean> {
  const hits = d.fastPathHits();
  await d.send(req);
  return d.fastPathHits() > hits;
}

describe('fast path > when the store records a steady answer', () => {
  it('records none while the next steady request would still change the group', async () => {
    const d = await Driver.open(2);
    // Right after the join the member has not reported its shards yet (RECONCILING → STABLE).
    const join = hb('A', { epoch: 0, mv: 0 });
    expect((await sendTwice(d, join)).fast).toBe(false);
  });

  it('records none right after an answer that moved the epoch (the previous epoch is still remembered)', async () => {
    const d = await Driver.open(2);
    await d.joinAndSettle('A');
    await d.beat('B', { epoch: 0, mv: 0 });
    expect((await sendTwice(d, hb('A', { epoch: 2, mv: 2, owned: [0, 1] }))).fast).toBe(false);
  });

  it('records none for answers other than OK', async () => {
    const d = await Driver.open(2);
    await d.joinAndSettle('A');
    const stale = hb('A', { epoch: 1, mv: 2, owned: [0, 1] });
    const { response, fast } = await sendTwice(d, stale);
    expect(response.status).toBe('FENCED_MEMBER_EPOCH');
    expect(fast).toBe(false);
  });

  it('answers the steady request in steady state from the fast path, and the answer is a no-op', async () => {
    const d = await Driver.open(2);
    await d.joinAndSettle('A');
    const req = hb('A', { epoch: 2, mv: 2, owned: [0, 1], progress: [0, 1] });
    const { response, repeat, fast, unchanged } = await sendTwice(d, req, 2000);
    expect(fast).toBe(true);
    expect(repeat).toEqual(response);
    expect(unchanged).toBe(true);
    expect(d.member('A').memberLeaseExpiresAt).toBe(d.now + CONFIG.memberLeaseTtlMs);
  });

  it('answers the next steady request from the fast path after a revoke is acknowledged', async () => {
    const d = await Driver.open(2);
    await d.joinAndSettle('A');
    await d.beat('B', { epoch: 0, mv: 0 });
    await d.beat('A', { epoch: 2, mv: 2, owned: [0, 1] });
    await d.beat('A', {
      epoch: 3,
      mv: 3,
      owned: [0],
      revoking: [{ shard: 1, state: 'REVOKED', inFlight: 0 }],
    });
    const steady = hb('A', { epoch: 3, mv: 3, owned: [0] });
    const { response, repeat, fast, unchanged } = await sendTwice(d, steady);
    expect(fast).toBe(true);
    expect(repeat).toEqual(response);
    expect(unchanged).toBe(true);
  });

  it('records none while a metadata-correction round keeps answering REVOKE_PENDING', async () => {
    const d = await Driver.open(2);
    await d.joinAndSettle('A');
    await d.beat('B', { epoch: 0, mv: 0 });
    await d.beat('A', { epoch: 2, mv: 2, owned: [0, 1] });
    await d.beat('A', { epoch: 3, mv: 3, owned: [0] });
    await d.beat('B', { epoch: 3, mv: 3, owned: (await d.beat('B', { epoch: 3, mv: 3 })).assignedShards });
    await d.arrange((g) => ({ ...g, metadataVersion: 2 }));
    await d.beat('A', { epoch: 3, mv: 3, owned: [0] }); // opens the round
    const { response, fast } = await sendTwice(d, hb('A', { epoch: 3, mv: 2, owned: [0] }));
    expect(response.status).toBe('REVOKE_PENDING');
    expect(fast).toBe(false);
  });
});

describe('fast path > what the store checks before answering from it', () => {
  /** A settled member A, its steady request, already answered once (its fingerprint recorded). */
  async function settled() {
    const d = await Driver.open(2);
    await d.joinAndSettle('A');
    const req = hb('A', { epoch: 2, mv: 2, owned: [0, 1] });
    await d.send(req);
    return { d, req };
  }

  it('answers a settled member from it until its lease has passed', async () => {
    const { d, req } = await settled();
    expect(await answeredFast(d, req)).toBe(true);
    d.advance(10 * CONFIG.heartbeatIntervalMs);
    expect(await answeredFast(d, req)).toBe(false);
  });

  it('keeps answering steady members across many leases, re-arming the cached next-due time', async () => {
    const d = await Driver.open(2);
    await d.joinAndSettle('A');
    const req = hb('A', { epoch: 2, mv: 2, owned: [0, 1], progress: [0, 1] });
    await d.send(req);
    // The commit cached the earliest lease, deadline or timer: the lease it just granted.
    const first = Number(await d.cachedNextDue());
    expect(first).toBeGreaterThan(d.now);
    expect(first).toBeLessThanOrEqual(d.now + CONFIG.memberLeaseTtlMs);
    for (let i = 0; i < (3 * CONFIG.memberLeaseTtlMs) / CONFIG.heartbeatIntervalMs; i++) {
      d.advance(CONFIG.heartbeatIntervalMs);
      expect(await answeredFast(d, req)).toBe(true);
      // Renewals moved the lease later; once the cached time passed, an answer set it again.
      expect(Number(await d.cachedNextDue())).toBeGreaterThan(d.now);
    }
  });

  it('refuses it once the stream was resharded', async () => {
    const { d, req } = await settled();
    await d.scale(3);
    expect(d.stream.activeReshardingId).not.toBeNull();
    expect(await answeredFast(d, req)).toBe(false);
  });

  it('refuses it while a metadata-correction round is open', async () => {
    const { d, req } = await settled();
    await d.arrange((g) => ({ ...g, metadataVersion: 1 }));
    const response = await d.send(req);
    expect(response.status).toBe('SYNC_METADATA');
    expect(await answeredFast(d, req)).toBe(false);
  });

  it('refuses it while a rebalance deadline is due', async () => {
    const { d, req } = await settled();
    await d.arrange((g) => {
      g.members.Z = {
        ...d.member('A'),
        memberId: 'Z',
        currentAssignment: [],
        rebalanceDeadlineAt: d.now - 1,
      };
    });
    expect(await answeredFast(d, req)).toBe(false);
  });

  /** A member record like A's, holding nothing, under id `id`. */
  const other = (d: Driver, id: string) => ({
    ...d.member('A'),
    memberId: id,
    currentAssignment: [],
    grantedAssignment: [],
  });

  it('refuses it once another member lease has passed', async () => {
    const { d, req } = await settled();
    await d.arrange((g) => {
      g.members.Z = { ...other(d, 'Z'), memberLeaseExpiresAt: d.now - 1 };
    });
    expect(await answeredFast(d, req)).toBe(false);
  });

  it('refuses it while a blocking fence is due to lapse', async () => {
    const { d, req } = await settled();
    await d.arrange((g) => {
      g.members.Z = { ...other(d, 'Z'), state: 'FENCED', fence: 'BLOCKING', memberLeaseExpiresAt: d.now - 2 };
    });
    expect(await answeredFast(d, req)).toBe(false);
  });

  it('refuses it while a prune is due', async () => {
    const { d, req } = await settled();
    await d.arrange((g) => {
      g.members.Z = {
        ...other(d, 'Z'),
        state: 'EXPIRED',
        fence: null,
        lastHeartbeatAt: d.now - CONFIG.staleMemberRetentionMs,
      };
    });
    expect(await answeredFast(d, req)).toBe(false);
  });
});
