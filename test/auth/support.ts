/**
 * Support for the authentication suites: the real stack (store → coordinator on a private Redis)
 * behind an app built here, so tests can send headers and capture every log line.
 */
import type { Hono } from 'hono';
import { createApp } from '../../src/http/app.js';
import type { AppDeps, AppEnv } from '../../src/http/context.js';
import type { Backend } from '../support/redis.js';
import { makeStack, type Stack, type StackOptions } from '../support/stack.js';

/** Passwords with the characters that break naive parsers (`:`, `$`, non-ASCII). */
export const PASSWORDS = {
  admin: 'Adm1n:pä$$word',
  writer: 'wr1ter:secret$',
  reader: 'r3ader-secret',
  monitor: 'm0nitor-secret',
  member: 'memb3r:secret',
} as const;

/** A token secret used where one is configured explicitly. */
export const TOKEN_SECRET = 'suite-token-secret-0123456789abcdef';

/** Every configured principal of the suites (`admin` is the admin pair). */
export type UserName = keyof typeof PASSWORDS;

/** Env with the admin pair plus one user per role (WRITE, READ, MONITOR, MEMBER). */
export function credentialsEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    COORDINATOR_ADMIN_PASSWORD: PASSWORDS.admin,
    COORDINATOR_USERS: [
      `writer:${PASSWORDS.writer}:WRITE`,
      `reader:${PASSWORDS.reader}:READ`,
      `monitor:${PASSWORDS.monitor}:MONITOR`,
      `member:${PASSWORDS.member}:MEMBER`,
    ].join(','),
    ...extra,
  };
}

/** `Basic base64(user:password)` (UTF-8). */
export function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}

/** `Basic …` for a configured principal. */
export function basicFor(user: UserName): string {
  return basic(user, PASSWORDS[user]);
}

/** One captured log line. */
export interface LogLine {
  level: string;
  msg: string;
  fields?: Record<string, unknown> | undefined;
}

/** A response as the suites look at it. */
export interface AuthResponse {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests index JSON bodies freely.
  json: any;
}

/** The stack plus an app that takes headers and logs into `logs`. */
export interface AuthStack {
  stack: Stack;
  app: Hono<AppEnv>;
  logs: LogLine[];
  /** Every response text seen so far, for secret scans. */
  responses: string[];
  send: (
    method: string,
    path: string,
    opts?: { authorization?: string; body?: unknown; headers?: Record<string, string> },
  ) => Promise<AuthResponse>;
  close: () => Promise<void>;
}

/** Builds the real stack with `env` and an app over its coordinator. */
export function makeAuthStack(
  backend: Backend,
  env: Record<string, string>,
  opts: StackOptions = {},
  appDeps: Partial<AppDeps> = {},
): AuthStack {
  const stack = makeStack(backend, { ...opts, config: env });
  const logs: LogLine[] = [];
  const responses: string[] = [];
  const app = createApp({
    coordinator: stack.coordinator,
    config: stack.config,
    now: stack.clock.now,
    log: (level, msg, fields) => logs.push({ level, msg, fields }),
    ...appDeps,
  });
  const send: AuthStack['send'] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.authorization !== undefined) headers.authorization = o.authorization;
    const init: RequestInit = { method, headers };
    if (o.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      init.body = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
    }
    const res = await app.request(path, init);
    const text = await res.text();
    const headerLines: string[] = [];
    res.headers.forEach((value, name) => {
      headerLines.push(`${name}: ${value}`);
    });
    responses.push(text, headerLines.join('\n'));
    let json: unknown = null;
    try {
      json = text === '' ? null : JSON.parse(text);
    } catch {
      json = null;
    }
    return { status: res.status, headers: res.headers, text, json };
  };
  return { stack, app, logs, responses, send, close: () => stack.close() };
}

/** Logs in with Basic credentials and returns the access token. */
export async function tokenFor(s: AuthStack, user: UserName): Promise<string> {
  const r = await s.send('POST', '/coord/v1/auth/login', { authorization: basicFor(user) });
  if (r.status !== 200) throw new Error(`login of ${user} failed: ${r.status}`);
  return r.json.accessToken as string;
}
