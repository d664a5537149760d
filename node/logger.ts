/**
 * Structured logging for the Node adapter: one JSON object per line on stdout,
 * `{"ts","level","msg",...fields}`, with secrets scrubbed by `redact`.
 */
import { redact, redactUrl } from './redact.js';

/** Severity of a log line, lowest first. */
type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** The logging function every layer receives (`createApp`, `Coordinator`, the sweep loop). */
export type LogFn = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => void;

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Options of `createLogger`. */
export interface LoggerOptions {
  /** Lines below this level are dropped. @default 'info' */
  level?: LogLevel;
  /** Where each finished line goes (without the newline). @default a write to process.stdout */
  write?: (line: string) => void;
  /** Clock for `ts`. @default Date.now */
  now?: () => number;
}

/** True when `s` names a log level. */
function isLogLevel(s: string | undefined): s is LogLevel {
  return s !== undefined && Object.hasOwn(RANK, s);
}

/** Builds a JSON-lines logger. Fields never overwrite `ts`, `level` or `msg`. */
export function createLogger(opts: LoggerOptions = {}): LogFn {
  const min = RANK[opts.level ?? 'info'];
  const write = opts.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const now = opts.now ?? Date.now;
  return (level, msg, fields) => {
    // Callers typed elsewhere may pass an unknown level string; treat it as info.
    const lvl: LogLevel = isLogLevel(level) ? level : 'info';
    if (RANK[lvl] < min) return;
    const safe = fields === undefined ? {} : (redact(fields) as Record<string, unknown>);
    const line = {
      ts: new Date(now()).toISOString(),
      level: lvl,
      msg: redactUrl(msg),
      ...withoutHeader(safe),
    };
    write(JSON.stringify(line, jsonSafe));
  };
}

// A log call must never throw: BigInt is the one value JSON.stringify refuses (cycles are cut by redact).
function jsonSafe(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

function withoutHeader(fields: Record<string, unknown>): Record<string, unknown> {
  const { ts: _ts, level: _level, msg: _msg, ...rest } = fields;
  return rest;
}

/** A logger that prints nothing (tests, embedding). */
export const silentLogger: LogFn = () => {};
