/**
 * The members table of a group with lease countdowns (`memberLeaseExpiresAt − now`) that tick
 * between refreshes.
 */
import { describeError } from './api.js';
import type { MemberJson } from './api-types.js';
import { fill, h } from './dom.js';
import { fmtDuration, fmtNum, fmtTime, parseTime, shardList } from './format.js';
import type { GroupData } from './group-data.js';
import { alertBox, mono, shardChips, stateBadge, table, td } from './widgets.js';

function leaseCell(m: MemberJson): HTMLSpanElement {
  const expires = parseTime(m.memberLeaseExpiresAt);
  const since = parseTime(m.lastHeartbeatAt);
  if (expires === null) return h('span', { class: 'muted', text: '—' });
  const bar = h('span', { class: 'bar' }, h('i'));
  return h(
    'span',
    { class: 'lease', 'data-expires': String(expires), 'data-since': since === null ? '' : String(since) },
    [bar, h('span', { class: 'lease-left mono' })],
  );
}

/** Updates every countdown under `root` from the browser's clock. */
export function tickLeases(root: HTMLElement, now: number): void {
  root.querySelectorAll<HTMLElement>('[data-expires]').forEach((el) => {
    const expires = Number(el.getAttribute('data-expires'));
    const since = el.getAttribute('data-since') ? Number(el.getAttribute('data-since')) : null;
    const left = expires - now;
    const text = el.querySelector('.lease-left');
    if (text)
      text.textContent = left > 0 ? fmtDuration(left) + ' left' : 'expired ' + fmtDuration(-left) + ' ago';
    const bar = el.querySelector('.bar');
    const inner = bar?.firstChild;
    if (!bar || !(inner instanceof HTMLElement)) return;
    const span = since !== null && expires > since ? expires - since : null;
    const frac = span ? Math.max(0, Math.min(1, left / span)) : left > 0 ? 1 : 0;
    inner.style.width = Math.round(frac * 100) + '%';
    bar.className = 'bar' + (left <= 0 ? ' gone' : frac < 0.34 ? ' low' : '');
  });
  root.querySelectorAll('[data-ago]').forEach((el) => {
    el.textContent = fmtDuration(now - Number(el.getAttribute('data-ago'))) + ' ago';
  });
}

function agoCell(iso: string | null | undefined): HTMLSpanElement {
  const t = parseTime(iso);
  if (t === null) return h('span', { class: 'muted', text: '—' });
  return h('span', { class: 'nowrap', 'data-ago': String(t), title: fmtTime(iso) });
}

function sameShards(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function memberRow(m: MemberJson, target: Record<string, unknown>): HTMLTableRowElement {
  const current = shardList(m.currentAssignment);
  const granted = shardList(m.grantedAssignment);
  return h('tr', { 'data-member': m.memberId }, [
    td([
      mono(m.memberId, 'member-id'),
      m.memberName && m.memberName !== m.memberId
        ? h('div', { class: 'small muted', text: m.memberName })
        : null,
    ]),
    td(stateBadge(m.state)),
    td(fmtNum(m.memberEpoch), 'num'),
    td(shardChips(shardList(target[m.memberId]))),
    td(shardChips(current)),
    td(
      sameShards(granted, current) ? h('span', { class: 'muted small', text: 'same' }) : shardChips(granted),
    ),
    td(shardChips(shardList(m.revoking))),
    td(fmtNum(m.activeConsumerWorkers) + ' / ' + fmtNum(m.runtimeMaxConcurrency), 'num'),
    td(agoCell(m.lastHeartbeatAt)),
    td(leaseCell(m)),
  ]);
}

/** The members table (or why it is missing). */
export function renderMembers(body: HTMLElement, ctx: GroupData): void {
  if (ctx.members.error) {
    fill(
      body,
      h('p', { class: 'empty' }, alertBox('Members are unavailable: ' + describeError(ctx.members.error))),
    );
    return;
  }
  const members = ctx.members.data?.members || [];
  if (!members.length) {
    fill(
      body,
      h('p', {
        class: 'empty',
        id: 'no-members',
        text: 'No members. Consumers join by sending a heartbeat with memberEpoch 0.',
      }),
    );
    return;
  }
  const target: Record<string, unknown> = ctx.assignments.data?.targetAssignment || {};
  fill(
    body,
    table(
      [
        'Member',
        'State',
        { text: 'Epoch', cls: 'num' },
        'Target',
        'Current',
        'Granted',
        'Revoking',
        { text: 'Workers', cls: 'num' },
        'Last heartbeat',
        'Lease',
      ],
      members.map((m) => memberRow(m, target)),
    ),
  );
}
