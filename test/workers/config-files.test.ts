/**
 * The Worker's project files agree with each other: wrangler.jsonc (schema, cron, observability,
 * no Node compatibility), the Env type `wrangler types` generates from it (committed as
 * workers/env.generated.d.ts: this test regenerates it offline and fails when it is stale), and
 * .dev.vars.example, which names every secret and stays tracked while .dev.vars is ignored.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { WorkerEnv } from '../../workers/env.js';
import { REPO_ROOT } from '../support/worker.js';
import { readWranglerConfig } from '../support/wrangler-config.js';

const execFileAsync = promisify(execFile);

const GENERATED = 'workers/env.generated.d.ts';
const DEV_VARS_EXAMPLE = '.dev.vars.example';

/** Secrets the Worker reads (workers/env.ts, src/config.ts): never vars, always in the example. */
const SECRETS = [
  'UPSTASH_REDIS_REST_TOKEN',
  'COORDINATOR_ADMIN_PASSWORD',
  'COORDINATOR_ADMIN_PASSWORD_HASH',
  'COORDINATOR_USERS',
  'COORDINATOR_TOKEN_SECRET',
  'COORDINATOR_TOKEN_SECRET_PREVIOUS',
];

/** The `wrangler types …` arguments of `npm run types:worker`, so the check runs what the script runs. */
async function typesArgs(): Promise<string[]> {
  const pkg = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const script = pkg.scripts['types:worker'] ?? '';
  const command = /^wrangler (types [^&]+?)\s*&&/.exec(script)?.[1];
  if (!command) throw new Error(`npm run types:worker is not "wrangler types … && …": ${script}`);
  return command.split(/\s+/);
}

/** Names assigned in a dotenv file. */
function dotenvNames(text: string): string[] {
  return [...text.matchAll(/^([A-Za-z_][A-Za-z0-9_]*)=/gm)].map((m) => m[1] ?? '');
}

describe('worker > project files', () => {
  it('wrangler.jsonc keeps the schema, cron, observability and no Node compatibility', async () => {
    const config = await readWranglerConfig();
    expect(config.$schema).toBe('./node_modules/wrangler/config-schema.json');
    expect(config.main).toBe('workers/index.ts');
    expect(config.triggers).toEqual({ crons: ['* * * * *'] });
    expect(config.observability).toMatchObject({ enabled: true });
    expect(config.compatibility_flags ?? []).not.toContain('nodejs_compat');
    expect(typeof config.compatibility_date).toBe('string');
    // Secrets never sit among the vars in the committed file.
    for (const secret of SECRETS) expect(Object.keys(config.vars as object)).not.toContain(secret);
  });

  it('the published WorkerEnv names exactly the bindings wrangler types generates (checked by tsc)', () => {
    expectTypeOf<keyof WorkerEnv>().toEqualTypeOf<keyof Cloudflare.Env>();
    expectTypeOf<Cloudflare.Env>().toExtend<WorkerEnv>();
  });

  it('.dev.vars.example lists every secret, and only .dev.vars is git-ignored', async () => {
    const example = await readFile(join(REPO_ROOT, DEV_VARS_EXAMPLE), 'utf8');
    expect(dotenvNames(example).sort()).toEqual([...SECRETS].sort());
    // Every secret the Workers guide tells to `wrangler secret put` is in the example.
    const guide = await readFile(join(REPO_ROOT, 'docs/workers.md'), 'utf8');
    const put = [...guide.matchAll(/wrangler secret put ([A-Z_]+)/g)].map((m) => m[1]);
    expect(put.length).toBeGreaterThan(0);
    for (const name of put) expect(SECRETS).toContain(name);
    const ignored = async (path: string) =>
      execFileAsync('git', ['check-ignore', '-q', path], { cwd: REPO_ROOT }).then(
        () => true,
        (err: { code?: number }) => (err.code === 1 ? false : Promise.reject(err)),
      );
    expect(await ignored('.dev.vars')).toBe(true);
    expect(await ignored(DEV_VARS_EXAMPLE)).toBe(false);
  });

  it(`${GENERATED} is what \`npm run types:worker\` generates now`, { timeout: 60_000 }, async () => {
    // The layout wrangler sees (config, secrets file, entry) mirrored into a temp directory, so
    // the generated file (its import of the entry, its header naming the command) matches byte
    // for byte; no login, no network, nothing written to the checkout.
    const dir = await mkdtemp(join(tmpdir(), 'rsc-types-'));
    try {
      await mkdir(join(dir, 'workers'));
      await copyFile(join(REPO_ROOT, 'wrangler.jsonc'), join(dir, 'wrangler.jsonc'));
      await copyFile(join(REPO_ROOT, DEV_VARS_EXAMPLE), join(dir, DEV_VARS_EXAMPLE));
      await writeFile(join(dir, 'workers/index.ts'), 'export default {};\n');
      await execFileAsync(join(REPO_ROOT, 'node_modules/.bin/wrangler'), await typesArgs(), {
        cwd: dir,
        env: {
          ...process.env,
          // No metrics, no banner (its update check would ask the npm registry).
          WRANGLER_SEND_METRICS: 'false',
          WRANGLER_HIDE_BANNER: 'true',
          CLOUDFLARE_INCLUDE_PROCESS_ENV: 'false',
          CI: 'true',
          NO_COLOR: '1',
        },
        timeout: 50_000,
      });
      const raw = await readFile(join(dir, GENERATED), 'utf8');
      // The script formats the file with biome after wrangler writes it; so does this check.
      const formatted = await new Promise<string>((resolve, reject) => {
        const child = execFile(
          join(REPO_ROOT, 'node_modules/.bin/biome'),
          ['format', `--stdin-file-path=${GENERATED}`],
          { cwd: REPO_ROOT },
          (err, stdout) => (err ? reject(err) : resolve(stdout)),
        );
        child.stdin?.end(raw);
      });
      const committed = await readFile(join(REPO_ROOT, GENERATED), 'utf8');
      expect(committed, `${GENERATED} is stale: run npm run types:worker and commit it`).toBe(formatted);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
