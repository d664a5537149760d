/**
 * Browser script, part 6: the migration panel of a group — the active migration, each removed
 * shard with its drain state, holders, per-group pending/lag evidence and reason (the additive
 * fields of `GET /monitoring/…/migrations`), rollback eligibility, a rollback button behind a
 * confirm step, and the migration history. A field an older coordinator does not send shows as
 * unknown instead of breaking the panel.
 */

/** Migration panel rendering (used by the group view). */
export const MIGRATION_JS = `
function holderText(x) {
  if (typeof x === 'string') return x;
  if (!x || typeof x !== 'object') return String(x);
  var id = x.memberId || x.member || '?';
  var state = x.memberState || x.state;
  return (x.consumerGroup ? x.consumerGroup + '/' : '') + id + (state ? ' (' + state + ')' : '');
}

function groupEvidence(list) {
  if (!Array.isArray(list)) return null;
  return list.map(function (g) {
    return {
      name: g.consumerGroup || g.name || '?',
      pending: isNum(g.pendingCount) ? g.pendingCount : isNum(g.pending) ? g.pending : null,
      lag: isNum(g.lag) ? g.lag : null
    };
  });
}

// One removed shard of /migrations (liveEvidence = read for this answer, lastEvidence = the
// read the state machine decided on), or of the group view, which has no evidence at all.
function normalizeRemoved(r) {
  var ev = r.liveEvidence || r.lastEvidence || r.evidence || null;
  var holders = r.holders || null;
  return {
    shard: shardIndexOf(r),
    reshardingId: r.reshardingId || null,
    state: r.state || null,
    reason: r.reason || null,
    holders: Array.isArray(holders) ? holders.map(holderText) : null,
    evidence: ev
      ? {
          drained: typeof ev.drained === 'boolean' ? ev.drained : null,
          keyExists: typeof ev.keyExists === 'boolean' ? ev.keyExists : null,
          length: isNum(ev.streamLength) ? ev.streamLength : isNum(ev.length) ? ev.length : null,
          groups: groupEvidence(ev.consumerGroups),
          error: ev.error || null,
          why: ev.reason || null,
          checkedAt: ev.checkedAt || null
        }
      : null
  };
}

function removedOf(migsData, group) {
  if (migsData && Array.isArray(migsData.removedShards)) return migsData.removedShards.map(normalizeRemoved);
  return (group.removedShards || []).map(normalizeRemoved);
}

function evidenceCell(ev) {
  if (!ev) return h('span', { class: 'muted small', text: 'no read yet' });
  var lines = [];
  if (ev.keyExists === false) lines.push(h('span', { text: 'key absent' }));
  else if (ev.error) lines.push(h('span', { text: 'read failed: ' + ev.error }));
  else {
    if (ev.length !== null) lines.push(h('span', null, [h('b', { text: 'length ' }), fmtNum(ev.length)]));
    (ev.groups || []).forEach(function (g) {
      lines.push(h('span', null, [h('b', { text: g.name + ' ' }), 'pending ' + fmtNum(g.pending) + ', lag ' + (g.lag === null ? 'unknown' : fmtNum(g.lag))]));
    });
    if (ev.groups && !ev.groups.length) lines.push(h('span', { class: 'muted', text: 'no consumer groups' }));
  }
  if (ev.drained !== null) lines.push(h('span', null, ev.drained ? badge('drained', 'ok') : badge('not drained', 'warn')));
  return h('div', { class: 'fields' }, lines);
}

function removedTable(removed) {
  return table(['Shard', 'Drain state', 'Holders', 'Evidence (per consumer group)', 'Reason'], removed.map(function (r) {
    var why = r.reason || (r.evidence && r.evidence.why);
    return h('tr', { 'data-removed-shard': String(r.shard) }, [
      td(mono(':' + r.shard), 'shrink'),
      td(stateBadge(r.state), 'shrink'),
      td(r.holders ? idChips(r.holders) : h('span', { class: 'muted small', text: 'not reported' })),
      td(evidenceCell(r.evidence)),
      td(why ? h('span', { class: 'small', text: why }) : h('span', { class: 'muted', text: '—' }))
    ]);
  }));
}

function kvList(pairs) {
  var dl = h('dl', { class: 'kv' });
  pairs.forEach(function (p) { if (p) append(dl, [h('dt', { text: p[0] }), h('dd', null, p[1])]); });
  return dl;
}

function migrationKind(m) {
  if (m.toShardCount > m.fromShardCount) return 'scale-out';
  if (m.toShardCount < m.fromShardCount) return 'scale-in';
  return 'no change';
}

function historyTable(list) {
  var sorted = list.slice().sort(function (a, b) { return (parseTime(b.createdAt) || 0) - (parseTime(a.createdAt) || 0); });
  return table(['Resharding id', 'Change', 'State', 'Created', 'Updated'], sorted.map(function (m) {
    return h('tr', null, [
      td(mono(m.reshardingId)),
      td(m.fromShardCount + ' → ' + m.toShardCount + ' (' + migrationKind(m) + ')', 'nowrap'),
      td(stateBadge(m.state)),
      td(fmtTime(m.createdAt), 'nowrap'),
      td(fmtTime(m.updatedAt), 'nowrap')
    ]);
  }));
}

function rollbackBox(ctx, ui, m, rb) {
  var eligibility = rb
    ? rb.allowed
      ? badge('Rollback allowed', 'ok')
      : h('span', null, [badge('Rollback not allowed', 'bad'), rb.reason ? h('span', { class: 'small', text: ' ' + rb.reason }) : null])
    : h('span', { class: 'muted small', text: 'Eligibility not reported; the coordinator checks it when asked.' });
  var writable = canWrite();
  var button = h('button', {
    type: 'button', class: 'danger', id: 'rollback-open',
    disabled: (rb && !rb.allowed) || !writable || ui.confirming,
    title: writable ? null : 'Needs the WRITE role',
    onclick: function () {
      ui.confirming = m.reshardingId;
      ui.result = null;
      renderMigration(ctx.migrationBody, ctx, ui, true);
    },
    text: 'Roll back…'
  });
  var parts = [h('div', { class: 'controls' }, [h('div', { id: 'rollback-eligibility' }, eligibility), h('span', { class: 'spacer' }), button])];
  if (ui.confirming === m.reshardingId) parts.push(confirmBox(ctx, ui, m));
  if (ui.result) parts.push(h('div', { id: 'rollback-result' }, alertBox(ui.result.text, ui.result.kind)));
  return h('div', { id: 'rollback' }, parts);
}

function confirmBox(ctx, ui, m) {
  var reason = h('input', { id: 'rollback-reason', placeholder: 'Reason (required, kept in the audit log)', maxlength: '500' });
  var confirm = h('button', { type: 'button', class: 'danger solid', id: 'rollback-confirm', text: 'Confirm rollback' });
  var cancel = h('button', { type: 'button', id: 'rollback-cancel', text: 'Cancel' });
  cancel.addEventListener('click', function () {
    ui.confirming = null;
    renderMigration(ctx.migrationBody, ctx, ui, true);
  });
  confirm.addEventListener('click', function () {
    var why = reason.value.trim();
    if (!why) {
      reason.focus();
      reason.setAttribute('aria-invalid', 'true');
      return;
    }
    confirm.disabled = true;
    cancel.disabled = true;
    var path = groupPath(ctx.p, ctx.g) + '/migrations/' + enc(m.reshardingId) + '/rollback';
    var by = (app.session && app.session.username) || 'console';
    api('POST', path, { requestedBy: by, reason: why }).then(function (res) {
      ui.result = { kind: 'ok', text: 'Rolled back ' + m.reshardingId + ': state ' + ((res && res.state) || 'unknown') + '.' };
    }, function (e) {
      ui.result = { kind: '', text: 'Rollback refused: ' + describeError(e) };
    }).then(function () {
      ui.confirming = null;
      renderMigration(ctx.migrationBody, ctx, ui, true);
      refreshNow();
    });
  });
  return h('div', { class: 'confirm', id: 'rollback-confirm-box' }, [
    h('p', null, [
      'Roll back ', mono(m.reshardingId), '? The shard count returns to ' + m.fromShardCount + '. ',
      m.toShardCount < m.fromShardCount
        ? 'The removed shards return to producer routing.'
        : 'The added shards leave producer routing; consumers drain them before they are retired.'
    ]),
    h('div', { class: 'controls' }, [reason, confirm, cancel])
  ]);
}

// force: re-render even while the operator is in the confirm step (their own clicks).
function renderMigration(body, ctx, ui, force) {
  if (ui.confirming && !force) return;
  var migs = ctx.migrations;
  var data = migs.data;
  var list = data && Array.isArray(data.migrations) ? data.migrations : [];
  var activeId = data && 'activeReshardingId' in data
    ? data.activeReshardingId
    : ctx.group.activeMigration ? ctx.group.activeMigration.reshardingId : null;
  var active = null;
  list.forEach(function (m) { if (m.reshardingId === activeId) active = m; });
  if (!active && ctx.group.activeMigration && ctx.group.activeMigration.reshardingId === activeId) active = ctx.group.activeMigration;
  var removed = removedOf(data, ctx.group);
  var parts = [];
  if (migs.error) parts.push(alertBox('Migration details are unavailable (' + describeError(migs.error) + '); showing what the group reports.', 'warn'));
  if (!active) {
    parts.push(h('p', { id: 'no-migration', text: 'No active migration. The stream has ' + fmtNum(ctx.group.shardCount) + ' shards.' }));
  } else {
    parts.push(h('div', { id: 'active-migration', 'data-resharding-id': active.reshardingId }, [
      kvList([
        ['Resharding id', mono(active.reshardingId)],
        ['Change', active.fromShardCount + ' → ' + active.toShardCount + ' shards (' + migrationKind(active) + ')'],
        ['State', stateBadge(active.state)],
        ['Created', fmtTime(active.createdAt)],
        ['Updated', fmtTime(active.updatedAt)]
      ])
    ]));
  }
  if (removed.length) {
    parts.push(h('h3', { text: active ? 'Removed shards' : 'Removed shards still draining' }));
    parts.push(h('div', { id: 'removed-shards' }, removedTable(removed)));
  }
  if (active) {
    var rb = active.rollback || (data && data.rollback) || null;
    parts.push(h('h3', { text: 'Rollback' }));
    parts.push(rollbackBox(ctx, ui, active, rb && typeof rb === 'object' ? rb : null));
  } else if (ui.result) {
    parts.push(h('div', { id: 'rollback-result' }, alertBox(ui.result.text, ui.result.kind)));
  }
  if (list.length) {
    parts.push(h('h3', { text: 'History' }));
    parts.push(historyTable(list));
  }
  fill(body, parts);
}
`;
