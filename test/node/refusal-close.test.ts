/**
 * A batched heartbeat refused before its body is read (503 COORDINATOR_BUSY beyond
 * COORDINATOR_MAX_CONCURRENT_BATCHES, 413 on a Content-Length over the batch cap) is answered
 * with `Connection: close` and its connection is closed: kept alive, the server would have to
 * read and discard the unread body to reach the next request, which under a storm of maximal
 * batches is most of what it does (docs/protocol.md#batched-heartbeats). Over the real Node server.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { type RunningServer, startServer } from '../../node/server.js';
import { parseConfig } from '../../src/config.js';
import { uniquePrefix } from '../support/redis.js';

/** How long a connection is watched for the server's close. */
const WATCH_MS = 3_000;

const running: RunningServer[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(running.splice(0).map((s) => s.close()));
});

async function open(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  sockets.push(socket);
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return socket;
}

/** Writes `request`; what came back, and whether the server closed the connection within WATCH_MS. */
async function exchange(socket: Socket, request: string): Promise<{ closed: boolean; reply: string }> {
  socket.write(request);
  return new Promise((resolve) => {
    let reply = '';
    socket.on('data', (d: Buffer) => {
      reply += d.toString('latin1');
    });
    const timer = setTimeout(() => resolve({ closed: false, reply }), WATCH_MS);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve({ closed: true, reply });
    });
  });
}

/** A server with `settings` (one batch slot), the batch path of a fresh stream, and a raw request head for it. */
async function batchServer(settings: Record<string, string>) {
  const config = parseConfig({
    PORT: '0',
    REDIS_URL: inject('redisUrl'),
    COORDINATOR_KEY_PREFIX: uniquePrefix('refusal-close'),
    COORDINATOR_MAX_CONCURRENT_BATCHES: '1',
    ...settings,
  });
  const server = await startServer({ config, log: () => {} });
  running.push(server);
  const host = new URL(server.url).host;
  const p = uniquePrefix('orders');
  const path = `/coord/v1/streams/${p}/groups/${p}/heartbeats`;
  const head = (length: number) =>
    `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nConnection: keep-alive\r\nContent-Length: ${length}\r\n\r\n`;
  return { server, host, head };
}

describe('node adapter > batched heartbeats refused unread', () => {
  it('closes the connection of a batch answered 503 COORDINATOR_BUSY or 413 before its body is read', async () => {
    const { server, host, head } = await batchServer({ COORDINATOR_MAX_BATCH_BODY_BYTES: '4096' });

    // Holds the only batch slot: its headers are in, its body never finishes.
    const holder = await open(server.url);
    holder.write(`${head(100)}{"heartbeats":`);
    await new Promise((r) => setTimeout(r, 200));

    const body = JSON.stringify({ heartbeats: [] }).padEnd(1000, ' ');
    const busy = await exchange(await open(server.url), `${head(body.length)}${body}`);
    expect(busy.reply).toMatch(/^HTTP\/1\.1 503 /);
    expect(busy.reply).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(busy.reply).toMatch(/\r\nconnection: close\r\n/i);
    expect(busy.reply).toContain('"errorCode":"COORDINATOR_BUSY"');
    expect(busy.closed).toBe(true);

    const large = await exchange(await open(server.url), head(1_000_000));
    expect(large.reply).toMatch(/^HTTP\/1\.1 413 /);
    expect(large.reply).toMatch(/\r\nconnection: close\r\n/i);
    expect(large.closed).toBe(true);

    // A request that is served keeps its connection.
    const served = await exchange(
      await open(server.url),
      `GET /actuator/health HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n\r\n`,
    );
    expect(served.reply).toMatch(/^HTTP\/1\.1 200 /);
    expect(served.closed).toBe(false);
  });
});

describe('node adapter > a batch whose body is slow to arrive', () => {
  it('answers 408 REQUEST_TIMEOUT past COORDINATOR_BATCH_READ_TIMEOUT_MS, closes the connection and frees its slot', async () => {
    const { server, head } = await batchServer({ COORDINATOR_BATCH_READ_TIMEOUT_MS: '300' });

    // Takes the only slot and trickles: its body never finishes.
    const slow = await exchange(await open(server.url), `${head(100)}{"heartbeats":`);
    expect(slow.reply).toMatch(/^HTTP\/1\.1 408 /);
    expect(slow.reply).toMatch(/\r\nconnection: close\r\n/i);
    expect(slow.reply).toContain('"errorCode":"REQUEST_TIMEOUT"');
    expect(slow.closed).toBe(true);

    // The slot is free again: the next batch is read and answered (400: it has no items).
    const body = JSON.stringify({ heartbeats: [] });
    const next = await exchange(await open(server.url), `${head(body.length)}${body}`);
    expect(next.reply).toMatch(/^HTTP\/1\.1 400 /);
    expect(next.reply).toContain('"errorCode":"INVALID_REQUEST"');
  });
});
