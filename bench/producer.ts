/**
 * Producer SDK benchmark (docs/performance.md#targets: ≥ 0.9× raw pipelined ioredis XADD for batches): SDK
 * `publish` against raw sequential `XADD`, and SDK `publishBatch` (100 records) against one raw
 * ioredis pipeline of the same 100 `XADD`s, on the same Redis in the same run; idempotent
 * variants (`eventId`: one script call per record alone, one per shard in a batch
 * sets ≥ 0.9× for the batch too). Median of 3 trials; within a trial both sides take turns on
 * chunks of 100 records (order alternating) so they share the load. Both sides route each record
 * with route-v1; the raw side takes the shard keys from a precomputed list. Routing comes from an
 * in-process reference-shaped answer (fetched once per lease, so the coordinator is not what is
 * measured). The last column is each side's Redis CPU per record (commandstats, each side alone
 * over 2,000 records): it shows how much of a gap is Redis work rather than client work.
 * Asserts nothing.
 */
import { Redis } from 'ioredis';
import { ioredisAdapter } from '../src/client/ioredis-adapter.js';
import { createProducer, type PublishRecord } from '../src/client/producer.js';
import type { FetchLike } from '../src/client/transport.js';
import { routeV1 } from '../src/routing/route-v1.js';

const SHARDS = 4;
const BATCH = 100;
const TRIALS = 3;
const SINGLE_RECORDS = 10_000;
const BATCH_RECORDS = 50_000;
const MAX_LEN = 100_000;
const PAYLOAD = 'x'.repeat(100);

interface Row {
  mode: string;
  baseline: string;
  records: number;
  sdk: number[];
  raw: number[];
  /** Redis CPU per record (commandstats), SDK side and raw side, µs. */
  redisUs?: { sdk: number; raw: number };
  target?: number;
}

const REDIS_RECORDS = 2_000;

/** Redis CPU (µs) of the top-level writes since the last CONFIG RESETSTAT: scripts count with what they run inside. */
async function redisWriteUs(client: Redis): Promise<number> {
  const info = await client.info('commandstats');
  const usec = (cmd: string) =>
    Number(new RegExp(`^cmdstat_${cmd}:calls=\\d+,usec=(\\d+)`, 'm').exec(info)?.[1] ?? 0);
  const scripts = usec('evalsha') + usec('eval') + usec('script\\|load');
  return scripts > 0 ? scripts : usec('xadd');
}

/** Redis CPU per record of `side` alone over REDIS_RECORDS records, µs. */
async function redisUsPerRecord(
  client: Redis,
  side: (chunk: PublishRecord[]) => Promise<void>,
  rs: PublishRecord[],
): Promise<number> {
  await client.config('RESETSTAT');
  for (let i = 0; i < rs.length; i += BATCH) await side(rs.slice(i, i + BATCH));
  return (await redisWriteUs(client)) / rs.length;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

function table(headers: string[], rows: Array<Array<string | number>>): string {
  const cells = rows.map((r) => r.map(String));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

/** A reference-shaped routing answer for `prefix`, served in process. */
function routingFetch(prefix: string): FetchLike {
  const body = JSON.stringify({
    streamPrefix: prefix,
    consumerGroup: prefix,
    metadataVersion: 1,
    shardCount: SHARDS,
    streamKeyPattern: `${prefix}:{shardIndex}`,
    shards: Array.from({ length: SHARDS }, (_, i) => ({
      shardIndex: i,
      streamKey: `${prefix}:${i}`,
      redisSlot: 0,
    })),
  });
  return async () => new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
}

function records(n: number, trial: number, idempotent: boolean): PublishRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    partitionKey: `customer-${i % 1000}`,
    fields: { payload: PAYLOAD, seq: String(i) },
    ...(idempotent ? { eventId: `t${trial}-${Date.now()}-${i}` } : {}),
  }));
}

/** Runs both sides over `rs` in chunks of BATCH, alternating which goes first; records per second of each. */
async function runPaired(
  rs: PublishRecord[],
  sdk: (chunk: PublishRecord[]) => Promise<void>,
  raw: (chunk: PublishRecord[]) => Promise<void>,
  trial: number,
): Promise<{ sdkRate: number; rawRate: number }> {
  let sdkMs = 0;
  let rawMs = 0;
  const time = async (fn: () => Promise<void>) => {
    const start = performance.now();
    await fn();
    return performance.now() - start;
  };
  for (let i = 0, j = trial; i < rs.length; i += BATCH, j++) {
    const chunk = rs.slice(i, i + BATCH);
    if (j % 2 === 0) {
      rawMs += await time(() => raw(chunk));
      sdkMs += await time(() => sdk(chunk));
    } else {
      sdkMs += await time(() => sdk(chunk));
      rawMs += await time(() => raw(chunk));
    }
  }
  return { sdkRate: rs.length / (sdkMs / 1000), rawRate: rs.length / (rawMs / 1000) };
}

