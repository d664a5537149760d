/**
 * Rolling back the active migration from the console: eligibility as the coordinator reports
 * it, a button (WRITE role) and a confirm step that asks for the reason kept in the audit log.
 */
import { describeError } from './api.js';
import type { MigrationJson } from './api-types.js';
import { admin } from './client.js';
import { h } from './dom.js';
import type { GroupData } from './group-data.js';
import { app, canWrite, refreshNow } from './shell.js';
import { alertBox, badge, mono } from './widgets.js';

/** The panel's own state, kept across refreshes. */
export interface RollbackUi {
  /** Resharding id whose confirm step is open (auto-refresh leaves the panel alone meanwhile). */
  confirming: string | null;
  result: { kind: string; text: string } | null;
}

/** Eligibility as `/migrations` reports it. */
export interface Eligibility {
  allowed?: boolean;
  reason?: string | null;
}

/** Eligibility, the button and (when open) the confirm step; `redraw` re-renders the panel. */
export function rollbackBox(
  ctx: GroupData,
  ui: RollbackUi,
  m: MigrationJson,
  rb: Eligibility | null,
  redraw: () => void,
): HTMLElement {
  const eligibility = rb
    ? rb.allowed
      ? badge('Rollback allowed', 'ok')
      : h('span', null, [
          badge('Rollback not allowed', 'bad'),
          rb.reason ? h('span', { class: 'small', text: ' ' + rb.reason }) : null,
        ])
    : h('span', {
        class: 'muted small',
        text: 'Eligibility not reported; the coordinator checks it when asked.',
      });
  const writable = canWrite();
  const button = h('button', {
    type: 'button',
    class: 'danger',
    id: 'rollback-open',
    disabled: (rb && !rb.allowed) || !writable || !!ui.confirming,
    title: writable ? null : 'Needs the WRITE role',
    onclick: () => {
      ui.confirming = m.reshardingId;
      ui.result = null;
      redraw();
    },
    text: 'Roll back…',
  });
  const parts: Node[] = [
    h('div', { class: 'controls' }, [
      h('div', { id: 'rollback-eligibility' }, eligibility),
      h('span', { class: 'spacer' }),
      button,
    ]),
  ];
  if (ui.confirming === m.reshardingId) parts.push(confirmBox(ctx, ui, m, redraw));
  if (ui.result) parts.push(h('div', { id: 'rollback-result' }, alertBox(ui.result.text, ui.result.kind)));
  return h('div', { id: 'rollback' }, parts);
}

function confirmBox(ctx: GroupData, ui: RollbackUi, m: MigrationJson, redraw: () => void): HTMLElement {
  const reason = h('input', {
    id: 'rollback-reason',
    placeholder: 'Reason (required, kept in the audit log)',
    maxlength: '500',
  });
  const confirm = h('button', {
    type: 'button',
    class: 'danger solid',
    id: 'rollback-confirm',
    text: 'Confirm rollback',
  });
  const cancel = h('button', { type: 'button', id: 'rollback-cancel', text: 'Cancel' });
  cancel.addEventListener('click', () => {
    ui.confirming = null;
    redraw();
  });
  confirm.addEventListener('click', () => {
    const why = reason.value.trim();
    if (!why) {
      reason.focus();
      reason.setAttribute('aria-invalid', 'true');
      return;
    }
    confirm.disabled = true;
    cancel.disabled = true;
    const by = app.session?.username || 'console';
    admin
      .rollback(ctx.p, ctx.g, m.reshardingId, { requestedBy: by, reason: why })
      .then(
        (res) => {
          ui.result = {
            kind: 'ok',
            text: 'Rolled back ' + m.reshardingId + ': state ' + (res?.state || 'unknown') + '.',
          };
        },
        (e: unknown) => {
          ui.result = { kind: '', text: 'Rollback refused: ' + describeError(e) };
        },
      )
      .then(() => {
        ui.confirming = null;
        redraw();
        void refreshNow();
      });
  });
  return h('div', { class: 'confirm', id: 'rollback-confirm-box' }, [
    h('p', null, [
      'Roll back ',
      mono(m.reshardingId),
      '? The shard count returns to ' + m.fromShardCount + '. ',
      m.toShardCount < m.fromShardCount
        ? 'The removed shards return to producer routing.'
        : 'The added shards leave producer routing; consumers drain them before they are retired.',
    ]),
    h('div', { class: 'controls' }, [reason, confirm, cancel]),
  ]);
}
