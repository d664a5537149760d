import { describe, expect, it } from 'vitest';
import { FakeCoordinator, testConfig } from '../../test/support/http-fakes.js';
import { createApp } from './app.js';

const BASE = '/coord/v1';
const HB = `${BASE}/streams/orders/groups/orders/members/m-1/heartbeat`;

function setup(config = testConfig()) {
  const fake = new FakeCoordinator();
  const app = createApp({ coordinator: fake, config });
  return { app, fake };
}

const heartbeat = () => ({
  protocolVersion: 1,
  requestId: 'req-1',
  memberId: 'm-1',
  memberName: 'm-1',
  memberEpoch: 0,
  metadataVersion: 0,
  runtimeConsumerCapacity: { runtimeMaxConcurrency: 1, availableConcurrency: 1 },
  ownedShards: [{ shardIndex: 0 }],
  revokingShards: [{ shard: { shardIndex: 1 }, state: 'DRAINING', inFlight: 1, ackedAt: null }],
  shardProgress: [
    {
      shard: { shardIndex: 0 },
      streamKey: 'orders:0',
      lastDeliveredId: null,
      lastAckedId: null,
      pendingCount: 0,
      updatedAt: null,
    },
  ],
});

// biome-ignore lint/suspicious/noExplicitAny: the cases poke at arbitrary JSON on purpose
type Json = Record<string, any>;

/** Deep-clones `base` and applies `edit` to the copy. */
function edited<T>(base: T, edit: (b: Json) => void): T {
  const copy = structuredClone(base) as Json;
  edit(copy);
  return copy as T;
}

interface Case {
  name: string;
  method?: string;
  path: string;
  /** A value is sent as JSON; a string is sent verbatim. */
  body?: unknown;
  raw?: string | Uint8Array;
  contentType?: string | null;
  /** Substring the error message must contain. */
  message: string;
}

const long = 'x'.repeat(201);
const createStream = { requestedBy: 'ops' };

