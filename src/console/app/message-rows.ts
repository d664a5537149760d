/**
 * Rows of the message browser: one record with its id, time, payload preview and other fields,
 * and (on the all-shards page) the shard it was read from. Records reach the page as text only.
 */
import type { GrafanaMessageRowJson, StreamMessageRecordJson } from './api-types.js';
import { h } from './dom.js';
import { fmtTime } from './format.js';
import { mono, td } from './widgets.js';

const PAYLOAD_PREVIEW = 2000;

/** One record as the browser shows it, whichever route it came from. */
export interface ShownRecord {
  recordId: string;
  recordTime: string | null;
  payload: string | null;
  fields: Record<string, unknown>;
  /** The shard it was read from (shown on the all-shards page). */
  shard: number;
}

/** A record of a shard's page. */
export function shardRecord(rec: StreamMessageRecordJson, shard: number): ShownRecord {
  return {
    recordId: rec.recordId,
    recordTime: rec.recordTime ?? null,
    payload: typeof rec.payload === 'string' ? rec.payload : null,
    fields: rec.fields || {},
    shard,
  };
}

/** A row of the merged all-shards page (its fields arrive as a JSON text). */
export function mergedRecord(row: GrafanaMessageRowJson): ShownRecord {
  let fields: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(row.fieldsJson);
    if (parsed && typeof parsed === 'object') fields = parsed as Record<string, unknown>;
  } catch {
    fields = { fieldsJson: row.fieldsJson };
  }
  return {
    recordId: row.recordId,
    recordTime: row.recordTime ?? null,
    payload: typeof row.payload === 'string' ? row.payload : null,
    fields,
    shard: row.shardIndex,
  };
}

function fieldsList(fields: Record<string, unknown>, skipPayload: boolean): HTMLElement | null {
  const keys = Object.keys(fields).filter((k) => !(skipPayload && k === 'payload'));
  if (!keys.length) return null;
  return h(
    'div',
    { class: 'fields' },
    keys.map((k) => {
      const v = String(fields[k]);
      return h('span', null, [h('b', { text: k + '=' }), v.length > 300 ? v.slice(0, 300) + '…' : v]);
    }),
  );
}

/** The table row of record number `n`; `withShard` adds the shard column. */
export function recordRow(rec: ShownRecord, n: number, withShard: boolean): HTMLTableRowElement {
  const content: Array<Node | null> = [];
  if (rec.payload !== null) {
    const long = rec.payload.length > PAYLOAD_PREVIEW;
    content.push(
      h(
        'pre',
        { class: 'payload', title: long ? 'truncated preview' : null },
        long ? rec.payload.slice(0, PAYLOAD_PREVIEW) + '…' : rec.payload,
      ),
    );
  }
  content.push(fieldsList(rec.fields, rec.payload !== null));
  return h('tr', { 'data-record-id': rec.recordId, 'data-shard': String(rec.shard) }, [
    td(String(n), 'num muted shrink'),
    withShard ? td(mono(':' + rec.shard, 'record-shard'), 'shrink') : null,
    td(mono(rec.recordId, 'record-id'), 'shrink'),
    td(rec.recordTime ? fmtTime(rec.recordTime, true) : '—', 'shrink'),
    td(content),
  ]);
}

/** The table's column headers. */
export function recordHeaders(withShard: boolean): Array<string | { text: string; cls: string }> {
  return [
    { text: '#', cls: 'num shrink' },
    ...(withShard ? [{ text: 'Shard', cls: 'shrink' }] : []),
    { text: 'Record id', cls: 'shrink' },
    { text: 'Time (UTC)', cls: 'shrink' },
    'Payload and fields',
  ];
}