/** Runs the producer benchmark on the Redis at `redisUrl` and returns a markdown table. */
export async function benchProducer(redisUrl: string): Promise<string> {
  const prefix = `bench-producer-${Date.now()}`;
  const keys = Array.from({ length: SHARDS }, (_, i) => `${prefix}:${i}`);
  const sdkClient = new Redis(redisUrl, { protocol: 2 });
  const rawClient = new Redis(redisUrl, { protocol: 2 });
  try {
    for (const k of keys) await rawClient.xadd(k, '*', 'init', '1');
    const producer = createProducer({
      coordinatorUrl: 'http://bench.invalid',
      streamPrefix: prefix,
      redis: ioredisAdapter(sdkClient),
      fetch: routingFetch(prefix),
      maxLen: MAX_LEN,
    });
    // The same, appending a batch's plain records with one script call per shard (the Upstash
    // adapter's default, where every command is billed): measured here to choose ioredis's default.
    const scripted = createProducer({
      coordinatorUrl: 'http://bench.invalid',
      streamPrefix: prefix,
      redis: ioredisAdapter(sdkClient, { batchPlainWrites: true }),
      fetch: routingFetch(prefix),
      maxLen: MAX_LEN,
    });
    const keyOf = (r: PublishRecord) => keys[routeV1(r.partitionKey, SHARDS)]!;
    const xaddArgs = (r: PublishRecord) => [
      'NOMKSTREAM',
      'MAXLEN',
      '~',
      String(MAX_LEN),
      '*',
      'payload',
      PAYLOAD,
      'seq',
      r.fields.seq!,
    ];

    // Each mode runs the SDK and the raw client on alternating chunks of the same records and
    // sums the time of each side, so both see the same machine load (the CI box is shared).
    type Side = (chunk: PublishRecord[]) => Promise<void>;
    const rawSingle: Side = async (chunk) => {
      for (const r of chunk) await rawClient.xadd(keyOf(r), ...xaddArgs(r));
    };
    const rawBatch: Side = async (chunk) => {
      const pipeline = rawClient.pipeline();
      for (const r of chunk) pipeline.xadd(keyOf(r), ...xaddArgs(r));
      await pipeline.exec();
    };
    const sdkScriptedBatch: Side = async (chunk) => {
      const out = await scripted.publishBatch(chunk);
      const failed = out.find((o) => !o.ok);
      if (failed && !failed.ok) throw failed.error;
    };
    const sdkSingle: Side = async (chunk) => {
      for (const r of chunk) await producer.publish(r);
    };
    const sdkBatch: Side = async (chunk) => {
      const out = await producer.publishBatch(chunk);
      const failed = out.find((o) => !o.ok);
      if (failed && !failed.ok) throw failed.error;
    };

    const modes: Array<{ row: Omit<Row, 'sdk' | 'raw'>; sdk: Side; raw: Side; idempotent: boolean }> = [
      {
        row: { mode: 'publish (sequential)', baseline: 'XADD sequential', records: SINGLE_RECORDS },
        sdk: sdkSingle,
        raw: rawSingle,
        idempotent: false,
      },
      {
        row: {
          mode: `publishBatch (${BATCH})`,
          baseline: `pipeline of ${BATCH} XADD`,
          records: BATCH_RECORDS,
          target: 0.9,
        },
        sdk: sdkBatch,
        raw: rawBatch,
        idempotent: false,
      },
      {
        row: {
          mode: `publishBatch (${BATCH}), one script per shard`,
          baseline: `pipeline of ${BATCH} XADD`,
          records: BATCH_RECORDS,
          target: 0.9,
        },
        sdk: sdkScriptedBatch,
        raw: rawBatch,
        idempotent: false,
      },
      {
        row: { mode: 'publish + eventId (sequential)', baseline: 'XADD sequential', records: SINGLE_RECORDS },
        sdk: sdkSingle,
        raw: rawSingle,
        idempotent: true,
      },
      {
        row: {
          mode: `publishBatch (${BATCH}) + eventId`,
          baseline: `pipeline of ${BATCH} XADD`,
          records: BATCH_RECORDS,
          target: 0.9,
        },
        sdk: sdkBatch,
        raw: rawBatch,
        idempotent: true,
      },
    ];

    const rows: Row[] = [];
    for (const m of modes) {
      // Warm-up: JIT, connections, script cache.
      await runPaired(records(1000, -1, m.idempotent), m.sdk, m.raw, 0);
      const row: Row = { ...m.row, sdk: [], raw: [] };
      for (let t = 0; t < TRIALS; t++) {
        const { sdkRate, rawRate } = await runPaired(
          records(m.row.records, t, m.idempotent),
          m.sdk,
          m.raw,
          t,
        );
        row.sdk.push(sdkRate);
        row.raw.push(rawRate);
      }
      // Where the time goes: Redis CPU per record of each side alone (same records, same server).
      row.redisUs = {
        sdk: await redisUsPerRecord(rawClient, m.sdk, records(REDIS_RECORDS, 100, m.idempotent)),
        raw: await redisUsPerRecord(rawClient, m.raw, records(REDIS_RECORDS, 101, m.idempotent)),
      };
      rows.push(row);
    }
    return [
      `### Producer SDK throughput (${SHARDS} shards, ${PAYLOAD.length}-byte payload, MAXLEN ~ ${MAX_LEN}, median of ${TRIALS} trials)`,
      table(
        [
          'SDK mode',
          'raw ioredis baseline',
          'records/trial',
          'SDK rec/s',
          'raw rec/s',
          'ratio',
          'target',
          'Redis µs/record SDK / raw',
        ],
        rows.map((r) => [
          r.mode,
          r.baseline,
          r.records,
          median(r.sdk).toFixed(0),
          median(r.raw).toFixed(0),
          `${(median(r.sdk) / median(r.raw)).toFixed(2)}×`,
          r.target === undefined ? '—' : `≥ ${r.target}×`,
          r.redisUs ? `${r.redisUs.sdk.toFixed(2)} / ${r.redisUs.raw.toFixed(2)}` : '—',
        ]),
      ),
    ].join('\n');
  } finally {
    // Shard streams and idempotency markers of this run.
    let cursor = '0';
    do {
      const [next, found] = await rawClient.scan(cursor, 'MATCH', `*${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (found.length > 0) await rawClient.del(...found);
    } while (cursor !== '0');
    sdkClient.disconnect();
    rawClient.disconnect();
  }
}