const cases: Case[] = [
  // --- transport ---
  {
    name: 'malformed JSON',
    path: `${BASE}/streams/orders`,
    raw: '{"requestedBy":',
    message: 'body: is not valid JSON',
  },
  { name: 'missing body', path: `${BASE}/streams/orders`, raw: '', message: 'body: is required' },
  {
    name: 'missing body on DELETE',
    method: 'DELETE',
    path: `${BASE}/streams/orders/groups/g`,
    raw: '',
    message: 'body: is required',
  },
  { name: 'missing body on heartbeat', path: HB, raw: '', message: 'body: is required' },
  {
    name: 'wrong content-type',
    path: `${BASE}/streams/orders`,
    raw: JSON.stringify(createStream),
    contentType: 'text/plain',
    message: 'Content-Type: must be application/json',
  },
  {
    name: 'no content-type',
    path: `${BASE}/streams/orders`,
    raw: JSON.stringify(createStream),
    contentType: null,
    message: 'Content-Type: must be application/json',
  },
  {
    name: 'invalid UTF-8',
    path: `${BASE}/streams/orders`,
    raw: Uint8Array.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
    message: 'body: is not valid UTF-8',
  },
  { name: 'body is an array', path: `${BASE}/streams/orders`, body: [createStream], message: 'body: ' },
  { name: 'body is null', path: `${BASE}/streams/orders`, body: null, message: 'body: ' },
  { name: 'body is a string', path: `${BASE}/streams/orders`, body: 'ops', message: 'body: ' },
  // --- path parameters ---
  {
    name: 'blank prefix',
    path: `${BASE}/streams/%20%20`,
    body: createStream,
    message: 'streamPrefix: must not be blank',
  },
  {
    name: 'prefix with braces',
    path: `${BASE}/streams/%7Borders%7D`,
    body: createStream,
    message: 'streamPrefix: must not contain { or }',
  },
  {
    name: 'prefix with one brace',
    path: `${BASE}/streams/ord%7Ders`,
    body: createStream,
    message: 'streamPrefix: must not contain',
  },
  { name: 'prefix too long', path: `${BASE}/streams/${long}`, body: createStream, message: 'streamPrefix: ' },
  {
    name: 'group blank',
    path: `${BASE}/streams/orders/groups/%20`,
    body: createStream,
    message: 'consumerGroup: must not be blank',
  },
  {
    name: 'group too long',
    path: `${BASE}/streams/orders/groups/${long}`,
    body: createStream,
    message: 'consumerGroup: ',
  },
  {
    name: 'member blank',
    path: `${BASE}/streams/orders/groups/g/members/%20/heartbeat`,
    body: heartbeat(),
    message: 'memberId: must not be blank',
  },
  {
    name: 'member too long',
    path: `${BASE}/streams/orders/groups/g/members/${long}/heartbeat`,
    body: heartbeat(),
    message: 'memberId: ',
  },
  // --- create stream ---
  { name: 'requestedBy missing', path: `${BASE}/streams/orders`, body: {}, message: 'requestedBy: ' },
  {
    name: 'requestedBy blank',
    path: `${BASE}/streams/orders`,
    body: { requestedBy: ' \t' },
    message: 'requestedBy: must not be blank',
  },
  {
    name: 'requestedBy number',
    path: `${BASE}/streams/orders`,
    body: { requestedBy: 7 },
    message: 'requestedBy: ',
  },
  {
    name: 'initialShardCount 0',
    path: `${BASE}/streams/orders`,
    body: { ...createStream, initialShardCount: 0 },
    message: 'initialShardCount: ',
  },
  {
    name: 'initialShardCount negative',
    path: `${BASE}/streams/orders`,
    body: { ...createStream, initialShardCount: -2 },
    message: 'initialShardCount: ',
  },
  {
    name: 'initialShardCount fractional',
    path: `${BASE}/streams/orders`,
    body: { ...createStream, initialShardCount: 1.5 },
    message: 'initialShardCount: ',
  },
  {
    name: 'initialShardCount string',
    path: `${BASE}/streams/orders`,
    body: { ...createStream, initialShardCount: '4' },
    message: 'initialShardCount: ',
  },
  {
    name: 'initialShardCount unsafe',
    path: `${BASE}/streams/orders`,
    body: { ...createStream, initialShardCount: 2 ** 60 },
    message: 'initialShardCount: ',
  },
  {
    name: 'initialShardCount above the configured maximum',
    path: `${BASE}/streams/orders`,
    body: { ...createStream, initialShardCount: 1025 },
    message: 'initialShardCount: must be at most 1024',
  },
  {
    name: 'initialShardCount overflowing JSON number',
    path: `${BASE}/streams/orders`,
    raw: '{"requestedBy":"ops","initialShardCount":1e400}',
    message: 'initialShardCount: ',
  },
  {
    name: 'consumerGroup blank',
    path: `${BASE}/streams/orders`,
    body: { ...createStream, consumerGroup: '' },
    message: 'consumerGroup: must not be blank',
  },
  {
    name: 'consumerGroup too long',
    path: `${BASE}/streams/orders`,
    body: { ...createStream, consumerGroup: long },
    message: 'consumerGroup: ',
  },
  {
    name: 'consumerGroup number',
    path: `${BASE}/streams/orders`,
    body: { ...createStream, consumerGroup: 3 },
    message: 'consumerGroup: ',
  },
  {
    name: 'reason number',
    path: `${BASE}/streams/orders`,
    body: { ...createStream, reason: 3 },
    message: 'reason: ',
  },
  // --- create group ---
  {
    name: 'group: requestedBy missing',
    path: `${BASE}/streams/orders/groups/g`,
    body: { reason: 'x' },
    message: 'requestedBy: ',
  },
  {
    name: 'group: initialShardCount 0',
    path: `${BASE}/streams/orders/groups/g`,
    body: { ...createStream, initialShardCount: 0 },
    message: 'initialShardCount: ',
  },
  // --- delete group ---
  {
    name: 'delete: reason missing',
    method: 'DELETE',
    path: `${BASE}/streams/orders/groups/g`,
    body: { requestedBy: 'ops' },
    message: 'reason: ',
  },
  {
    name: 'delete: reason blank',
    method: 'DELETE',
    path: `${BASE}/streams/orders/groups/g`,
    body: { requestedBy: 'ops', reason: ' ' },
    message: 'reason: must not be blank',
  },
  {
    name: 'delete: requestedBy blank',
    method: 'DELETE',
    path: `${BASE}/streams/orders/groups/g`,
    body: { requestedBy: '', reason: 'x' },
    message: 'requestedBy: must not be blank',
  },
  {
    name: 'delete: force not boolean',
    method: 'DELETE',
    path: `${BASE}/streams/orders/groups/g`,
    body: { requestedBy: 'o', reason: 'x', force: 'yes' },
    message: 'force: ',
  },
  // --- heartbeat ---
  {
    name: 'protocolVersion 0',
    path: HB,
    body: edited(heartbeat(), (b) => {
      b.protocolVersion = 0;
    }),
    message: 'protocolVersion: ',
  },
  {
    name: 'protocolVersion missing',
    path: HB,
    body: edited(heartbeat(), (b) => {
      delete b.protocolVersion;
    }),
    message: 'protocolVersion: ',
  },
  {
    name: 'protocolVersion string',
    path: HB,
    body: edited(heartbeat(), (b) => {
      b.protocolVersion = '1';
    }),
    message: 'protocolVersion: ',
  },
  {
    name: 'protocolVersion fractional',
    path: HB,
    body: edited(heartbeat(), (b) => {
      b.protocolVersion = 1.5;
    }),
    message: 'protocolVersion: ',
  },
  {
    name: 'requestId missing',
    path: HB,
    body: edited(heartbeat(), (b) => {
      delete b.requestId;
    }),
    message: 'requestId: ',
  },
  {
    name: 'requestId blank',
    path: HB,
    body: edited(heartbeat(), (b) => {
      b.requestId = ' ';
    }),
    message: 'requestId: must not be blank',
  },
  {
    name: 'memberId missing',
    path: HB,
    body: edited(heartbeat(), (b) => {
      delete b.memberId;
    }),
    message: 'memberId: ',
  },
  {
    name: 'memberId blank',
    path: HB,
    body: edited(heartbeat(), (b) => {
      b.memberId = '';
    }),
    message: 'memberId: must not be blank',
  },
  {
    name: 'memberName number',
    path: HB,
    body: edited(heartbeat(), (b) => {
      b.memberName = 1;
    }),
    message: 'memberName: ',
  },
  {
    name: 'memberEpoch missing',
    path: HB,
    body: edited(heartbeat(), (b) => {
      delete b.memberEpoch;
    }),
    message: 'memberEpoch: ',
  },
  {
    name: 'memberEpoch null',
    path: HB,
    body: edited(heartbeat(), (b) => {
      b.memberEpoch = null;
    }),
    message: 'memberEpoch: ',
  },
  {
    name: 'memberEpoch fractional',
    path: HB,
    body: edited(heartbeat(), (b) => {
      b.memberEpoch = 0.5;
    }),
    message: 'memberEpoch: ',
  },
  {
    name: 'memberEpoch unsafe',
    path: HB,
    body: edited(heartbeat(), (b) => {
      b.memberEpoch = 2 ** 53;
    }),
    message: 'memberEpoch: ',
  },
  {
    name: 'metadataVersion missing',
    path: HB,
    body: edited(heartbeat(), (b) => {
      delete b.metadataVersion;
    }),
    message: 'metadataVersion: ',
  },
  {
    name: 'metadataVersion string',
    path: HB,
    body: edited(heartbeat(), (b) => {
      b.metadataVersion = '0';
    }),
    message: 'metadataVersion: ',
  },
  {
    name: 'capacity missing',
    path: HB,
    body: edited(heartbeat(), (b) => {
      delete b.runtimeConsumerCapacity;
    }),
    message: 'runtimeConsumerCapacity: ',
  },
  {
    name: 'runtimeMaxConcurrency 0',
    path: HB,
    body: edited(heartbeat(), (b) => {
      b.runtimeConsumerCapacity.runtimeMaxConcurrency = 0;
    }),
    message: 'runtimeConsumerCapacity.runtimeMaxConcurrency: ',
  },
  {
    name: 'availableConcurrency negative',
    path: HB,
    body: edited(heartbeat(), (b) => {
      b.runtimeConsumerCapacity.availableConcurrency = -1;
    }),
    message: 'runtimeConsumerCapacity.availableConcurrency: ',
  },
  {
    name: 'ownedShards not a list',
    path: HB,
    body: edited(heartbeat(), (b) => {
      b.ownedShards = { shardIndex: 0 };
    }),
    message: 'ownedShards: ',
  },
  {
    name: 'ownedShards bare number',
    path: HB,
    body: edited(heartbeat(), (b) => {
      b.ownedShards = [0];
    }),
    message: 'ownedShards[0]: ',
  },
  {
    name: 'shardIndex negative',
    path: HB,
    body: edited(heartbeat(), (b) => {
      b.ownedShards = [{ shardIndex: -1 }];
    }),
    message: 'ownedShards[0].shardIndex: ',
  },
  {
    name: 'shardIndex too big',
    path: HB,
    body: edited(heartbeat(), (b) => {
      b.ownedShards = [{ shardIndex: 0 }, { shardIndex: 16384 }];
    }),
    message: 'ownedShards[1].shardIndex: ',
  },
  {
    name: 'shardIndex fractional',
    path: HB,
    body: edited(heartbeat(), (b) => {
      b.ownedShards = [{ shardIndex: 0.5 }];
    }),
    message: 'ownedShards[0].shardIndex: ',
  },
  {
    name: 'shardIndex missing',
    path: HB,
    body: edited(heartbeat(), (b) => {
      b.ownedShards = [{}];
    }),
    message: 'ownedShards[0].shardIndex: ',
  },
  {
    name: 'revoking state unknown',
    path: HB,
    body: edited(heartbeat(), (b) => {
      b.revokingShards[0].state = 'GONE';
    }),
    message: 'revokingShards[0].state: ',
  },
  {
    name: 'revoking state missing',
    path: HB,
    body: edited(heartbeat(), (b) => {
      delete b.revokingShards[0].state;
    }),
    message: 'revokingShards[0].state: ',
  },
  {
    name: 'revoking shard missing',
    path: HB,
    body: edited(heartbeat(), (b) => {
      delete b.revokingShards[0].shard;
    }),
    message: 'revokingShards[0].shard: ',
  },
  {
    name: 'revoking inFlight negative',
    path: HB,
    body: edited(heartbeat(), (b) => {
      b.revokingShards[0].inFlight = -1;
    }),
    message: 'revokingShards[0].inFlight: ',
  },
  {
    name: 'revoking ackedAt not an instant',
    path: HB,
    body: edited(heartbeat(), (b) => {
      b.revokingShards[0].ackedAt = 'yesterday';
    }),
    message: 'revokingShards[0].ackedAt: ',
  },
  {
    name: 'progress streamKey missing',
    path: HB,
    body: edited(heartbeat(), (b) => {
      delete b.shardProgress[0].streamKey;
    }),
    message: 'shardProgress[0].streamKey: ',
  },
  {
    name: 'progress pendingCount negative',
    path: HB,
    body: edited(heartbeat(), (b) => {
      b.shardProgress[0].pendingCount = -1;
    }),
    message: 'shardProgress[0].pendingCount: ',
  },
  {
    name: 'progress updatedAt not an instant',
    path: HB,
    body: edited(heartbeat(), (b) => {
      b.shardProgress[0].updatedAt = 12;
    }),
    message: 'shardProgress[0].updatedAt: ',
  },
];

