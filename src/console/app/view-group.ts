/**
 * The per-group page: summary cards, shard ownership grid, members with lease countdowns and the
 * migration panel, refreshed together from the monitoring API.
 */

import { isLive } from '../../core/model.js';
import { describeError, optional } from './api.js';
import { admin } from './client.js';
import { fill, h } from './dom.js';
import { fmtNum } from './format.js';
import type { GroupData } from './group-data.js';
import { offsetsResetForm } from './offsets-reset.js';
import type { RollbackUi } from './rollback.js';
import { BASE, groupLabel, link, messagesHref, pendingHref } from './router.js';
import type { View } from './shell.js';
import { scaleForm } from './stream-actions.js';
import { groupCharts } from './view-charts.js';
import { renderMembers, tickLeases } from './view-members.js';
import { renderMigration } from './view-migration.js';
import { renderShardGrid } from './view-shards.js';
import { alertBox, card, mono, panel, stateBadge } from './widgets.js';

function groupCards(box: HTMLElement, ctx: GroupData): void {
  const g = ctx.group;
  const o = ctx.offsets.data;
  const members = ctx.members.data?.members || [];
  // Live as the protocol counts it: LEAVING members are departing, EXPIRED and FENCED gone.
  const live = members.filter((m) => isLive(m.state)).length;
  const removed = Array.isArray(g.removedShards) ? g.removedShards.length : 0;
  fill(box, [
    card('Group state', stateBadge(g.state), 'group-state'),
    card('Shards', fmtNum(g.shardCount) + (removed ? ' + ' + removed + ' draining' : ''), 'group-shards'),
    card('Members (live / all)', fmtNum(live) + ' / ' + fmtNum(members.length), 'group-members'),
    card('Total lag', o ? (o.totalLag === null ? 'unknown' : fmtNum(o.totalLag)) : '—', 'group-lag'),
    card('Total pending', o ? fmtNum(o.totalPendingCount) : '—', 'group-pending'),
    card('Stream length', o ? fmtNum(o.totalStreamLength) : '—', 'group-length'),
    card('Epochs (group / assign.)', fmtNum(g.groupEpoch) + ' / ' + fmtNum(g.assignmentEpoch)),
    card('Metadata version', fmtNum(g.metadataVersion)),
  ]);
}

function violationsBox(box: HTMLElement, ctx: GroupData): void {
  const v = ctx.assignments.data?.invariantViolations || [];
  fill(box, v.length ? alertBox('Invariant violations: ' + v.join('; ')) : null);
}

function loading(id: string, cls = 'panel-body flush', text = 'empty'): HTMLDivElement {
  return h('div', { class: cls, id }, h('p', { class: text, text: 'Loading…' }));
}

function panelError(what: string, why: string): HTMLElement {
  return h('div', { class: 'pad-top panel-error' }, alertBox(what + ' are unavailable: ' + why));
}

/** The group view of stream `p`, group `g`. */
export function groupView(r: { p: string; g: string }): View {
  const cards = h('div', { class: 'cards', id: 'group-cards' });
  const violations = h('div', { id: 'violations' });
  const shardBody = loading('shards');
  const memberBody = loading('members');
  const migrationBody = loading('migration', 'panel-body', 'muted');
  const charts = groupCharts(r.p, r.g);
  const scale = scaleForm(r.p);
  const failure = h('div', { id: 'group-error' });
  const ui: RollbackUi = { confirming: null, result: null };
  let loaded = false;
  const el = h('div', null, [
    h('h1', null, [mono(r.p), h('span', { class: 'muted', text: ' / ' }), mono(r.g)]),
    h('p', { class: 'subtitle' }, [
      'Consumer group ',
      mono(r.g),
      ' of stream ',
      mono(r.p),
      '. ',
      link(messagesHref(r.p, r.g, null), 'Browse messages', 'messages-link'),
      ' · ',
      link(pendingHref(r.p, r.g), 'Pending entries', 'pending-link'),
    ]),
    failure,
    cards,
    violations,
    panel('Lag and throughput', 'the last 15 minutes this tab has seen, from GET …/lag', charts.el),
    panel('Shard ownership', 'target owner, current owners, lag and pending per consumable shard', shardBody),
    panel('Members', "lease countdowns use this browser's clock", memberBody),
    panel('Migration', 'resharding of the stream; rollback needs WRITE', migrationBody),
    panel(
      'Scale the stream',
      'POST /coord/v1/streams/{prefix}/scale · WRITE',
      h('div', { class: 'panel-body' }, scale.el),
    ),
    panel(
      'Reset offsets',
      'replay or skip records: POST …/offsets/reset · WRITE',
      h('div', { class: 'panel-body' }, offsetsResetForm(r.p, r.g)),
    ),
  ]);
  return {
    title: r.p + ' / ' + r.g,
    crumbs: [
      { text: 'Groups', href: BASE },
      { text: groupLabel(r.p, r.g), mono: true },
    ],
    el,
    refresh: async () => {
      const [group, members, assignments, offsets, migrations, lag] = await Promise.all([
        admin.monitoringGroup(r.p, r.g),
        optional(admin.members(r.p, r.g)),
        optional(admin.assignments(r.p, r.g)),
        optional(admin.offsets(r.p, r.g)),
        optional(admin.migrations(r.p, r.g)),
        optional(admin.lag(r.p, r.g)),
      ]);
      const ctx: GroupData = {
        p: r.p,
        g: r.g,
        group,
        members,
        assignments,
        offsets,
        migrations,
        lag,
        migrationBody,
      };
      fill(failure, null);
      loaded = true;
      scale.current(group.shardCount);
      groupCards(cards, ctx);
      violationsBox(violations, ctx);
      renderShardGrid(shardBody, ctx);
      renderMembers(memberBody, ctx);
      renderMigration(migrationBody, ctx, ui, false);
      if (lag.data) charts.update(lag.data);
      else charts.fail(describeError(lag.error));
    },
    tick: (now) => tickLeases(memberBody, now),
    fail: (e) => {
      const why = describeError(e);
      fill(failure, alertBox('Cannot load this group: ' + why));
      charts.fail(why);
      if (loaded) return;
      // Nothing was ever shown: no panel may go on saying "Loading…" (an unknown group, a 403).
      fill(cards, null);
      fill(shardBody, panelError('Shards', why));
      fill(memberBody, panelError('Members', why));
      fill(migrationBody, panelError('Migration details', why));
    },
  };
}
