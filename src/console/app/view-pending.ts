/**
 * The pending page of a group: per consumable shard (draining ones included,
 * docs/protocol.md#resharding) what Redis holds delivered and not acknowledged, and its oldest
 * entry (`GET …/lag`); then what each member last reported holding per shard, with its last
 * delivered and acknowledged ids (`GET …/consumption`). Per-record delivery counts and the
 * dead-letter stream are not read by the API (docs/console.md#pending).
 */
import type { GroupLagJson } from '../../client/admin-client.js';
import { describeError, type Optional, optional } from './api.js';
import type { ConsumerShardProgressJson, GroupResponseJson } from './api-types.js';
import { admin, consumption } from './client.js';
import { type Child, fill, h } from './dom.js';
import { fmtDuration, fmtNum, fmtTime, shardIndexOf } from './format.js';
import { BASE, groupHref, groupLabel, link, messagesHref } from './router.js';
import type { View } from './shell.js';
import { consumableOf } from './view-shards.js';
import { alertBox, badge, mono, panel, stateBadge, table, td } from './widgets.js';

type Progress = ConsumerShardProgressJson;

const dash = () => h('span', { class: 'muted', text: '—' });

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
  const ownerBody = loading('pending-owners');
  const failure = h('div', { id: 'pending-error' });
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
        'Records delivered to the group and not acknowledged yet, per consumable shard, and who holds them. ',
        'Delivery counts of single records and dead letters are not read by the API yet.',
      ]),
      failure,
      panel('Per shard', 'read from Redis: XINFO GROUPS and the XPENDING summary (GET …/lag)', shardBody),
      panel('Per member', 'what each member last reported in its heartbeats (GET …/consumption)', ownerBody),
    ]),
    refresh: async () => {
      const [group, lag, reports] = await Promise.all([
        admin.monitoringGroup(r.p, r.g),
        optional(admin.lag(r.p, r.g)),
        optional(consumption(r.p, r.g)),
      ]);
      fill(failure, null);
      fill(shardBody, shardTable(r.p, r.g, group, lag, reports.data?.progress || []));
      fill(ownerBody, ownerTable(reports));
    },
    fail: (e) => {
      const why = describeError(e);
      fill(failure, alertBox('Cannot load this group: ' + why));
      // Each panel says why it is empty rather than "Loading…" (an unknown group, a 403).
      fill(
        shardBody,
        h('div', { class: 'pad-top panel-error' }, alertBox('Pending counts are unavailable: ' + why)),
      );
      fill(
        ownerBody,
        h('div', { class: 'pad-top panel-error' }, alertBox('Member reports are unavailable: ' + why)),
      );
    },
  };
}