async function send(app: ReturnType<typeof createApp>, c: Case) {
  const headers: Record<string, string> = {};
  const contentType = c.contentType === undefined ? 'application/json' : c.contentType;
  if (contentType !== null) headers['content-type'] = contentType;
  const body = c.raw !== undefined ? c.raw : JSON.stringify(c.body);
  const init: RequestInit = { method: c.method ?? 'POST', headers };
  if (body !== '') init.body = body as BodyInit;
  return app.request(c.path, init);
}

describe('http > validation: every malformed input is a 400 INVALID_REQUEST', () => {
  it.each(cases)('$name', async (c) => {
    const { app, fake } = setup();
    const res = await send(app, c);
    const json = await res.json();
    expect(res.status).toBe(400);
    expect(json.status).toBe('BAD_REQUEST');
    expect(json.errorCode).toBe('INVALID_REQUEST');
    expect(json.message).toContain(c.message);
    expect(fake.calls).toEqual([]);
  });

  it('lists every problem, as `field: reason` pairs joined by "; "', async () => {
    const { app, fake } = setup();
    const res = await app.request(HB, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(
        edited(heartbeat(), (b) => {
          b.protocolVersion = 0;
          b.requestId = '';
          b.ownedShards = [{ shardIndex: -1 }];
        }),
      ),
    });
    const json = await res.json();
    expect(res.status).toBe(400);
    const parts = json.message.split('; ');
    expect(parts).toHaveLength(3);
    expect(parts.map((p: string) => p.split(': ')[0])).toEqual([
      'protocolVersion',
      'requestId',
      'ownedShards[0].shardIndex',
    ]);
    expect(fake.calls).toEqual([]);
  });

  it('accepts JSON media types with parameters or a +json suffix', async () => {
    const { app, fake } = setup();
    for (const type of [
      'application/json; charset=utf-8',
      'Application/JSON',
      'application/vnd.coord+json',
    ]) {
      const res = await app.request(`${BASE}/streams/orders`, {
        method: 'POST',
        headers: { 'content-type': type },
        body: JSON.stringify(createStream),
      });
      expect(res.status, type).toBe(201);
    }
    expect(fake.calls).toHaveLength(3);
  });

  it('ignores unknown fields', async () => {
    const { app, fake } = setup();
    const res = await app.request(`${BASE}/streams/orders/groups/g`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ requestedBy: 'ops', consumerGroup: 'ignored', extra: { deep: true } }),
    });
    expect(res.status).toBe(201);
    expect(fake.calls[0]!.args[2]).toEqual({
      initialShardCount: null,
      requestedBy: 'ops',
      principal: null,
      reason: null,
    });
  });
});

