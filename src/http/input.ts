/**
 * Reading and validating JSON request bodies (path parameters are validated by the route
 * descriptors, `api-route.ts`). Everything that is
 * not exactly right becomes a 400 `INVALID_REQUEST` (or 413) before the coordinator is called.
 */
import type { Context } from 'hono';
import type { z } from 'zod';
import { CoordinatorError } from '../core/errors.js';
import { describeIssues, invalidRequest, payloadTooLarge } from './errors.js';

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json$/i;

/**
 * Reads the raw body, counting the bytes actually received: a missing or lying
 * Content-Length cannot smuggle more than `maxBytes` past us.
 */
export async function readBodyBytes(req: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = req.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) throw payloadTooLarge(maxBytes);
  if (declared !== null && /^\d+$/.test(declared)) {
    // A declared length bounds what the HTTP layer delivers, so the body can be read in one go
    // (the Node adapter then skips building a web stream: the heartbeat hot path).
    const buf = new Uint8Array(await req.arrayBuffer());
    if (buf.byteLength > maxBytes) throw payloadTooLarge(maxBytes);
    return buf;
  }
  if (req.body === null) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw payloadTooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** Strict UTF-8 (a decode without `stream` keeps no state between calls, so one is shared). */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** What a route may check on the raw body before it is parsed. */
export interface BodyChecks {
  /** Throws to refuse the bytes before they are decoded and parsed. */
  beforeParse?: (bytes: Uint8Array) => void;
  /** Longest the body may take to arrive (408 `REQUEST_TIMEOUT` and the connection closed past it). */
  readTimeoutMs?: number;
}

/** `read`, or 408 once `ms` have passed first (the read's later outcome is dropped). */
async function withinDeadline(read: Promise<Uint8Array>, ms: number | undefined): Promise<Uint8Array> {
  if (ms === undefined) return read;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new CoordinatorError('REQUEST_TIMEOUT', `the request body did not arrive within ${ms} ms`, {
            details: { closeConnection: true },
          }),
        ),
      ms,
    );
  });
  read.catch(() => undefined);
  try {
    return await Promise.race([read, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The body parsed as JSON (required, `application/json`, UTF-8, at most `maxBytes`). */
async function readJsonBody(c: Context, maxBytes: number, checks: BodyChecks): Promise<unknown> {
  const bytes = await withinDeadline(readBodyBytes(c.req.raw, maxBytes), checks.readTimeoutMs);
  if (bytes.byteLength === 0) throw invalidRequest(['body: is required']);
  const mediaType = (c.req.header('content-type') ?? '').split(';')[0]!.trim();
  if (!JSON_MEDIA_TYPE.test(mediaType)) {
    throw invalidRequest([`Content-Type: must be application/json, got '${mediaType.slice(0, 100)}'`]);
  }
  checks.beforeParse?.(bytes);
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw invalidRequest(['body: is not valid UTF-8']);
  }
  try {
    return JSON.parse(text);
  } catch {
    // The parser's message quotes the body; keep it out of the answer.
    throw invalidRequest(['body: is not valid JSON']);
  }
}

/** Reads the JSON body and validates it against `schema`. */
export async function parseJsonBody<S extends z.ZodType>(
  c: Context,
  schema: S,
  maxBytes: number,
  checks: BodyChecks = {},
): Promise<z.infer<S>> {
  const json = await readJsonBody(c, maxBytes, checks);
  const r = schema.safeParse(json);
  if (!r.success) throw invalidRequest(describeIssues(r.error.issues));
  return r.data;
}
