/**
 * One-line JSON logs on the Worker console (`wrangler tail`, Workers Logs). Errors are reduced
 * to name and message: an error's cause may hold what was sent to Redis.
 */
import type { Logger, LogLevel } from '../src/http/app.js';

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

function plain(v: unknown): unknown {
  if (v instanceof Error) {
    const code = (v as { code?: unknown }).code;
    return { name: v.name, message: v.message, ...(typeof code === 'string' ? { code } : {}) };
  }
  return v;
}

/** A logger writing one JSON object per line from `level` up. */
export function createWorkerLogger(level: LogLevel): Logger {
  const min = ORDER[level];
  return (lvl, msg, fields = {}) => {
    if (ORDER[lvl] < min) return;
    const out: Record<string, unknown> = { level: lvl, msg };
    for (const [k, v] of Object.entries(fields)) out[k] = plain(v);
    const line = JSON.stringify(out);
    if (lvl === 'error') console.error(line);
    else if (lvl === 'warn') console.warn(line);
    else console.log(line);
  };
}