describe('http > validation: body size limit', () => {
  const bigBody = (bytes: number) => JSON.stringify({ requestedBy: 'ops', reason: 'r'.repeat(bytes) });

  it('answers 413 PAYLOAD_TOO_LARGE above the configured limit, without calling the coordinator', async () => {
    const { app, fake } = setup();
    const res = await app.request(`${BASE}/streams/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: bigBody(70 * 1024),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      status: 'PAYLOAD_TOO_LARGE',
      errorCode: 'PAYLOAD_TOO_LARGE',
      message: 'request body exceeds 65536 bytes',
      requestId: res.headers.get('x-request-id'),
    });
    expect(fake.calls).toEqual([]);
  });

  it('counts the bytes actually received when no Content-Length is sent', async () => {
    const { app, fake } = setup(testConfig({ maxBodyBytes: 1024 }));
    const chunk = new TextEncoder().encode(' '.repeat(400));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 10) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const req = new Request(`http://localhost${HB}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(req.headers.get('content-length')).toBeNull();
    const res = await app.request(req);
    expect(res.status).toBe(413);
    expect((await res.json()).errorCode).toBe('PAYLOAD_TOO_LARGE');
    expect(fake.calls).toEqual([]);
  });

  it('counts the bytes actually received when Content-Length understates them', async () => {
    const { app, fake } = setup(testConfig({ maxBodyBytes: 1024 }));
    const req = new Request(`http://localhost${BASE}/streams/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': '20' },
      body: bigBody(5000),
    });
    const res = await app.request(req);
    expect(res.status).toBe(413);
    expect(fake.calls).toEqual([]);
  });

  it('refuses a declared Content-Length above the limit', async () => {
    const { app } = setup(testConfig({ maxBodyBytes: 1024 }));
    const req = new Request(`http://localhost${BASE}/streams/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': '999999' },
      body: JSON.stringify(createStream),
    });
    expect((await app.request(req)).status).toBe(413);
  });

  it('accepts a body of exactly the limit', async () => {
    const { app, fake } = setup(testConfig({ maxBodyBytes: 1024 }));
    const base = bigBody(0);
    const body = bigBody(1024 - base.length);
    expect(new TextEncoder().encode(body).byteLength).toBe(1024);
    const res = await app.request(`${BASE}/streams/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(201);
    expect(fake.calls).toHaveLength(1);
  });
});
