/**
 * `npm run dev:worker` hands the Worker its credentials and the Upstash token in an env file that
 * only this user can read, outside the working tree and removed on exit; never on wrangler's
 * command line, where `ps` shows them to every user of the machine.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dotenvLine, workerVars, wranglerDevArgs, writeDevVars } from '../../scripts/dev-worker-vars.js';
import { repoRoot } from '../node/child.js';

const upstash = { url: 'http://127.0.0.1:41999', token: 'bridge-token-0123456789abcdef' };
const shell = {
  COORDINATOR_ADMIN_PASSWORD: 'dev-admin-Secret!',
  COORDINATOR_USERS: "reader:it's-a-secret:READ",
  COORDINATOR_KEY_PREFIX: 'dev',
  PATH: '/usr/bin',
};

describe('dev:worker > vars for the local Worker', () => {
  it('passes every COORDINATOR_* variable and the Upstash endpoint, and nothing else', () => {
    const { vars, openMode } = workerVars(shell, upstash);
    expect(openMode).toBe(false);
    expect(vars).toEqual({
      UPSTASH_REDIS_REST_URL: upstash.url,
      UPSTASH_REDIS_REST_TOKEN: upstash.token,
      COORDINATOR_ADMIN_PASSWORD: shell.COORDINATOR_ADMIN_PASSWORD,
      COORDINATOR_USERS: shell.COORDINATOR_USERS,
      COORDINATOR_KEY_PREFIX: 'dev',
    });
  });

  it('runs in open mode when the shell has no credentials', () => {
    const { vars, openMode } = workerVars({ COORDINATOR_KEY_PREFIX: 'dev' }, upstash);
    expect(openMode).toBe(true);
    expect(vars.COORDINATOR_OPEN_MODE).toBe('true');
  });

  it('writes them to an owner-only file outside the working tree, and removes it', async () => {
    const { vars } = workerVars(shell, upstash);
    const file = await writeDevVars(vars);
    try {
      expect(relative(repoRoot, file.path).startsWith('..')).toBe(true);
      expect(statSync(file.path).mode & 0o777).toBe(0o600);
      const text = readFileSync(file.path, 'utf8');
      for (const [k, v] of Object.entries(vars)) expect(text).toContain(dotenvLine(k, v));
      expect(text).toContain(`COORDINATOR_ADMIN_PASSWORD='dev-admin-Secret!'`);
      // A value holding a single quote gets another quote character, so dotenv reads it verbatim.
      expect(text).toContain("COORDINATOR_USERS=`reader:it's-a-secret:READ`");
    } finally {
      await file.remove();
    }
    expect(existsSync(file.path)).toBe(false);
    await file.remove();
    file.removeNow();
  });

  it('puts no secret value on the wrangler command line', async () => {
    const { vars } = workerVars(shell, upstash);
    const file = await writeDevVars(vars);
    try {
      const args = wranglerDevArgs({ port: '8787', envFile: file.path });
      expect(args).toEqual(expect.arrayContaining(['dev', '--env-file', file.path]));
      expect(args).not.toContain('--var');
      const line = args.join(' ');
      for (const secret of [shell.COORDINATOR_ADMIN_PASSWORD, shell.COORDINATOR_USERS, upstash.token]) {
        expect(line).not.toContain(secret);
      }
    } finally {
      await file.remove();
    }
  });

  it('refuses names and values dotenv cannot carry verbatim', () => {
    expect(() => dotenvLine('BAD NAME', 'x')).toThrow(/BAD NAME/);
    expect(() => dotenvLine('ALL_QUOTES', `'"\``)).toThrow(/ALL_QUOTES/);
    expect(() => dotenvLine('CARRIAGE', 'a\rb')).toThrow(/CARRIAGE/);
    expect(dotenvLine('PLAIN', 'a b#c')).toBe("PLAIN='a b#c'");
    expect(dotenvLine('BOTH', `it's "x"`)).toBe('BOTH=`it\'s "x"`');
    expect(dotenvLine('DOUBLE', "a'b`c")).toBe('DOUBLE="a\'b`c"');
  });
});
