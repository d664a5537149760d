/**
 * The Store contract, unreadable metadata fails closed: every malformed value answers
 * METADATA_CORRUPT, naming no address, and is left untouched. Declared inside
 * `defineStoreContract`, so every store runs it.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { isCoordinatorError } from '../../src/core/errors.js';
import { groupKeys, streamKeys } from '../../src/store/keys.js';
import { uniquePrefix } from '../support/redis.js';
import { member } from '../support/store-fixtures.js';
import type { ContractTarget } from './contract.js';
import { contractKit } from './contract-kit.js';

/** Declares the unreadable metadata fails closed cases on the target `get` returns. */
export function defineCorruptContract(get: () => ContractTarget): void {
  const { create, add, readReq } = contractKit(get);
  let t: ContractTarget;
  beforeAll(() => {
    t = get();
  });

  describe('unreadable metadata fails closed', () => {
    async function expectCorrupt(run: () => Promise<unknown>): Promise<void> {
      const err = await run().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isCoordinatorError(err) && err.code).toBe('METADATA_CORRUPT');
      expect((err as Error).message).not.toMatch(/redis:\/\/|127\.0\.0\.1/);
    }

    // [what, where, whether a heartbeat's own read sees it]
    it.each<[string, (p: string, ns: string) => [string, string, string], boolean]>([
      [
        'a stream document that is not JSON',
        (p, ns) => [streamKeys(ns, p).stream, 'doc', '{"streamPrefix": '],
        true,
      ],
      ['a stream heartbeat view that is not JSON', (p, ns) => [streamKeys(ns, p).stream, 'hb', 'x'], true],
      ['a group header without a number', (p, ns) => [groupKeys(ns, p, 'g').header, 'ge', 'x'], true],
      ['a member record that is not JSON', (p, ns) => [groupKeys(ns, p, 'g').members, 'm1', '1|{"n":'], true],
      ['a member record without a revision', (p, ns) => [groupKeys(ns, p, 'g').members, 'm1', '{}'], true],
      ['a target that is not a shard list', (p, ns) => [groupKeys(ns, p, 'g').targets, 'm1', '7-3'], true],
      // A heartbeat reads only the time of its live entry, never the progress in it.
      ['a live entry that is not one', (p, ns) => [groupKeys(ns, p, 'g').live, 'm1', '{"at":"soon"}'], false],
    ])('rejects %s and leaves it untouched', async (_n, where, heartbeatSees) => {
      const p = uniquePrefix('bad');
      await create(p);
      await add(p, 1, member('m1'), [0]);
      const [key, field, value] = where(p, t.ns);
      await t.raw.hset(key, field, value);
      await expectCorrupt(() => t.store.load(p, 'all'));
      await expectCorrupt(() => t.store.load(p, ['g']));
      if (heartbeatSees) await expectCorrupt(() => t.store.readMember(readReq(p, 'm1')));
      expect(await t.raw.hget(key, field)).toBe(value);
    });

    it('rejects a group the stream lists that has no header, and a header without its stream', async () => {
      const p = uniquePrefix('lost');
      await create(p);
      await t.raw.del(groupKeys(t.ns, p, 'g').header);
      await expectCorrupt(() => t.store.load(p, 'all'));
      await expectCorrupt(() => t.store.readMember(readReq(p, 'm1')));
      const q = uniquePrefix('orphan');
      await create(q);
      await t.raw.del(streamKeys(t.ns, q).stream);
      await expectCorrupt(() => t.store.load(q, ['g']));
      await expectCorrupt(() => t.store.readMember(readReq(q, 'm1')));
    });

    it('maps a document of the wrong Redis type to METADATA_CORRUPT without echoing the command', async () => {
      const p = uniquePrefix('wrongtype');
      const secret = randomBytes(8).toString('hex');
      await t.raw.set(`${t.ns}:{${p}}:stream`, 'a string, not a hash');
      const err = await t.store
        .tryLock(p, secret, 1000)
        .then(() => t.store.load(p, 'all'))
        .catch((e) => e);
      expect(isCoordinatorError(err)).toBe(true);
      expect(err.code).toBe('METADATA_CORRUPT');
      expect(err.message).not.toContain('command was');
      await t.store.unlock(p, secret);
    });
  });
}
