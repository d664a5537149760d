/**
 * Browser script, part 7: the per-group page — summary cards, shard ownership grid, members
 * with lease countdowns and the migration panel, refreshed together from the monitoring API.
 */

/** The group view. */
export const GROUP_JS = String.raw`
function groupCards(box, ctx) {
  var g = ctx.group;
  var o = ctx.offsets.data;
  var members = (ctx.members.data && ctx.members.data.members) || [];
  var live = members.filter(function (m) { return LIVE_OWNER[m.state]; }).length;
  var removed = Array.isArray(g.removedShards) ? g.removedShards.length : 0;
  fill(box, [
    card('Group state', stateBadge(g.state), 'group-state'),
    card('Shards', fmtNum(g.shardCount) + (removed ? ' + ' + removed + ' draining' : ''), 'group-shards'),
    card('Members (live / all)', fmtNum(live) + ' / ' + fmtNum(members.length), 'group-members'),
    card('Total lag', o ? (o.totalLag === null ? 'unknown' : fmtNum(o.totalLag)) : '—', 'group-lag'),
    card('Total pending', o ? fmtNum(o.totalPendingCount) : '—', 'group-pending'),
    card('Stream length', o ? fmtNum(o.totalStreamLength) : '—', 'group-length'),
    card('Epochs (group / assign.)', fmtNum(g.groupEpoch) + ' / ' + fmtNum(g.assignmentEpoch)),
    card('Metadata version', fmtNum(g.metadataVersion))
  ]);
}

function violationsBox(box, ctx) {
  var v = (ctx.assignments.data && ctx.assignments.data.invariantViolations) || [];
  fill(box, v.length ? alertBox('Invariant violations: ' + v.join('; ')) : null);
}

VIEWS.group = function (r) {
  var base = '/monitoring' + groupPath(r.p, r.g);
  var cards = h('div', { class: 'cards', id: 'group-cards' });
  var violations = h('div', { id: 'violations' });
  var shardBody = h('div', { class: 'panel-body flush', id: 'shards' }, h('p', { class: 'empty', text: 'Loading…' }));
  var memberBody = h('div', { class: 'panel-body flush', id: 'members' }, h('p', { class: 'empty', text: 'Loading…' }));
  var migrationBody = h('div', { class: 'panel-body', id: 'migration' }, h('p', { class: 'muted', text: 'Loading…' }));
  var failure = h('div', { id: 'group-error' });
  var ui = { confirming: null, result: null };
  var el = h('div', null, [
    h('h1', null, [mono(r.p), h('span', { class: 'muted', text: ' / ' }), mono(r.g)]),
    h('p', { class: 'subtitle' }, [
      'Consumer group ', mono(r.g), ' of stream ', mono(r.p), '. ',
      link(messagesHref(r.p, r.g, null), 'Browse messages', 'messages-link')
    ]),
    failure,
    cards,
    violations,
    panel('Shard ownership', 'target owner, current owners, lag and pending per consumable shard', shardBody),
    panel('Members', 'lease countdowns use this browser\'s clock', memberBody),
    panel('Migration', 'resharding of the stream; rollback needs WRITE', migrationBody)
  ]);
  return {
    title: r.p + ' / ' + r.g,
    crumbs: [{ text: 'Groups', href: BASE }, { text: groupLabel(r.p, r.g), mono: true }],
    el: el,
    refresh: async function () {
      var res = await Promise.all([
        api('GET', base),
        optional(api('GET', base + '/members')),
        optional(api('GET', base + '/assignments')),
        optional(api('GET', base + '/offsets')),
        optional(api('GET', base + '/migrations'))
      ]);
      var ctx = {
        p: r.p, g: r.g, group: res[0], members: res[1], assignments: res[2], offsets: res[3], migrations: res[4],
        migrationBody: migrationBody
      };
      fill(failure, null);
      groupCards(cards, ctx);
      violationsBox(violations, ctx);
      renderShardGrid(shardBody, ctx);
      renderMembers(memberBody, ctx);
      renderMigration(migrationBody, ctx, ui, false);
    },
    tick: function (now) { tickLeases(memberBody, now); },
    fail: function (e) { fill(failure, alertBox('Cannot load this group: ' + describeError(e))); }
  };
};
`;
