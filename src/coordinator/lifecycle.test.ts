import { describe, expect, it } from 'vitest';
import type { MemberRecord } from '../core/model.js';
import { lifecycleLog, memberChanges, migrationChanges } from './lifecycle.js';

const record = (state: MemberRecord['state']) => ({ state }) as MemberRecord;

describe('lifecycle lines', () => {
  it('reports only members whose state changed, a removed record as null', () => {
    const changes = memberChanges('p', 'g', [
      ['same', record('ACTIVE'), record('ACTIVE')],
      ['untouched', record('ACTIVE'), undefined],
      ['joined', null, record('STARTING')],
      ['removed', record('LEAVING'), null],
    ]);
    expect(changes.map((c) => [c.memberId, c.from, c.to])).toEqual([
      ['joined', null, 'STARTING'],
      ['removed', 'LEAVING', null],
    ]);
  });

  it('reports migrations whose state changed, and new ones from null', () => {
    const m = (reshardingId: string, state: string) => ({ reshardingId, state }) as never;
    expect(
      migrationChanges(
        'p',
        [m('a', 'ACTIVE'), m('b', 'DEPRECATED')],
        [m('a', 'DEPRECATED'), m('b', 'DEPRECATED'), m('c', 'PREPARING')],
      ),
    ).toEqual([
      { type: 'migration', streamPrefix: 'p', reshardingId: 'a', from: 'ACTIVE', to: 'DEPRECATED' },
      { type: 'migration', streamPrefix: 'p', reshardingId: 'c', from: null, to: 'PREPARING' },
    ]);
  });

  it('names joins, leaves, expiries and fences, and skips routine steps', () => {
    const lines: string[] = [];
    const log = lifecycleLog(
      (_, msg) => lines.push(msg),
      () => 0,
    );
    const member = (from: MemberRecord['state'] | null, to: MemberRecord['state'] | null) =>
      log({ type: 'member', streamPrefix: 'p', consumerGroup: 'g', memberId: 'm', from, to });
    member(null, 'STARTING');
    member('STARTING', 'ACTIVE');
    member('EXPIRED', 'STARTING');
    member('ACTIVE', 'LEAVING');
    member('LEAVING', null);
    member('ACTIVE', 'EXPIRED');
    member('ACTIVE', 'FENCED');
    member('EXPIRED', null);
    log({ type: 'sweep', report: null, ms: 1 });
    expect(lines).toEqual([
      'member joined',
      'member joined',
      'member leaving',
      'member left',
      'member expired',
      'member fenced',
    ]);
  });

  it('writes at most a burst per window and counts what it dropped in the next line', () => {
    const lines: Array<Record<string, unknown> | undefined> = [];
    let t = 0;
    const log = lifecycleLog(
      (_, __, fields) => lines.push(fields),
      () => t,
      { burst: 2, windowMs: 1000 },
    );
    const join = (memberId: string) =>
      log({ type: 'member', streamPrefix: 'p', consumerGroup: 'g', memberId, from: null, to: 'STARTING' });
    for (const id of ['a', 'b', 'c', 'd', 'e']) join(id);
    expect(lines.map((f) => f?.memberId)).toEqual(['a', 'b']);
    t = 1000;
    join('f');
    expect(lines[2]).toMatchObject({ memberId: 'f', droppedLifecycleLines: 3 });
    join('g');
    expect(lines[3]).not.toHaveProperty('droppedLifecycleLines');
  });
});
