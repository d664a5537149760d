/**
 * The Store contract, streams and groups: creating, loading, refusing stale commits, revisions,
 * unknown fields and deletion. Declared inside `defineStoreContract`, so every store runs it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { memberOps } from '../../src/core/commit-plan.js';
import type { StreamDoc } from '../../src/core/model.js';
import { groupKeyList, groupKeys } from '../../src/store/keys.js';
import { uniquePrefix } from '../support/redis.js';
import { member, streamDoc, T0 } from '../support/store-fixtures.js';
import type { ContractTarget } from './contract.js';
import { contractKit, head, RETENTION } from './contract-kit.js';

/** Declares the streams and groups cases on the target `get` returns. */
export function defineStreamsContract(get: () => ContractTarget): void {
  const { create, commit, add, readReq, dump } = contractKit(get);
  let t: ContractTarget;
  beforeAll(() => {
    t = get();
  });

  describe('streams and groups', () => {
    it('creates a stream with its groups and loads them back whole', async () => {
      const p = uniquePrefix('create');
      expect(await create(p, ['b', 'a'])).toBe(1);
      const snap = await t.store.load(p, 'all');
      expect(snap?.revision).toBe(1);
      expect(snap?.stream).toEqual(streamDoc(p, ['a', 'b']));
      expect(snap?.groups.a).toMatchObject({
        streamPrefix: p,
        consumerGroup: 'a',
        groupEpoch: 1,
        assignmentEpoch: 1,
        metadataVersion: 1,
        state: 'EMPTY',
        members: {},
        targetAssignments: {},
        metadataCorrection: null,
      });
      expect(Object.keys((await t.store.load(p, ['b']))?.groups ?? {})).toEqual(['b']);
    });

    it('returns null for a stream that does not exist', async () => {
      expect(await t.store.load(uniquePrefix('none'), 'all')).toBeNull();
      expect((await t.store.readMember(readReq(uniquePrefix('none'), 'm'))).kind).toBe('no-stream');
    });

    it('loads every group whatever characters its name holds', async () => {
      const p = uniquePrefix('names/ü');
      const names = ['billing', 'grüße', 'x:{y}', 'a b%c'];
      await create(p, names);
      expect(Object.keys((await t.store.load(p, 'all'))?.groups ?? {}).sort()).toEqual([...names].sort());
      const rev = 1;
      await t.store.commit({
        prefix: p,
        expect: { rev },
        groups: [
          { name: 'x:{y}', ops: memberOps('m✓', null, member('m✓'), { owners: new Map(), ...RETENTION }) },
        ],
      });
      expect((await t.store.load(p, ['x:{y}']))?.groups['x:{y}']?.members['m✓']?.state).toBe('ACTIVE');
    });

    it('refuses to create an existing stream and any commit against a stale or missing one, writing nothing', async () => {
      const p = uniquePrefix('stale');
      await create(p);
      const before = await dump(p);
      const doc = streamDoc(p, ['g'], { shardCount: 9 });
      expect(
        (
          await t.store.commit({
            prefix: p,
            expect: 'absent',
            stream: { doc, head: head(doc) },
            groups: [],
          })
        ).ok,
      ).toBe(false);
      expect(
        (
          await t.store.commit({
            prefix: p,
            expect: { rev: 7 },
            stream: { doc, head: head(doc) },
            groups: [],
          })
        ).ok,
      ).toBe(false);
      expect(
        (await commit(p, 2, memberOps('m1', null, member('m1'), { owners: new Map(), ...RETENTION }))).ok,
      ).toBe(false);
      expect(await dump(p)).toEqual(before);
      expect((await commit(uniquePrefix('gone'), 1, [])).ok).toBe(false);
    });

    it('moves the stream revision only when its document is written', async () => {
      const p = uniquePrefix('rev');
      await create(p);
      await add(p, 1, member('m1'), [0, 1]);
      expect((await t.store.load(p, []))?.revision).toBe(1);
      const doc = streamDoc(p, ['g'], { shardCount: 6 });
      const r = await t.store.commit({
        prefix: p,
        expect: { rev: 1 },
        stream: { doc, head: head(doc) },
        groups: [],
      });
      expect(r).toMatchObject({ ok: true, streamRev: 2 });
      expect((await t.store.load(p, []))?.stream.shardCount).toBe(6);
    });

    it('keeps unknown fields of a stream document written by a newer version', async () => {
      const p = uniquePrefix('newer');
      const doc = { ...streamDoc(p, ['g']), futureField: { x: 1 } } as StreamDoc;
      await t.store.commit({
        prefix: p,
        expect: 'absent',
        stream: { doc, head: head(doc) },
        groups: [
          { name: 'g', create: { groupEpoch: 1, assignmentEpoch: 1, metadataVersion: 1, at: T0 }, ops: [] },
        ],
      });
      expect((await t.store.load(p, []))?.stream).toMatchObject({ futureField: { x: 1 } });
    });

    it('deletes a group with every key of it, and then the stream', async () => {
      const p = uniquePrefix('del');
      await create(p, ['g', 'h']);
      await add(p, 1, member('m1', { currentAssignment: [0] }), [0]);
      const doc = streamDoc(p, ['h']);
      expect(
        (
          await t.store.commit({
            prefix: p,
            expect: { rev: 1 },
            stream: { doc, head: head(doc) },
            groups: [{ name: 'g', delete: true, ops: [] }],
          })
        ).ok,
      ).toBe(true);
      for (const k of groupKeyList(groupKeys(t.ns, p, 'g'))) expect(await t.raw.exists(k)).toBe(0);
      expect(Object.keys((await t.store.load(p, 'all'))?.groups ?? {})).toEqual(['h']);
      expect(
        (
          await t.store.commit({
            prefix: p,
            expect: { rev: 2 },
            stream: null,
            groups: [{ name: 'h', delete: true, ops: [] }],
          })
        ).ok,
      ).toBe(true);
      expect(await t.store.load(p, 'all')).toBeNull();
    });
  });
}
