/**
 * The pending page of a group: per consumable shard (draining ones included,
 * docs/protocol.md#resharding) what Redis holds delivered and not acknowledged, and its oldest
 * entry (`GET …/lag`); the pending entries of the shard the operator picks, each with its holder,
 * idle time and delivery count (`GET …/pending-entries`, a page at a time); the group's dead
 * letters, newest first (`GET …/dead-letters`); then what each member last reported holding per
 * shard, with its last delivered and acknowledged ids (`GET …/consumption`) (docs/console.md#pending).
 * The entries and dead-letter tables are in pending-records.ts.
 */
import type { GroupLagJson } from '../../client/admin-client.js';
import { describeError, type Optional, optional } from './api.js';
import type { ConsumerShardProgressJson, GroupResponseJson } from './api-types.js';
import { admin, consumption } from './client.js';
import { type Child, fill, h } from './dom.js';
import { fmtDuration, fmtNum, fmtTime, shardIndexOf } from './format.js';
import { DEAD_LETTER_AT, deadLetterTable, entriesTable, PAGE } from './pending-records.js';
import { BASE, groupHref, groupLabel, link, messagesHref } from './router.js';
import type { View } from './shell.js';
import { refreshNow } from './shell.js';
import { consumableOf } from './view-shards.js';
import { alertBox, badge, dash, mono, panel, stateBadge, table, td } from './widgets.js';

type Progress = ConsumerShardProgressJson;

/** Drain states of the shards a scale-in removed, by index. */
function drainStates(group: GroupResponseJson): Map<number, string> {
  const out = new Map<number, string>();
  for (const r of group.removedShards || []) {
    const i = shardIndexOf(r);
    if (i !== null) out.set(i, r.state || 'DRAINING');
  }
  return out;
}

/** A member as its reports name it: its name when it gave one, with its id below. */
function memberCell(p: Progress): Child {
  if (!p.memberName || p.memberName === p.memberId) return mono(p.memberId, 'member');
  return [h('div', { class: 'member-name', text: p.memberName }), mono(p.memberId, 'member small muted')];
}

/** One row per consumable shard: Redis's pending count and oldest entry, and who reports it. */
function shardTable(
  p: string,
  g: string,
  group: GroupResponseJson,
  lag: Optional<GroupLagJson | null>,
  progress: readonly Progress[],
  pick: (shard: number) => void,
): Child {
  const drains = drainStates(group);
  const byShard = new Map((lag.data?.shards || []).map((s) => [s.shardIndex, s]));
  const owners = new Map<number, Progress[]>();
  for (const r of progress) {
    const i = shardIndexOf(r.shard);
    if (i !== null) owners.set(i, [...(owners.get(i) ?? []), r]);
  }
  const rows = consumableOf(group).map((i) => {
    const s = byShard.get(i);
    const drain = drains.get(i);
    const reporting = owners.get(i) ?? [];
    return h('tr', { 'data-shard': String(i) }, [
      td([
        link(messagesHref(p, g, i), mono(':' + i, 'shard-id')),
        drain ? [' ', badge(drain.toLowerCase(), 'warn')] : null,
      ]),
      td(s ? fmtNum(s.pending) : '—', 'num pending-count'),
      td(s?.oldestPendingId ? mono(s.oldestPendingId, 'oldest-id') : dash()),
      td(s && s.oldestPendingAgeMs !== null ? fmtDuration(s.oldestPendingAgeMs) : '—', 'num oldest-age'),
      td(s ? (s.lag === null ? 'unknown' : fmtNum(s.lag)) : '—', 'num'),
      td(
        reporting.length
          ? h(
              'span',
              { class: 'chips owners' },
              reporting.map((r) => h('span', { class: 'chip', text: r.memberName || r.memberId })),
            )
          : dash(),
      ),
      td(
        h('button', {
          type: 'button',
          class: 'show-entries',
          'data-shard': String(i),
          text: 'Entries',
          onclick: () => pick(i),
        }),
      ),
    ]);
  });
  return [
    lag.error ? alertBox('Pending counts are unavailable: ' + describeError(lag.error), 'warn') : null,
    rows.length
      ? table(
          [
            'Shard',
            { text: 'Pending', cls: 'num' },
            'Oldest pending id',
            { text: 'Oldest pending age', cls: 'num' },
            { text: 'Lag', cls: 'num' },
            'Reported by',
            '',
          ],
          rows,
        )
      : h('p', { class: 'empty', text: 'This group has no consumable shards.' }),
  ];
}

