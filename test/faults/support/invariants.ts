/**
 * The invariants every fault scenario checks, computed from the children's JSON lines and the
 * recorded HTTP answers: nothing published is lost, no shard is read by two members at once,
 * and the coordinator answers only 2xx outside the fault window and 2xx or a retryable 503
 * inside it — the recorded HTTP load and the consumers' own heartbeats (SDK `error` events of
 * context `heartbeat`) alike. Duplicates are counted (delivery is at-least-once), not refused.
 */
import { type Answer, acceptable } from './http.js';
import type { ChildLine, JsonChild } from './processes.js';

/** One ownership interval of a member on a shard. */
export interface Interval {
  member: string;
  shard: number;
  start: number;
  end: number;
  /** Still open when the scenario ended (end = the scenario's end). */
  open: boolean;
}

/** What the checker found. */
export interface Findings {
  published: number;
  handled: number;
  lost: number[];
  duplicates: number;
  intervals: Interval[];
  overlaps: Array<[Interval, Interval]>;
  /** Answers that break the HTTP rule (non-2xx outside the window, non-retryable inside). */
  badAnswers: Answer[];
  /** Non-2xx answers inside the window (allowed: retryable 503s), by status/code. */
  faultAnswers: Record<string, number>;
}

/** Ownership intervals from consumer lines; an interval still open ends at `endAt`. */
export function intervalsOf(lines: ChildLine[], endAt: number): Interval[] {
  const open = new Map<string, Interval>();
  const out: Interval[] = [];
  for (const l of lines) {
    if (l.t !== 'o') continue;
    const key = `${l.m} ${l.s} ${l.start}`;
    if (l.end === null) open.set(key, { member: l.m, shard: l.s, start: l.start, end: endAt, open: true });
    else {
      open.delete(key);
      out.push({ member: l.m, shard: l.s, start: l.start, end: l.end, open: false });
    }
  }
  return [...out, ...open.values()];
}

/** Pairs of intervals of different members on one shard that overlap in time. */
export function overlapsOf(intervals: Interval[]): Array<[Interval, Interval]> {
  const byShard = new Map<number, Interval[]>();
  for (const iv of intervals) byShard.set(iv.shard, [...(byShard.get(iv.shard) ?? []), iv]);
  const found: Array<[Interval, Interval]> = [];
  for (const list of byShard.values()) {
    list.sort((a, b) => a.start - b.start);
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length && list[j]!.start < list[i]!.end; j++) {
        if (list[i]!.member !== list[j]!.member) found.push([list[i]!, list[j]!]);
      }
    }
  }
  return found;
}

/** Checks the scenario; `window` is [fault start, fault end + grace] in epoch ms. */
export function check(o: {
  producer: JsonChild;
  consumers: JsonChild[];
  answers: Answer[];
  window: [number, number];
  endAt?: number;
}): Findings {
  const published = new Set<number>();
  for (const l of o.producer.lines) if (l.t === 'p') published.add(Number(l.n));
  const handled = new Map<number, number>();
  const consumerLines = o.consumers.flatMap((c) => c.lines);
  for (const l of consumerLines)
    if (l.t === 'h') handled.set(Number(l.n), (handled.get(Number(l.n)) ?? 0) + 1);
  const lost = [...published].filter((n) => !handled.has(n)).sort((a, b) => a - b);
  let duplicates = 0;
  for (const c of handled.values()) duplicates += c - 1;
  const intervals = intervalsOf(consumerLines, o.endAt ?? Date.now());
  const [from, to] = o.window;
  const badAnswers: Answer[] = [];
  const faultAnswers: Record<string, number> = {};
  const heartbeats: Answer[] = consumerLines
    .filter((l) => l.t === 'e' && l.ctx === 'heartbeat')
    .map((l) => ({
      at: l.at,
      status: l.status ?? 0,
      code: l.code ?? l.name ?? 'NETWORK',
      body: l.msg,
      what: `sdk heartbeat ${l.m}`,
    }));
  for (const a of [...o.answers, ...heartbeats]) {
    const ok2xx = a.status >= 200 && a.status < 300;
    if (ok2xx) continue;
    const inside = a.at >= from && a.at <= to;
    if (inside) {
      const k = `${a.status} ${a.code}`;
      faultAnswers[k] = (faultAnswers[k] ?? 0) + 1;
    }
    // A heartbeat the SDK gave up on (its request timeout) during the fault is retried by the
    // SDK; it is not an answer. Outside the window it is as bad as any non-2xx.
    const sdkTimeout = a.what.startsWith('sdk ') && a.status === 0;
    if (!inside || !(acceptable(a) || sdkTimeout)) badAnswers.push(a);
  }
  return {
    published: published.size,
    handled: [...handled.values()].reduce((s, c) => s + c, 0),
    lost,
    duplicates,
    intervals,
    overlaps: overlapsOf(intervals),
    badAnswers,
    faultAnswers,
  };
}

/** Prints a one-row table of the figures (quoted in reports). */
export function printTable(scenario: string, row: Record<string, string | number>): void {
  const cols = ['scenario', ...Object.keys(row)];
  const vals = [scenario, ...Object.values(row).map(String)];
  const w = cols.map((c, i) => Math.max(c.length, vals[i]!.length));
  const fmt = (xs: string[]) => `| ${xs.map((x, i) => x.padEnd(w[i]!)).join(' | ')} |`;
  console.log([fmt(cols), `|${w.map((n) => '-'.repeat(n + 2)).join('|')}|`, fmt(vals)].join('\n'));
}

/** A short description of findings for assertion messages. */
export function describeFindings(f: Findings): string {
  return JSON.stringify(
    {
      published: f.published,
      lost: f.lost.slice(0, 20),
      lostCount: f.lost.length,
      duplicates: f.duplicates,
      overlaps: f.overlaps.slice(0, 5),
      badAnswers: f.badAnswers
        .slice(0, 10)
        .map((a) => ({ ...a, body: String(JSON.stringify(a.body)).slice(0, 200) })),
      faultAnswers: f.faultAnswers,
    },
    null,
    1,
  );
}

/**
 * What both members of each overlap did around it (their consumer lines, and every coordinator
 * line naming either), in time order — so a failure can be read without a rerun.
 */
export function overlapTrace(
  overlaps: Findings['overlaps'],
  consumerLines: ChildLine[],
  coordinatorLines: Array<Record<string, unknown>>,
): string[] {
  const out: string[] = [];
  for (const [x, y] of overlaps.slice(0, 2)) {
    const from = Math.min(x.start, y.start) - 3000;
    const to = Math.max(x.end, y.end) + 500;
    const members = new Set([x.member, y.member]);
    const rows: Array<[number, string]> = [];
    for (const l of consumerLines) {
      if (!members.has(l.m)) continue;
      if (l.t === 'h' && l.s !== x.shard) continue;
      const at = Number(l.at ?? l.start ?? 0);
      const end = l.t === 'o' && l.end !== null ? Number(l.end) : at;
      if (end >= from && at <= to) rows.push([at, `consumer ${JSON.stringify(l)}`]);
    }
    for (const l of coordinatorLines) {
      const text = JSON.stringify(l);
      if (![...members].some((m) => text.includes(m))) continue;
      const at = Date.parse(String(l.ts));
      if (at >= from && at <= to) rows.push([at, `coordinator ${text.slice(0, 400)}`]);
    }
    rows.sort((a, b) => a[0] - b[0]);
    out.push(`overlap on shard ${x.shard}: ${x.member} / ${y.member}`);
    for (const [at, text] of rows) out.push(`  ${at} ${text}`);
  }
  return out;
}
