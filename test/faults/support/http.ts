/**
 * HTTP side of a fault scenario: admin calls that report status and error code instead of
 * throwing, polling, and a small read load that records every answer with its time, so the
 * checker can tell which answers fell inside a fault window.
 */

/** One coordinator answer. */
export interface Answer {
  at: number;
  status: number;
  /** `errorCode` of an error body; `NETWORK` when no HTTP answer came. */
  code: string | null;
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers are indexed freely by the tests.
  body: any;
  what: string;
}

/** Codes a client may retry as-is (src/core/errors.ts RETRYABLE, answered 503). */
export const RETRYABLE_503 = new Set([
  'REDIS_UNAVAILABLE',
  'COORDINATOR_STATE_MUTEX_UNAVAILABLE',
  'REDIS_STREAM_PROVISIONING_FAILED',
  'COORDINATOR_TERMINATING',
]);

/** True for a 2xx or a retryable 503. */
export function acceptable(a: Answer): boolean {
  return (a.status >= 200 && a.status < 300) || (a.status === 503 && RETRYABLE_503.has(a.code ?? ''));
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Calls `<base>/coord/v1<path>` (or `<base><path>` for `/actuator…`), never throws. */
export async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 10_000,
): Promise<Answer> {
  const url = path.startsWith('/actuator') ? `${base}${path}` : `${base}/coord/v1${path}`;
  const init: RequestInit = { method, signal: AbortSignal.timeout(timeoutMs) };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { 'content-type': 'application/json' };
  }
  const what = `${method} ${path}`;
  try {
    const res = await fetch(url, init);
    const text = await res.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = text;
    }
    const code = res.status >= 400 ? ((json as { errorCode?: string } | null)?.errorCode ?? null) : null;
    return { at: Date.now(), status: res.status, code, body: json, what };
  } catch (err) {
    return { at: Date.now(), status: 0, code: 'NETWORK', body: String(err), what };
  }
}

/** Like `call`, but throws unless the status is `expect`. */
export async function must(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  expect = method === 'GET' ? 200 : 202,
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers are indexed freely by the tests.
): Promise<any> {
  const a = await call(base, method, path, body);
  if (a.status !== expect) throw new Error(`${a.what} answered ${a.status}: ${JSON.stringify(a.body)}`);
  return a.body;
}

/** Polls `check` every `everyMs` until it is true; throws after `timeoutMs`. */
export async function waitUntil(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs = 20_000,
  everyMs = 50,
): Promise<number> {
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    try {
      if (await check()) return Date.now();
    } catch {
      // not yet
    }
    await sleep(everyMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** A running read load: group and routing reads every `everyMs` against each coordinator. */
export interface ReadLoad {
  answers: Answer[];
  stop(): Promise<void>;
}

/** Starts the read load on `bases` for stream `prefix` (its default group). */
export function startReadLoad(bases: string[], prefix: string, everyMs = 100): ReadLoad {
  const answers: Answer[] = [];
  let running = true;
  const loops = bases.map(async (base) => {
    while (running) {
      const [g, r] = await Promise.all([
        call(base, 'GET', `/streams/${prefix}/groups/${prefix}`, undefined, 5000),
        call(base, 'GET', `/streams/${prefix}/groups/${prefix}/producer-routing`, undefined, 5000),
      ]);
      answers.push(g, r);
      await sleep(everyMs);
    }
  });
  return {
    answers,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** Scales `prefix` to `target` through `base`; returns the resharding id of its migration. */
export async function scale(base: string, prefix: string, target: number): Promise<Answer & { id?: string }> {
  const a = await call(base, 'POST', `/streams/${prefix}/scale`, {
    targetShardCount: target,
    requestedBy: 'faults',
    reason: `scale to ${target}`,
  });
  return { ...a, id: a.body?.migrations?.[0]?.reshardingId };
}

/** The state of migration `id` of the stream's default group, or null when not answered. */
export async function migrationState(base: string, prefix: string, id: string): Promise<string | null> {
  const a = await call(base, 'GET', `/streams/${prefix}/groups/${prefix}/migrations/${id}`, undefined, 3000);
  return a.status === 200 ? String(a.body.state) : null;
}