/** One row per member and shard it last reported on. */
function ownerTable(reports: Optional<{ progress: Progress[] } | null>): Child {
  if (reports.error) {
    return alertBox('Member reports are unavailable: ' + describeError(reports.error));
  }
  const progress = reports.data?.progress || [];
  if (!progress.length) {
    return h('p', { class: 'empty', text: 'No member has reported progress on a shard yet.' });
  }
  return table(
    [
      'Member',
      'State',
      'Shard',
      { text: 'Pending in its hands', cls: 'num' },
      'Last delivered id',
      'Last acknowledged id',
      'Reported at',
    ],
    progress.map((r) =>
      h('tr', { 'data-member': r.memberId, 'data-shard': String(shardIndexOf(r.shard)) }, [
        td(memberCell(r)),
        td(stateBadge(r.memberState)),
        td(mono(':' + shardIndexOf(r.shard))),
        td(fmtNum(r.pendingCount ?? 0), 'num reported-pending'),
        td(r.lastDeliveredId ? mono(r.lastDeliveredId) : dash()),
        td(r.lastAckedId ? mono(r.lastAckedId) : dash()),
        td(r.updatedAt ? fmtTime(r.updatedAt) : dash()),
      ]),
    ),
  );
}

/** The pending page of group `g` of stream `p`. */
export function pendingView(r: { p: string; g: string }): View {
  const loading = (id: string) =>
    h('div', { class: 'panel-body flush', id }, h('p', { class: 'empty', text: 'Loading…' }));
  const shardBody = loading('pending-shards');
  const entriesBody = loading('pending-entries');
  const deadBody = loading('dead-letters');
  const ownerBody = loading('pending-owners');
  const failure = h('div', { id: 'pending-error' });
  // The picked shard and the page of each list; kept across refreshes.
  const st = {
    shard: null as number | null,
    start: null as string | null,
    startsSeen: [] as Array<string | null>,
    nextStart: null as string | null,
    deadCursor: null as string | null,
    deadSeen: [] as Array<string | null>,
    deadNext: null as string | null,
    options: '',
  };
  const shardSelect = h('select', { id: 'pending-entry-shard' });
  const entriesFirst = h('button', { type: 'button', id: 'entries-first', text: 'First page' });
  const entriesNext = h('button', { type: 'button', id: 'entries-next', text: 'Next page →' });
  const entriesInfo = h('p', { class: 'note', id: 'entries-info' });
  const deadFirst = h('button', { type: 'button', id: 'dead-first', text: 'Newest' });
  const deadNext = h('button', { type: 'button', id: 'dead-next', text: 'Older →' });
  const deadInfo = h('p', { class: 'note', id: 'dead-info' });

  function sync(): void {
    entriesFirst.disabled = st.start === null;
    entriesNext.disabled = !st.nextStart;
    deadFirst.disabled = st.deadCursor === null;
    deadNext.disabled = !st.deadNext;
  }
  function pick(shard: number): void {
    st.shard = shard;
    st.start = null;
    st.startsSeen = [];
    st.nextStart = null;
    shardSelect.value = String(shard);
    sync();
    void refreshNow();
  }
  shardSelect.addEventListener('change', () => pick(Number(shardSelect.value)));
  entriesFirst.addEventListener('click', () => st.shard !== null && pick(st.shard));
  entriesNext.addEventListener('click', () => {
    if (!st.nextStart) return;
    st.startsSeen.push(st.start);
    st.start = st.nextStart;
    sync();
    void refreshNow();
  });
  deadFirst.addEventListener('click', () => {
    st.deadCursor = null;
    st.deadSeen = [];
    sync();
    void refreshNow();
  });
  deadNext.addEventListener('click', () => {
    if (!st.deadNext) return;
    st.deadSeen.push(st.deadCursor);
    st.deadCursor = st.deadNext;
    sync();
    void refreshNow();
  });
  sync();

  /** The picked shard: kept while consumable, else the first with entries pending, else the first. */
  function chooseShard(shards: number[], lag: GroupLagJson | null): number | null {
    if (st.shard !== null && shards.includes(st.shard)) return st.shard;
    st.start = null;
    st.startsSeen = [];
    const busy = (lag?.shards || []).find((s) => s.pending > 0 && shards.includes(s.shardIndex));
    return busy ? busy.shardIndex : (shards[0] ?? null);
  }

  function renderOptions(shards: number[]): void {
    const key = shards.join(',') + '/' + String(st.shard);
    if (key === st.options) return;
    st.options = key;
    fill(
      shardSelect,
      shards.map((i) => h('option', { value: String(i), selected: i === st.shard, text: r.p + ':' + i })),
    );
  }

  const allUnavailable = (why: string) => {
    const says = (what: string) =>
      h('div', { class: 'pad-top panel-error' }, alertBox(what + ' are unavailable: ' + why));
    fill(shardBody, says('Pending counts'));
    fill(entriesBody, says('Pending entries'));
    fill(deadBody, says('Dead letters'));
    fill(ownerBody, says('Member reports'));
  };

  return {
    title: 'Pending · ' + r.p + ' / ' + r.g,
    crumbs: [
      { text: 'Groups', href: BASE },
      { text: groupLabel(r.p, r.g), href: groupHref(r.p, r.g), mono: true },
      { text: 'Pending' },
    ],
    el: h('div', null, [
      h('h1', null, [
        'Pending entries of ',
        mono(r.p),
        h('span', { class: 'muted', text: ' / ' }),
        mono(r.g),
      ]),
      h('p', { class: 'subtitle' }, [
        'Records delivered to the group and not acknowledged yet, per consumable shard, and who holds them; ',
        'the entries of one shard with their delivery counts, and the records consumers gave up on (dead letters). ',
        'Nothing here claims, acknowledges or moves anything.',
      ]),
      failure,
      panel('Per shard', 'read from Redis: XINFO GROUPS and the XPENDING summary (GET …/lag)', shardBody),
      panel(
        'Pending entries',
        'one shard, oldest first: holder, idle time, deliveries (XPENDING; GET …/pending-entries)',
        h('div', null, [
          h('div', { class: 'panel-body' }, [
            h('div', { class: 'controls' }, [
              h('label', null, ['Shard', shardSelect]),
              h('span', { class: 'spacer' }),
              entriesFirst,
              entriesNext,
            ]),
            entriesInfo,
          ]),
          entriesBody,
        ]),
      ),
      panel(
        'Dead letters',
        'newest first, from the dead-letter stream (XREVRANGE; GET …/dead-letters)',
        h('div', null, [
          h('div', { class: 'panel-body' }, [
            h('div', { class: 'controls' }, [h('span', { class: 'spacer' }), deadFirst, deadNext]),
            deadInfo,
          ]),
          deadBody,
        ]),
      ),
      panel('Per member', 'what each member last reported in its heartbeats (GET …/consumption)', ownerBody),
    ]),
    refresh: async () => {
      const [group, lag, reports] = await Promise.all([
        admin.monitoringGroup(r.p, r.g),
        optional(admin.lag(r.p, r.g)),
        optional(consumption(r.p, r.g)),
      ]);
      const shards = consumableOf(group);
      st.shard = chooseShard(shards, lag.data);
      renderOptions(shards);
      const shard = st.shard;
      const [entries, dead] = await Promise.all([
        shard === null
          ? null
          : optional(admin.pendingEntries(r.p, r.g, { shard, count: PAGE, start: st.start })),
        optional(admin.deadLetters(r.p, r.g, { count: PAGE, cursor: st.deadCursor })),
      ]);
      st.nextStart = entries?.data?.nextCursor ?? null;
      st.deadNext = dead.data?.nextCursor ?? null;
      sync();
      fill(failure, null);
      fill(shardBody, shardTable(r.p, r.g, group, lag, reports.data?.progress || [], pick));
      if (entries === null) {
        fill(entriesInfo, null);
        fill(entriesBody, h('p', { class: 'empty', text: 'This group has no consumable shards.' }));
      } else {
        const page = st.startsSeen.length + 1;
        fill(entriesInfo, [
          'Shard ',
          mono(r.p + ':' + shard),
          ' · page ' + page,
          entries.data ? ' · ' + fmtNum(entries.data.entries.length) + ' entries' : null,
          st.nextStart ? ' · more pending' : null,
          ' · marked: ' + DEAD_LETTER_AT + ' deliveries or more (the consumer SDK’s default maxDeliveries)',
        ]);
        fill(entriesBody, entriesTable(entries, st.start === null));
      }
      fill(
        deadInfo,
        dead.data
          ? [
              'From ',
              mono(dead.data.deadLetterKey),
              ' · page ' + (st.deadSeen.length + 1),
              st.deadNext ? ' · older ones may follow' : null,
            ]
          : null,
      );
      fill(deadBody, deadLetterTable(r.p, r.g, dead, st.deadCursor === null));
      fill(ownerBody, ownerTable(reports));
    },
    fail: (e) => {
      const why = describeError(e);
      fill(failure, alertBox('Cannot load this group: ' + why));
      // Each panel says why it is empty rather than "Loading…" (an unknown group, a 403).
      allUnavailable(why);
    },
  };
}
