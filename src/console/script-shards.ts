/**
 * Browser script, part 4: the shard ownership grid of a group — one tile per consumable shard
 * with its target and current owners, pending/revoking flags, lag and pending from `/offsets`,
 * and removed (draining) shards marked.
 */

/** Shard grid rendering (used by the group view). */
export const SHARDS_JS = `
var LIVE_OWNER = { ACTIVE: true, STARTING: true, LEAVING: true };

// member -> [shard] into shard -> [member].
function invertAssignments(byMember, keep) {
  var out = {};
  if (!byMember || typeof byMember !== 'object') return out;
  Object.keys(byMember).sort().forEach(function (member) {
    if (keep && !keep(member)) return;
    shardList(byMember[member]).forEach(function (s) {
      (out[s] = out[s] || []).push(member);
    });
  });
  return out;
}

function consumableOf(group) {
  if (group && Array.isArray(group.consumableShards)) return shardList(group.consumableShards);
  var shards = range(0, (group && group.shardCount) || 0);
  ((group && group.removedShards) || []).forEach(function (r) {
    var i = shardIndexOf(r);
    if (i !== null && shards.indexOf(i) < 0) shards.push(i);
  });
  return shards.sort(function (a, b) { return a - b; });
}

// Joins the group, assignments, members and offsets into one row per consumable shard.
function shardRows(group, assignments, members, offsets) {
  var states = null;
  if (members) {
    // Prototype-free: a member named __proto__ or constructor is an ordinary key.
    states = Object.create(null);
    (members.members || []).forEach(function (m) { states[m.memberId] = m.state; });
  }
  var live = states ? function (id) { return !!LIVE_OWNER[states[id]]; } : null;
  var a = assignments || {};
  var targets = invertAssignments(a.targetAssignment);
  var currents = invertAssignments(a.currentAssignments, live);
  var revoking = invertAssignments(a.revokeProgress);
  var off = {};
  ((offsets && offsets.shards) || []).forEach(function (s) {
    var i = shardIndexOf(s);
    if (i !== null) off[i] = s;
  });
  var removed = {};
  (group.removedShards || []).forEach(function (r) {
    var i = shardIndexOf(r);
    if (i !== null) removed[i] = r;
  });
  var shards = consumableOf(group);
  Object.keys(off).forEach(function (k) { if (shards.indexOf(Number(k)) < 0) shards.push(Number(k)); });
  shards.sort(function (x, y) { return x - y; });
  return shards.map(function (i) {
    var o = off[i] || null;
    // Without the members view, fall back to the live owners /offsets reports.
    var current = assignments ? currents[i] || [] : (o && o.ownerMemberIds) || [];
    var target = targets[i] || [];
    var rem = removed[i] || (o && o.removed ? { state: 'DRAINING', reason: null } : null);
    return {
      shard: i,
      streamKey: o ? o.streamKey : group.streamPrefix + ':' + i,
      target: target,
      current: current,
      revoking: revoking[i] || [],
      pending: target.some(function (t) { return current.indexOf(t) < 0; }),
      unassigned: assignments ? target.length === 0 : false,
      removed: rem,
      offsets: o
    };
  });
}

function shardTile(row, p, g) {
  var flags = [];
  if (row.removed) flags.push(badge('REMOVED · ' + (row.removed.state || 'DRAINING'), 'bad'));
  if (row.pending) flags.push(badge('PENDING', 'warn'));
  if (row.revoking.length) flags.push(badge('REVOKING', 'warn'));
  if (row.unassigned && !row.removed) flags.push(badge('UNASSIGNED'));
  if (!flags.length) flags.push(badge('OWNED', 'ok'));
  var cls = 'shard' + (row.removed ? ' removed' : '') + (row.pending ? ' pending' : '') +
    (row.revoking.length ? ' revoking' : '') + (row.unassigned ? ' unassigned' : '');
  var o = row.offsets;
  var lagText = o ? (o.lag === null || o.lag === undefined ? 'unknown' : fmtNum(o.lag)) : '—';
  var items = [
    ['Target', idChips(row.target)],
    ['Current', idChips(row.current)],
    row.revoking.length ? ['Revoking', idChips(row.revoking)] : null,
    ['Lag', h('span', { class: 'lag', text: lagText })],
    ['Pending', h('span', { class: 'pending-count', text: o ? fmtNum(o.pendingCount) : '—' })],
    ['Length', o ? fmtNum(o.streamLength) : '—'],
    ['Last id', o && o.lastRecordId ? mono(o.lastRecordId) : h('span', { class: 'muted', text: '—' })],
    row.removed && row.removed.reason ? ['Why', h('span', { class: 'small', text: row.removed.reason })] : null
  ];
  var dl = h('dl', null, []);
  items.forEach(function (it) {
    if (!it) return;
    append(dl, [h('dt', { text: it[0] }), h('dd', null, it[1])]);
  });
  return h('div', { class: cls, 'data-shard': String(row.shard) }, [
    h('div', { class: 'shard-head' }, [
      link(messagesHref(p, g, row.shard), mono(':' + row.shard, 'shard-id'), null),
      h('span', { class: 'flags' }, flags)
    ]),
    h('div', { class: 'small muted mono', text: row.streamKey }),
    dl
  ]);
}

function renderShardGrid(body, ctx) {
  var rows = shardRows(ctx.group, ctx.assignments.data, ctx.members.data, ctx.offsets.data);
  var notes = [];
  if (ctx.offsets.error) notes.push(alertBox('Lag and pending are unavailable: ' + describeError(ctx.offsets.error), 'warn'));
  if (ctx.assignments.error) notes.push(alertBox('Assignments are unavailable: ' + describeError(ctx.assignments.error), 'warn'));
  var legend = h('div', { class: 'legend' }, [
    h('span', null, [h('i', { class: 'ok' }), 'held by its target owner']),
    h('span', null, [h('i', { class: 'warn' }), 'moving: pending grant or being revoked']),
    h('span', null, [h('i', { class: 'off' }), 'no target owner']),
    h('span', null, [h('i', { class: 'bad' }), 'removed by a scale-in, draining'])
  ]);
  fill(body, [
    notes.length ? h('div', { class: 'pad-top' }, notes) : null,
    rows.length
      ? h('div', { class: 'shard-grid', id: 'shard-grid' }, rows.map(function (r) { return shardTile(r, ctx.p, ctx.g); }))
      : h('p', { class: 'empty', text: 'This group has no consumable shards (shard count 0).' }),
    h('div', { class: 'pad-bottom' }, legend)
  ]);
}
`;
