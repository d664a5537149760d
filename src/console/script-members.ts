/**
 * Browser script, part 5: the members table of a group with lease countdowns
 * (`memberLeaseExpiresAt − now`) that tick between refreshes.
 */

/** Members table rendering and the lease ticker (used by the group view). */
export const MEMBERS_JS = `
function leaseCell(m) {
  var expires = parseTime(m.memberLeaseExpiresAt);
  var since = parseTime(m.lastHeartbeatAt);
  if (expires === null) return h('span', { class: 'muted', text: '—' });
  var bar = h('span', { class: 'bar' }, h('i'));
  return h('span', { class: 'lease', 'data-expires': String(expires), 'data-since': since === null ? '' : String(since) }, [
    bar,
    h('span', { class: 'lease-left mono' })
  ]);
}

// Updates every countdown under root from the browser's clock.
function tickLeases(root, now) {
  root.querySelectorAll('[data-expires]').forEach(function (el) {
    var expires = Number(el.getAttribute('data-expires'));
    var since = el.getAttribute('data-since') ? Number(el.getAttribute('data-since')) : null;
    var left = expires - now;
    var text = el.querySelector('.lease-left');
    if (text) text.textContent = left > 0 ? fmtDuration(left) + ' left' : 'expired ' + fmtDuration(-left) + ' ago';
    var bar = el.querySelector('.bar');
    var inner = bar ? bar.firstChild : null;
    if (!bar || !inner) return;
    var span = since !== null && expires > since ? expires - since : null;
    var frac = span ? Math.max(0, Math.min(1, left / span)) : left > 0 ? 1 : 0;
    inner.style.width = Math.round(frac * 100) + '%';
    bar.className = 'bar' + (left <= 0 ? ' gone' : frac < 0.34 ? ' low' : '');
  });
  root.querySelectorAll('[data-ago]').forEach(function (el) {
    var t = Number(el.getAttribute('data-ago'));
    el.textContent = fmtDuration(now - t) + ' ago';
  });
}

function agoCell(iso) {
  var t = parseTime(iso);
  if (t === null) return h('span', { class: 'muted', text: '—' });
  return h('span', { class: 'nowrap', 'data-ago': String(t), title: fmtTime(iso) });
}

function sameShards(a, b) {
  return a.length === b.length && a.every(function (x, i) { return x === b[i]; });
}

function renderMembers(body, ctx) {
  if (ctx.members.error) {
    fill(body, h('p', { class: 'empty' }, alertBox('Members are unavailable: ' + describeError(ctx.members.error))));
    return;
  }
  var members = (ctx.members.data && ctx.members.data.members) || [];
  if (!members.length) {
    fill(body, h('p', { class: 'empty', id: 'no-members', text: 'No members. Consumers join by sending a heartbeat with memberEpoch 0.' }));
    return;
  }
  var target = (ctx.assignments.data && ctx.assignments.data.targetAssignment) || {};
  fill(body, table(
    ['Member', 'State', { text: 'Epoch', cls: 'num' }, 'Target', 'Current', 'Granted', 'Revoking',
      { text: 'Workers', cls: 'num' }, 'Last heartbeat', 'Lease'],
    members.map(function (m) {
      var current = shardList(m.currentAssignment);
      var granted = shardList(m.grantedAssignment);
      return h('tr', { 'data-member': m.memberId }, [
        td([mono(m.memberId, 'member-id'), m.memberName && m.memberName !== m.memberId ? h('div', { class: 'small muted', text: m.memberName }) : null]),
        td(stateBadge(m.state)),
        td(fmtNum(m.memberEpoch), 'num'),
        td(shardChips(shardList(target[m.memberId]))),
        td(shardChips(current)),
        td(sameShards(granted, current) ? h('span', { class: 'muted small', text: 'same' }) : shardChips(granted)),
        td(shardChips(shardList(m.revoking))),
        td(fmtNum(m.activeConsumerWorkers) + ' / ' + fmtNum(m.runtimeMaxConcurrency), 'num'),
        td(agoCell(m.lastHeartbeatAt)),
        td(leaseCell(m))
      ]);
    })
  ));
}
`;
