import { Redis } from '@upstash/redis';
import { describe, expect, it } from 'vitest';
import { IDEMPOTENT_BATCH } from '../store/scripts/idempotent-batch.js';
import { IDEMPOTENT_PUBLISH } from '../store/scripts/idempotent-publish.js';
import { type UpstashRedisLike, upstashAdapter } from './upstash-adapter.js';

// What the adapter hands the real @upstash/redis client ends up as these REST bodies. The
// Redis side is covered against real Redis in test/client/producer-upstash.test.ts.
function recordingClient(reply: (body: unknown, path: string[] | undefined) => unknown) {
  const sent: Array<{ path: string[] | undefined; body: unknown }> = [];
  const client = new Redis({
    request: async <T>(req: { path?: string[]; body?: unknown }) => {
      sent.push({ path: req.path, body: req.body });
      return reply(req.body, req.path) as { result?: T; error?: string };
    },
  });
  return { client, sent };
}

describe('upstash adapter > argument encoding', () => {
  it('accepts a real @upstash/redis client', () => {
    const typed: UpstashRedisLike = new Redis({
      url: 'https://example.invalid',
      token: 't',
      enableTelemetry: false,
    });
    expect(typeof upstashAdapter(typed).xaddNoMkStream).toBe('function');
  });

  it('sends XADD key NOMKSTREAM MAXLEN ~ N * field value …', async () => {
    const { client, sent } = recordingClient(() => ({ result: '1-0' }));
    const id = await upstashAdapter(client).xaddNoMkStream('orders:1', 100000, true, {
      payload: 'x',
      n: '1',
    });
    expect(id).toBe('1-0');
    expect(sent[0]!.body).toEqual([
      'XADD',
      'orders:1',
      'NOMKSTREAM',
      'MAXLEN',
      '~',
      100000,
      '*',
      'payload',
      'x',
      'n',
      '1',
    ]);
  });

  it('sends MAXLEN = for exact trimming and reads nil as a missing key', async () => {
    const { client, sent } = recordingClient(() => ({ result: null }));
    expect(await upstashAdapter(client).xaddNoMkStream('k', 7, false, { a: 'b' })).toBeNull();
    expect(sent[0]!.body).toEqual(['XADD', 'k', 'NOMKSTREAM', 'MAXLEN', '=', 7, '*', 'a', 'b']);
  });

  it('sends EVALSHA with the shard, incarnation and marker keys and string arguments, then EVAL on NOSCRIPT', async () => {
    const { client, sent } = recordingClient((body) =>
      (body as string[])[0] === 'evalsha'
        ? { error: 'NOSCRIPT No matching script. Please use EVAL.' }
        : { result: [2, '9-0'] },
    );
    const reply = await upstashAdapter(client).evalIdempotent({
      key: 'orders:2',
      eventId: 'e1',
      ttlSeconds: 60,
      maxLen: 100,
      approx: true,
      fields: { a: '1' },
    });
    expect(reply).toEqual({ status: 'added', entryId: '9-0' });
    // Counts travel as JSON numbers (the REST API stringifies them); the script's ARGV are strings.
    // The shard's incarnation is not known yet: the marker is named with '' (the script would answer it).
    const keys = ['orders:2', '{orders:2}:incarnation', '{orders:2}:idem::e1'];
    const tail = [3, ...keys, '', '60', '100', '~', 'a', '1'];
    expect(sent.map((s) => s.body)).toEqual([
      ['evalsha', IDEMPOTENT_PUBLISH.sha1, ...tail],
      ['eval', IDEMPOTENT_PUBLISH.lua, ...tail],
    ]);
  });

  it('pipelines the scripts behind their SCRIPT LOADs and reports each write, re-sending only NOSCRIPT calls with EVAL', async () => {
    let round = 0;
    const { client, sent } = recordingClient(() => {
      round++;
      return round === 1
        ? [
            { result: IDEMPOTENT_BATCH.sha1 },
            { result: IDEMPOTENT_PUBLISH.sha1 },
            { error: 'NOSCRIPT No matching script' },
            { result: [2, '7-0'] },
            { error: 'WRONGTYPE nope' },
          ]
        : [
            {
              result: [
                [2, '1-0'],
                [1, '0-5'],
                [3, 'WRONGTYPE not a stream'],
              ],
            },
          ];
    });
    const write = { key: 'orders:0', maxLen: 10, approx: true, fields: { f: 'v' } };
    const one = { ...write, key: 'orders:1' };
    // The pipelined path (oneCallPerBatch off; the default is covered below).
    const out = (await upstashAdapter(client, { oneCallPerBatch: false }).pipelineShards([
      // Several writes with an eventId on one shard: one batch-script call.
      [
        { kind: 'xadd', ...write },
        { kind: 'idempotent', ...write, eventId: 'e', ttlSeconds: 5 },
        { kind: 'xadd', ...write },
      ],
      // A lone idempotent write and a lone plain one: single commands.
      [{ kind: 'idempotent', ...one, eventId: 'e', ttlSeconds: 5 }],
      [{ kind: 'xadd', ...write, key: 'orders:2' }],
    ])) as unknown[][];
    expect(out[0]![0]).toEqual({ status: 'added', entryId: '1-0' });
    expect(out[0]![1]).toEqual({ status: 'duplicate', entryId: '0-5' });
    expect(out[0]![2]).toMatchObject({ status: 'error', error: { code: 'REDIS_ERROR', inDoubt: false } });
    expect(out[1]![0]).toEqual({ status: 'added', entryId: '7-0' });
    expect(out[2]![0]).toMatchObject({ status: 'error', error: { code: 'REDIS_ERROR', inDoubt: false } });
    expect(sent.map((s) => s.path)).toEqual([['pipeline'], ['pipeline']]);
    // The scripts are loaded ahead of the writes; only the NOSCRIPT call is re-sent, with EVAL.
    expect((sent[0]!.body as string[][]).map((c) => c[0])).toEqual(
      ['script', 'script', 'evalsha', 'evalsha', 'xadd'].map((x) =>
        expect.stringMatching(new RegExp(`^${x}$`, 'i')),
      ),
    );
    expect((sent[1]!.body as string[][]).map((c) => c[0])).toEqual(['eval']);
    // The batch call: KEYS = shard + its incarnation + the one marker; ARGV = the segment's key and
    // argument counts, the incarnation the marker is named with, limits, then per record: marker
    // position, field count, fields.
    expect((sent[1]!.body as unknown[][])[0]).toEqual([
      'eval',
      IDEMPOTENT_BATCH.lua,
      3,
      'orders:0',
      '{orders:0}:incarnation',
      '{orders:0}:idem::e',
      ...['3', '16', '', '5', '10', '~', '0', '2', 'f', 'v', '3', '2', 'f', 'v', '0', '2', 'f', 'v'],
    ]);
  });

  it('sends the groups of several shards as one REST pipeline and splits the outcomes back', async () => {
    const { client, sent } = recordingClient((body) =>
      (body as unknown[]).map((_, i) => ({ result: `${i}-0` })),
    );
    const xadd = (key: string) => ({
      kind: 'xadd' as const,
      key,
      maxLen: 1,
      approx: true,
      fields: { a: 'b' },
    });
    // Plain XADDs here (a shard's records in one script call are covered against real Redis).
    const adapter = upstashAdapter(client, { batchPlainWrites: false, oneCallPerBatch: false });
    const out = await adapter.pipelineShards([[xadd('s:0'), xadd('s:0')], [xadd('s:1')]]);
    expect(sent).toHaveLength(1);
    expect(out).toEqual([
      [
        { status: 'added', entryId: '0-0' },
        { status: 'added', entryId: '1-0' },
      ],
      [{ status: 'added', entryId: '2-0' }],
    ]);
  });

  it('sends a batch over several shards as one batch-script call by default, a segment per shard', async () => {
    const { client, sent } = recordingClient(() => ({ result: [[2, '1-0'], [2, '2-0'], [0]] }));
    const write = { kind: 'xadd' as const, maxLen: 9, approx: false, fields: { a: 'b' } };
    const out = await upstashAdapter(client).pipelineShards([
      [
        { ...write, key: 's:0' },
        { ...write, key: 's:0' },
      ],
      [],
      [{ ...write, key: 's:2' }],
    ]);
    // One request: a single EVALSHA, not a pipeline.
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toEqual([
      'evalsha',
      IDEMPOTENT_BATCH.sha1,
      4,
      ...['s:0', '{s:0}:incarnation', 's:2', '{s:2}:incarnation'],
      ...['2', '12', '*', '1', '9', '=', '0', '2', 'a', 'b', '0', '2', 'a', 'b'],
      ...['2', '8', '*', '1', '9', '=', '0', '2', 'a', 'b'],
    ]);
    expect(out).toEqual([
      [
        { status: 'added', entryId: '1-0' },
        { status: 'added', entryId: '2-0' },
      ],
      [],
      [{ status: 'missing' }],
    ]);
  });

  it('reports a failed pipeline request as in doubt for every write', async () => {
    const client = new Redis({
      request: async () => {
        throw new TypeError('fetch failed');
      },
    });
    const write = { kind: 'xadd' as const, key: 'k', maxLen: 1, approx: true, fields: { a: 'b' } };
    const out = await upstashAdapter(client).pipelineShards([[write], [{ ...write, key: 'k2' }]]);
    for (const o of out.flat())
      expect(o).toMatchObject({ status: 'error', error: { inDoubt: true, retryable: true } });
  });
});
