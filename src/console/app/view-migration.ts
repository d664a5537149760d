/**
 * The migration panel of a group: the active migration, each removed shard with its drain
 * state, holders, per-group pending/lag evidence and reason (the additive fields of
 * `GET /monitoring/…/migrations`), rollback eligibility and the migration history. A field an
 * older coordinator does not send shows as unknown instead of breaking the panel.
 */
import { describeError } from './api.js';
import type { MigrationJson, MigrationsResponseJson } from './api-types.js';
import { append, type Child, fill, h } from './dom.js';
import { fmtNum, fmtTime, isNum, parseTime, shardIndexOf } from './format.js';
import type { GroupData } from './group-data.js';
import { type RollbackUi, rollbackBox } from './rollback.js';
import { alertBox, badge, idChips, migrationBadge, mono, stateBadge, table, td } from './widgets.js';

/** Loosely typed JSON of an additive field (absent or older shapes tolerated). */
type Loose = Record<string, unknown>;

interface GroupEvidence {
  name: string;
  pending: number | null;
  lag: number | null;
}

interface Evidence {
  drained: boolean | null;
  keyExists: boolean | null;
  length: number | null;
  groups: GroupEvidence[] | null;
  error: string | null;
  why: string | null;
}

interface Removed {
  shard: number | null;
  state: string | null;
  reason: string | null;
  holders: string[] | null;
  evidence: Evidence | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
const num = (...vs: unknown[]): number | null => vs.find(isNum) ?? null;
const bool = (v: unknown): boolean | null => (typeof v === 'boolean' ? v : null);

function holderText(x: unknown): string {
  if (typeof x === 'string') return x;
  if (!x || typeof x !== 'object') return String(x);
  const o = x as Loose;
  const id = str(o.memberId) || str(o.member) || '?';
  const state = str(o.memberState) || str(o.state);
  return (str(o.consumerGroup) ? o.consumerGroup + '/' : '') + id + (state ? ' (' + state + ')' : '');
}

function groupEvidence(list: unknown): GroupEvidence[] | null {
  if (!Array.isArray(list)) return null;
  return list.map((g: Loose) => ({
    name: str(g.consumerGroup) || str(g.name) || '?',
    pending: num(g.pendingCount, g.pending),
    lag: num(g.lag),
  }));
}

// One removed shard of /migrations (liveEvidence = read for this answer, lastEvidence = the
// read the state machine decided on), or of the group view, which has no evidence at all.
function normalizeRemoved(r: Loose): Removed {
  const ev = (r.liveEvidence || r.lastEvidence || r.evidence || null) as Loose | null;
  return {
    shard: shardIndexOf(r),
    state: str(r.state),
    reason: str(r.reason),
    holders: Array.isArray(r.holders) ? r.holders.map(holderText) : null,
    evidence: ev
      ? {
          drained: bool(ev.drained),
          keyExists: bool(ev.keyExists),
          length: num(ev.streamLength, ev.length),
          groups: groupEvidence(ev.consumerGroups),
          error: str(ev.error),
          why: str(ev.reason),
        }
      : null,
  };
}

function removedOf(data: MigrationsResponseJson | null, group: GroupData['group']): Removed[] {
  const list: unknown[] =
    data && Array.isArray(data.removedShards) ? data.removedShards : group.removedShards || [];
  return list.map((r) => normalizeRemoved(r as Loose));
}

function evidenceCell(ev: Evidence | null): HTMLElement {
  if (!ev) return h('span', { class: 'muted small', text: 'no read yet' });
  const lines: Node[] = [];
  if (ev.keyExists === false) lines.push(h('span', { text: 'key absent' }));
  else if (ev.error) lines.push(h('span', { text: 'read failed: ' + ev.error }));
  else {
    if (ev.length !== null) lines.push(h('span', null, [h('b', { text: 'length ' }), fmtNum(ev.length)]));
    for (const g of ev.groups || []) {
      const lag = g.lag === null ? 'unknown' : fmtNum(g.lag);
      lines.push(
        h('span', null, [h('b', { text: g.name + ' ' }), 'pending ' + fmtNum(g.pending) + ', lag ' + lag]),
      );
    }
    if (ev.groups && !ev.groups.length) lines.push(h('span', { class: 'muted', text: 'no consumer groups' }));
  }
  if (ev.drained !== null) {
    lines.push(h('span', null, ev.drained ? badge('drained', 'ok') : badge('not drained', 'warn')));
  }
  return h('div', { class: 'fields' }, lines);
}

function removedTable(removed: Removed[]): HTMLElement {
  return table(
    ['Shard', 'Drain state', 'Holders', 'Evidence (per consumer group)', 'Reason'],
    removed.map((r) => {
      const why = r.reason || r.evidence?.why;
      return h('tr', { 'data-removed-shard': String(r.shard) }, [
        td(mono(':' + r.shard), 'shrink'),
        td(stateBadge(r.state), 'shrink'),
        td(r.holders ? idChips(r.holders) : h('span', { class: 'muted small', text: 'not reported' })),
        td(evidenceCell(r.evidence)),
        td(why ? h('span', { class: 'small', text: why }) : h('span', { class: 'muted', text: '—' })),
      ]);
    }),
  );
}

function kvList(pairs: Array<[string, Child]>): HTMLDListElement {
  const dl = h('dl', { class: 'kv' });
  for (const [k, v] of pairs) append(dl, [h('dt', { text: k }), h('dd', null, v)]);
  return dl;
}

/** `scale-out`, `scale-in` or `no change`. */
function migrationKind(m: Pick<MigrationJson, 'fromShardCount' | 'toShardCount'>): string {
  if (m.toShardCount > m.fromShardCount) return 'scale-out';
  if (m.toShardCount < m.fromShardCount) return 'scale-in';
  return 'no change';
}

function historyTable(list: MigrationJson[]): HTMLElement {
  const created = (m: MigrationJson) => parseTime(m.createdAt) || 0;
  const sorted = list.slice().sort((a, b) => created(b) - created(a));
  return table(
    ['Resharding id', 'Change', 'State', 'Created', 'Updated'],
    sorted.map((m) =>
      h('tr', null, [
        td(mono(m.reshardingId)),
        td(m.fromShardCount + ' → ' + m.toShardCount + ' (' + migrationKind(m) + ')', 'nowrap'),
        td(migrationBadge(m.state)),
        td(fmtTime(m.createdAt), 'nowrap'),
        td(fmtTime(m.updatedAt), 'nowrap'),
      ]),
    ),
  );
}

/** Draws the panel; `force` re-renders even during the confirm step (the operator's own clicks). */
export function renderMigration(body: HTMLElement, ctx: GroupData, ui: RollbackUi, force: boolean): void {
  if (ui.confirming && !force) return;
  const migs = ctx.migrations;
  const data = migs.data;
  const list = data && Array.isArray(data.migrations) ? data.migrations : [];
  const fromGroup = ctx.group.activeMigration;
  const activeId =
    data && 'activeReshardingId' in data
      ? data.activeReshardingId
      : fromGroup
        ? fromGroup.reshardingId
        : null;
  let active: MigrationJson | null = list.find((m) => m.reshardingId === activeId) ?? null;
  if (!active && fromGroup && fromGroup.reshardingId === activeId) active = fromGroup;
  const removed = removedOf(data, ctx.group);
  const parts: Node[] = [];
  const redraw = () => renderMigration(body, ctx, ui, true);
  if (migs.error) {
    const why = describeError(migs.error);
    parts.push(
      alertBox('Migration details are unavailable (' + why + '); showing what the group reports.', 'warn'),
    );
  }
  if (!active) {
    const text = 'No active migration. The stream has ' + fmtNum(ctx.group.shardCount) + ' shards.';
    parts.push(h('p', { id: 'no-migration', text }));
  } else {
    parts.push(
      h('div', { id: 'active-migration', 'data-resharding-id': active.reshardingId }, [
        kvList([
          ['Resharding id', mono(active.reshardingId)],
          [
            'Change',
            active.fromShardCount + ' → ' + active.toShardCount + ' shards (' + migrationKind(active) + ')',
          ],
          ['State', migrationBadge(active.state)],
          ['Created', fmtTime(active.createdAt)],
          ['Updated', fmtTime(active.updatedAt)],
        ]),
      ]),
    );
  }
  if (removed.length) {
    parts.push(h('h3', { text: active ? 'Removed shards' : 'Removed shards still draining' }));
    parts.push(h('div', { id: 'removed-shards' }, removedTable(removed)));
  }
  if (active) {
    const rb = (active as { rollback?: unknown }).rollback || data?.rollback || null;
    parts.push(h('h3', { text: 'Rollback' }));
    parts.push(rollbackBox(ctx, ui, active, rb && typeof rb === 'object' ? rb : null, redraw));
  } else if (ui.result) {
    parts.push(h('div', { id: 'rollback-result' }, alertBox(ui.result.text, ui.result.kind)));
  }
  if (list.length) {
    parts.push(h('h3', { text: 'History' }));
    parts.push(historyTable(list));
  }
  fill(body, parts);
}
