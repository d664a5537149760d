/**
 * The record tables of the pending page (view-pending.ts): one shard's pending entries, marked
 * from the delivery count at which the consumer SDK dead-letters, and the group's dead letters
 * (docs/console.md#pending).
 */
import type { DeadLettersJson, PendingEntriesJson } from '../../client/admin-client.js';
import { describeError, type Optional } from './api.js';
import { type Child, h } from './dom.js';
import { fmtDuration, fmtNum, fmtTime } from './format.js';
import { link, messagesHref } from './router.js';
import { alertBox, badge, dash, mono, table, td } from './widgets.js';

/**
 * Deliveries at which an entry is marked: the consumer SDK's default `maxDeliveries`, past which
 * it dead-letters a record (the coordinator does not know what each consumer was given).
 */
export const DEAD_LETTER_AT = 5;
/** Entries and dead letters per page. */
export const PAGE = 50;

/** The picked shard's pending entries, marked at `DEAD_LETTER_AT` deliveries and more. */
export function entriesTable(page: Optional<PendingEntriesJson>, first: boolean): Child {
  if (page.data === null) return alertBox('Pending entries are unavailable: ' + describeError(page.error));
  const entries = page.data.entries;
  if (!entries.length) {
    return h('p', {
      class: 'empty',
      id: 'no-pending-entries',
      text: first
        ? 'Nothing is pending on this shard: every record delivered to the group was acknowledged.'
        : 'No more pending entries on this shard.',
    });
  }
  return table(
    ['Record id', 'Held by', { text: 'Idle', cls: 'num' }, { text: 'Deliveries', cls: 'num' }],
    entries.map((e) => {
      const over = e.deliveryCount >= DEAD_LETTER_AT;
      return h('tr', { 'data-entry': e.id, class: over ? 'over-limit' : null }, [
        td(mono(e.id, 'entry-id')),
        td(mono(e.consumer, 'member')),
        td(fmtDuration(e.idleMs), 'num idle'),
        td(
          [
            h('span', { class: 'delivery-count', text: fmtNum(e.deliveryCount) }),
            over ? [' ', badge('≥ ' + DEAD_LETTER_AT, 'bad')] : null,
          ],
          'num',
        ),
      ]);
    }),
  );
}

/** The group's dead letters: when, where from, who gave up, after how many deliveries, why. */
export function deadLetterTable(
  p: string,
  g: string,
  page: Optional<DeadLettersJson>,
  first: boolean,
): Child {
  if (page.data === null) return alertBox('Dead letters are unavailable: ' + describeError(page.error));
  const d = page.data;
  const stopped = d.stoppedEarly
    ? alertBox(
        'Read ' +
          fmtNum(d.scanned) +
          ' dead-letter entries (most of them other groups’) without filling the page; "Older" reads on.',
        'warn',
      )
    : null;
  if (!d.entries.length) {
    return [
      stopped,
      h('p', {
        class: 'empty',
        id: 'no-dead-letters',
        text: first
          ? 'No dead letters for this group in ' + d.deadLetterKey + '.'
          : 'No older dead letters for this group.',
      }),
    ];
  }
  return [
    stopped,
    table(
      ['Dead-lettered', 'Original record', 'Member', { text: 'Deliveries', cls: 'num' }, 'Error'],
      d.entries.map((e) =>
        h('tr', { 'data-dead-letter': e.deadLetterId }, [
          td(e.deadLetterTime ? fmtTime(e.deadLetterTime) : mono(e.deadLetterId)),
          td([
            e.originalShardIndex !== null
              ? link(messagesHref(p, g, e.originalShardIndex), mono(':' + e.originalShardIndex, 'shard-id'))
              : e.originalStreamKey
                ? mono(e.originalStreamKey)
                : dash(),
            ' ',
            e.originalId ? mono(e.originalId, 'original-id') : dash(),
          ]),
          td(e.member ? mono(e.member, 'member') : dash()),
          td(e.deliveryCount !== null ? fmtNum(e.deliveryCount) : '—', 'num dead-deliveries'),
          td(
            e.error
              ? h('span', {
                  class: 'dead-error',
                  text: e.error.length > 300 ? e.error.slice(0, 300) + '…' : e.error,
                })
              : dash(),
          ),
        ]),
      ),
    ),
  ];
}
