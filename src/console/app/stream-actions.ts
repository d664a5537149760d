/**
 * The console's write forms over the admin API, offered to sessions with the WRITE role (the
 * role comes from `GET /monitoring/session`, read once per sign-in): create a stream from the
 * groups page (`POST /streams/{p}`) and scale one from its group page (`POST /streams/{p}/scale`,
 * every group of the stream, docs/protocol.md#scale-requests). Built once per page, so the
 * auto-refresh never wipes what the operator is typing; the coordinator still checks the role.
 */
import { admin } from './client.js';
import { h } from './dom.js';
import { check, countOf, field, needsWrite, requestedBy, submit } from './forms.js';
import { groupHref } from './router.js';
import { canWrite, navigate, refreshNow } from './shell.js';
import { mono } from './widgets.js';

/** The groups page's "Create stream" form (its first group is named like the stream unless given). */
export function createStreamForm(): HTMLElement {
  if (!canWrite())
    return h('div', { class: 'panel-body', id: 'create-stream' }, needsWrite('Creating a stream'));
  const prefix = h('input', { id: 'create-prefix', placeholder: 'orders', maxlength: '200' });
  const shards = h('input', { id: 'create-shards', type: 'number', min: '0', value: '4' });
  const group = h('input', { id: 'create-group', placeholder: 'same as the stream', maxlength: '200' });
  const reason = h('input', { id: 'create-reason', placeholder: 'optional, kept in the audit log' });
  const button = h('button', {
    type: 'submit',
    class: 'primary',
    id: 'create-submit',
    text: 'Create stream',
  });
  const out = h('div', { id: 'create-result' });
  const onsubmit = (ev: Event) => {
    ev.preventDefault();
    const p = prefix.value.trim();
    const count = countOf(shards);
    if (!check(prefix, p !== '') || !check(shards, count !== null)) return;
    const g = group.value.trim();
    submit(
      button,
      out,
      () =>
        admin.createStream(p, {
          initialShardCount: count,
          consumerGroup: g || null,
          requestedBy: requestedBy(),
          reason: reason.value.trim() || null,
        }),
      (res) => {
        navigate(groupHref(res.streamPrefix, res.consumerGroup));
        return null;
      },
      'Not created',
    );
  };
  return h('div', { class: 'panel-body', id: 'create-stream' }, [
    h('form', { class: 'controls', novalidate: true, onsubmit }, [
      field('Stream prefix', prefix),
      field('Shards', shards),
      field('First consumer group', group),
      field('Reason', reason),
      button,
    ]),
    out,
  ]);
}

/** The scale form of stream `p` (all its groups); `current` fills the count once known. */
export function scaleForm(p: string): { el: HTMLElement; current: (shardCount: number) => void } {
  if (!canWrite()) {
    return { el: h('div', { id: 'scale' }, needsWrite('Scaling the stream')), current: () => {} };
  }
  const target = h('input', { id: 'scale-target', type: 'number', min: '0' });
  const reason = h('input', { id: 'scale-reason', placeholder: 'required, kept in the audit log' });
  const button = h('button', { type: 'submit', class: 'primary', id: 'scale-submit', text: 'Scale' });
  const out = h('div', { id: 'scale-result' });
  let touched = false;
  target.addEventListener('input', () => {
    touched = true;
  });
  const onsubmit = (ev: Event) => {
    ev.preventDefault();
    const count = countOf(target);
    const why = reason.value.trim();
    if (!check(target, count !== null) || !check(reason, why !== '') || count === null) return;
    submit(
      button,
      out,
      () => admin.scaleStream(p, { targetShardCount: count, requestedBy: requestedBy(), reason: why }),
      (res) => {
        void refreshNow();
        const m = res.migrations[0];
        const what = m
          ? [mono(m.reshardingId), ': ' + m.fromShardCount + ' → ' + m.toShardCount + ', ' + m.state]
          : 'no migration';
        return h('div', { class: 'alert ok', role: 'status' }, [
          'Scale accepted for ' + res.affectedConsumerGroups.length + ' group(s), ',
          what,
          '.',
        ]);
      },
      'Scale refused',
    );
  };
  return {
    el: h('div', { id: 'scale' }, [
      h('form', { class: 'controls', novalidate: true, onsubmit }, [
        field('Target shard count', target),
        field('Reason', reason),
        button,
      ]),
      h('p', {
        class: 'note',
        text: 'Scales the stream: every consumer group of it follows. A scale-in drains the removed shards before they are retired.',
      }),
      out,
    ]),
    current: (n) => {
      if (!touched) target.value = String(n);
    },
  };
}
