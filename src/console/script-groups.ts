/**
 * Browser script, part 3: the start page — coordinator health and every consumer group
 * (`/monitoring/groups`), each linking to its group view.
 */

/** The groups list view. */
export const GROUPS_JS = String.raw`
function countKeys(obj) { return obj && typeof obj === 'object' ? Object.keys(obj).length : 0; }

function sumValues(obj) {
  var total = 0;
  if (obj && typeof obj === 'object') Object.keys(obj).forEach(function (k) { if (isNum(obj[k])) total += obj[k]; });
  return total;
}

function card(label, value, id) {
  return h('div', { class: 'card', id: id }, [h('div', { class: 'label', text: label }), h('div', { class: 'value' }, value)]);
}

function renderHealthCards(box, health, groups) {
  var hd = health.data;
  var members = 0;
  groups.forEach(function (g) { members += countKeys(g.targetAssignmentSummary); });
  fill(box, [
    card('Coordinator', hd ? stateBadge(hd.status) : badge('unknown'), 'health-status'),
    card('Redis', hd ? stateBadge(hd.redis) : badge('unknown'), 'health-redis'),
    card('Coordinator id', mono(hd ? hd.coordinatorId : '—')),
    card('Consumer groups', fmtNum(groups.length), 'group-count'),
    card('Live members', fmtNum(members))
  ]);
}

function migrationCell(m) {
  if (!m) return h('span', { class: 'muted', text: '—' });
  return h('span', { class: 'chips' }, [
    stateBadge(m.state),
    h('span', { class: 'small muted', text: m.fromShardCount + ' → ' + m.toShardCount })
  ]);
}

function renderGroupsTable(body, groups) {
  if (!groups.length) {
    fill(body, h('p', { class: 'empty', id: 'no-groups', text: 'No consumer groups yet. Create a stream with POST /coord/v1/streams/{prefix}.' }));
    return;
  }
  var sorted = groups.slice().sort(function (a, b) {
    var x = a.streamPrefix + '\u0000' + a.consumerGroup;
    var y = b.streamPrefix + '\u0000' + b.consumerGroup;
    return x < y ? -1 : x > y ? 1 : 0;
  });
  fill(body, table(
    ['Stream', 'Consumer group', 'State', { text: 'Shards', cls: 'num' }, { text: 'Members', cls: 'num' },
      { text: 'Assigned', cls: 'num' }, { text: 'Epochs (group / assign.)', cls: 'num' },
      { text: 'Metadata v.', cls: 'num' }, 'Migration'],
    sorted.map(function (g) {
      var removed = Array.isArray(g.removedShards) ? g.removedShards.length : 0;
      return h('tr', { 'data-group': g.streamPrefix + '/' + g.consumerGroup }, [
        td(mono(g.streamPrefix)),
        td(link(groupHref(g.streamPrefix, g.consumerGroup), mono(g.consumerGroup), 'group-link')),
        td(stateBadge(g.state)),
        td(fmtNum(g.shardCount) + (removed ? ' (+' + removed + ' draining)' : ''), 'num'),
        td(fmtNum(countKeys(g.targetAssignmentSummary)), 'num'),
        td(fmtNum(sumValues(g.currentAssignmentSummary)) + ' / ' + fmtNum(g.shardCount + removed), 'num'),
        td(fmtNum(g.groupEpoch) + ' / ' + fmtNum(g.assignmentEpoch), 'num'),
        td(fmtNum(g.metadataVersion), 'num'),
        td(migrationCell(g.activeMigration))
      ]);
    })
  ));
}

VIEWS.groups = function () {
  var cards = h('div', { class: 'cards', id: 'health' });
  var body = h('div', { class: 'panel-body flush', id: 'groups' }, h('p', { class: 'empty', text: 'Loading…' }));
  return {
    title: 'Groups',
    crumbs: [{ text: 'Groups' }],
    el: h('div', null, [
      h('h1', { text: 'Consumer groups' }),
      h('p', { class: 'subtitle', text: 'Every group the coordinator tracks. Open one for its shards, members, migration and messages.' }),
      cards,
      panel('Groups', 'GET /coord/v1/monitoring/groups', body)
    ]),
    refresh: async function () {
      var res = await Promise.all([api('GET', '/monitoring/groups'), optional(api('GET', '/monitoring/health'))]);
      var groups = (res[0] && res[0].groups) || [];
      renderHealthCards(cards, res[1], groups);
      renderGroupsTable(body, groups);
    },
    fail: function (e) { fill(body, h('p', { class: 'empty' }, alertBox('Cannot load the groups: ' + describeError(e)))); }
  };
};
`;
