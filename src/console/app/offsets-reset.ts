/**
 * The group page's offsets reset for WRITE sessions (`POST /admin/streams/{p}/groups/{g}/offsets/reset`,
 * docs/api.md#replaying-or-skipping-records): a dry run first, always; its answer per shard
 * (position before and after, records skipped or replayed); then Execute sends the same body with
 * `dryRun: false`. Changing the form after a dry run takes Execute away until the next dry run.
 */
import type { OffsetsResetBody, OffsetsResetResponseJson } from './api-types.js';
import { admin } from './client.js';
import { fill, h } from './dom.js';
import { fmtNum, shardIndexOf } from './format.js';
import { check, field, needsWrite, requestedBy, submit } from './forms.js';
import { canWrite, refreshNow } from './shell.js';
import { alertBox, mono, table, td } from './widgets.js';

type Target = OffsetsResetBody['to'];

const TARGETS: Array<[Target, string]> = [
  ['earliest', 'earliest: replay everything'],
  ['latest', 'latest: skip everything so far'],
  ['timestamp', 'timestamp: from a time on'],
  ['id', 'id: after a record id'],
];

/** Epoch ms of `text`: digits as they are, else an ISO-8601 time (UTC unless it says otherwise). */
function instantOf(text: string): number | null {
  const v = text.trim();
  if (/^\d{1,16}$/.test(v)) return Number(v);
  const t = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(v) ? v : v + 'Z');
  return Number.isNaN(t) ? null : t;
}

/** `0, 2` as shard indexes; empty for every consumable shard; null when malformed. */
function shardsOf(text: string): number[] | null {
  const v = text.trim();
  if (v === '') return [];
  const parts = v.split(/[\s,]+/).filter(Boolean);
  return parts.every((s) => /^\d{1,5}$/.test(s)) ? parts.map(Number) : null;
}

function resultTable(res: OffsetsResetResponseJson): HTMLElement {
  return table(
    [
      'Shard',
      'Before',
      'After',
      { text: 'Skipped', cls: 'num' },
      { text: 'Replayed', cls: 'num' },
      { text: 'Lag after', cls: 'num' },
      { text: 'Left pending', cls: 'num' },
    ],
    res.shards.map((s) =>
      h('tr', { 'data-reset-shard': String(shardIndexOf(s.shard)) }, [
        td(mono(':' + shardIndexOf(s.shard)), 'shrink'),
        td(mono(s.lastDeliveredIdBefore)),
        td(mono(s.lastDeliveredIdAfter)),
        td(fmtNum(s.skippedRecords) + (s.countExact ? '' : '+'), 'num skipped'),
        td(fmtNum(s.replayedRecords) + (s.countExact ? '' : '+'), 'num replayed'),
        td(s.lagAfter === null ? '—' : fmtNum(s.lagAfter), 'num'),
        td(s.pendingCount === null ? '—' : fmtNum(s.pendingCount), 'num'),
      ]),
    ),
  );
}

function summary(res: OffsetsResetResponseJson): string {
  const bound = res.countsExact ? '' : ' at least';
  return (
    (res.dryRun ? 'Dry run (nothing written): the reset would skip' : 'Reset done: the group skips') +
    bound +
    ' ' +
    fmtNum(res.totalSkippedRecords) +
    ' and replay' +
    (res.dryRun ? '' : 's') +
    bound +
    ' ' +
    fmtNum(res.totalReplayedRecords) +
    ' record(s) on ' +
    res.shards.length +
    ' shard(s).'
  );
}

/** The reset form of group `g` of stream `p` (a note for READ sessions). */
export function offsetsResetForm(p: string, g: string): HTMLElement {
  if (!canWrite()) return h('div', { id: 'offsets-reset' }, needsWrite('Resetting offsets'));
  const to = h(
    'select',
    { id: 'reset-to' },
    TARGETS.map(([v, label]) => h('option', { value: v, text: label })),
  );
  const at = h('input', { id: 'reset-timestamp', placeholder: '2026-05-24T08:00:00Z or epoch ms' });
  const id = h('input', { id: 'reset-id', placeholder: '1779609600000-0' });
  const shards = h('input', { id: 'reset-shards', placeholder: 'all consumable shards' });
  const reason = h('input', { id: 'reset-reason', placeholder: 'optional, kept in the audit log' });
  const dry = h('button', { type: 'submit', id: 'reset-dry-run', text: 'Dry run' });
  const execute = h('button', {
    type: 'button',
    class: 'danger solid',
    id: 'reset-execute',
    text: 'Execute reset',
    disabled: true,
  });
  const out = h('div', { id: 'reset-result' });
  const atField = field('Timestamp (UTC)', at);
  const idField = field('Record id', id);
  /** The body the last dry run answered for; Execute sends it again, `dryRun: false`. */
  let tried: OffsetsResetBody | null = null;

  const sync = () => {
    atField.hidden = to.value !== 'timestamp';
    idField.hidden = to.value !== 'id';
  };
  const changed = () => {
    tried = null;
    execute.disabled = true;
    sync();
  };
  for (const input of [to, at, id, shards, reason]) input.addEventListener('input', changed);
  to.addEventListener('change', changed);
  sync();

  const body = (): OffsetsResetBody | null => {
    const target = to.value as Target;
    const list = shardsOf(shards.value);
    if (!check(shards, list !== null)) return null;
    const b: OffsetsResetBody = {
      to: target,
      requestedBy: requestedBy(),
      reason: reason.value.trim() || null,
    };
    if (list?.length) b.shards = list;
    if (target === 'timestamp') {
      const ms = instantOf(at.value);
      if (!check(at, ms !== null)) return null;
      b.timestamp = ms;
    }
    if (target === 'id') {
      if (!check(id, /^\d{1,20}-\d{1,20}$/.test(id.value.trim()))) return null;
      b.id = id.value.trim();
    }
    return b;
  };
  const show = (res: OffsetsResetResponseJson) =>
    h('div', null, [
      alertBox(summary(res), res.dryRun ? 'warn' : 'ok'),
      h('div', { class: 'table-wrap' }, resultTable(res)),
    ]);

  const onsubmit = (ev: Event) => {
    ev.preventDefault();
    const b = body();
    if (!b) return;
    execute.disabled = true;
    submit(
      dry,
      out,
      () => admin.resetOffsets(p, g, { ...b, dryRun: true }),
      (res) => {
        tried = b;
        execute.disabled = false;
        return show(res);
      },
      'Dry run refused',
    );
  };
  execute.addEventListener('click', () => {
    const b = tried;
    if (!b) return;
    tried = null;
    submit(
      execute,
      out,
      () => admin.resetOffsets(p, g, { ...b, dryRun: false }),
      (res) => {
        execute.disabled = true;
        void refreshNow();
        return show(res);
      },
      'Reset refused',
    );
  });
  return h('div', { id: 'offsets-reset' }, [
    h('form', { class: 'controls', novalidate: true, onsubmit }, [
      field('Move the group to', to),
      atField,
      idField,
      field('Shards', shards),
      field('Reason', reason),
      dry,
      execute,
    ]),
    h('p', {
      class: 'note',
      text: 'Dry run first: Execute sends what the dry run answered for. The coordinator refuses while a member of the group holds a lease (stop the consumers first).',
    }),
    fill(out, null),
  ]);
}
