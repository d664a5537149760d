/**
 * The package as users get it: deploy/service-steps.sh builds and packs it from a copy of the
 * working tree exactly as deploy/Dockerfile does and installs its production dependencies; then
 * a throw-away project installs the tarball and runs producer, consumer, require() and strict
 * TypeScript against it, and the production install serves, gets ready and drains on SIGTERM.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { uniquePrefix } from '../support/redis.js';
import { freePort } from '../support/redis-server.js';
import { reap, run, runOk, type Service, startService, waitForReady } from './processes.js';
import { PKG, writeUserProject } from './user-project.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const version: string = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version;
const npmFlags = ['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];
const dockerfile = readFileSync(join(repoRoot, 'deploy/Dockerfile'), 'utf8');

let work = '';
let app = '';
let tarball = '';
const services: Service[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'rsc-package-'));
  const out = await runOk(join(repoRoot, 'deploy/service-steps.sh'), [join(work, 'image')], {
    cwd: repoRoot,
    timeoutMs: 150_000,
  });
  app = out.trim().split('\n').at(-1) ?? '';
  const packed = readdirSync(dirname(app)).filter((f) => f.endsWith('.tgz'));
  expect(packed).toEqual([`${PKG}-${version}.tgz`]);
  tarball = join(dirname(app), packed[0]!);
}, 180_000);

afterAll(() => {
  services.forEach(reap);
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Starts the coordinator from `dist/node/start.js` of an install, with its output collected. */
function serve(cwd: string, script: string, env: Record<string, string>): Service {
  const service = startService([script], cwd, env);
  services.push(service);
  return service;
}

describe('package > the tarball', () => {
  it('holds only the build output, README, LICENSE, package.json and the docs', async () => {
    const listing = (await runOk('tar', ['-tzf', tarball], { cwd: work })).trim().split('\n');
    const top = new Set(listing.map((p) => p.replace(/^package\//, '').split('/')[0]));
    expect([...top].sort()).toEqual(['LICENSE', 'README.md', 'dist', 'docs', 'package.json']);
    // Every page the README links to travels with it, so its links work in node_modules too.
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
    const linked = [...readme.matchAll(/\]\((docs\/[^)#]+)/g)].map((m) => `package/${m[1]}`);
    expect(linked.length).toBeGreaterThan(5);
    for (const page of new Set(linked)) expect(listing).toContain(page);
    const dist = listing.filter((p) => p.startsWith('package/dist/'));
    expect(
      dist.filter((p) => !/\.(js|d\.ts|js\.map|d\.ts\.map)$|^package\/dist\/package\.json$/.test(p)),
    ).toEqual([]);
    expect(
      dist.filter((p) => /\.test\.|^package\/dist\/(test|bench|scripts|examples|worker)\//.test(p)),
    ).toEqual([]);
    for (const entry of [
      'src/coordinator',
      'src/client/producer-index',
      'node/server',
      'node/start',
      'cli/cli',
    ])
      for (const ext of ['.js', '.d.ts']) expect(listing).toContain(`package/dist/${entry}${ext}`);
  });
});

describe('package > installed in a user project', () => {
  let project = '';
  let installed = '';

  beforeAll(async () => {
    project = join(work, 'user');
    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'user', private: true, type: 'module' }),
    );
    await runOk('npm', ['install', ...npmFlags, tarball, 'ioredis@6.0.0'], {
      cwd: project,
      timeoutMs: 90_000,
    });
    installed = join(project, 'node_modules', PKG);
    writeUserProject(project, join(repoRoot, 'node_modules/@types'));
  }, 120_000);

  it('runs the installed coordinator; a producer script publishes and a consumer script handles every record', async () => {
    const service = serve(installed, 'dist/node/start.js', {
      REDIS_URL: inject('redisUrl'),
      PORT: '0',
      HOST: '127.0.0.1',
      COORDINATOR_KEY_PREFIX: uniquePrefix('pkg'),
    });
    const url = String((await service.waitForLine((l) => l.msg === 'listening')).url);
    await waitForReady(url);
    // The version comes from the package's own manifest, found from dist/.
    expect(await (await fetch(`${url}/actuator/info`)).json()).toEqual({ app: { name: PKG, version } });

    const stream = uniquePrefix('orders');
    const created = await fetch(`${url}/coord/v1/streams/${stream}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ initialShardCount: 4, requestedBy: 'package.test' }),
    });
    expect(created.status).toBe(201);

    const env = { COORDINATOR_URL: url, REDIS_URL: inject('redisUrl'), STREAM: stream, COUNT: '40' };
    const published = await runOk(process.execPath, ['publish.mjs'], { cwd: project, env });
    expect(JSON.parse(published)).toEqual({ published: 40 });
    const consumed = await runOk(process.execPath, ['consume.mjs'], { cwd: project, env, timeoutMs: 45_000 });
    const { handled } = JSON.parse(consumed) as { handled: string[] };
    expect(handled.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i));

    service.proc.kill('SIGTERM');
    expect(await service.exited).toBe(0);
  }, 90_000);

  it('loads its entry points with require() from CommonJS (Node 20.19+)', async () => {
    const out = await runOk(process.execPath, ['require.cjs'], { cwd: project });
    expect(JSON.parse(out)).toEqual({
      createAdminClient: 'function',
      createProducer: 'function',
      upstashAdapter: 'function',
      createConsumer: 'function',
      startServer: 'function',
      Coordinator: 'function',
    });
  });

  it.each(['NodeNext', 'Bundler'])(
    'type-checks a user file under strict, exactOptionalPropertyTypes, skipLibCheck: false (%s)',
    async (resolution) => {
      const tsc = join(repoRoot, 'node_modules/.bin/tsc');
      const done = await run(tsc, ['-p', `tsconfig.${resolution}.json`], { cwd: project, timeoutMs: 60_000 });
      expect(done.stdout + done.stderr).toBe('');
      expect(done.code).toBe(0);
    },
    60_000,
  );

  it('installs a bin that runs with plain node: --version and --help', async () => {
    const bin = join(project, 'node_modules/.bin/redis-stream-coordinator');
    // Through its shebang, as a shell runs it, and with node explicitly.
    expect(await runOk(bin, ['--version'], { cwd: project })).toBe(`${version}\n`);
    expect(await runOk(process.execPath, [bin, '-V'], { cwd: project })).toBe(`${version}\n`);
    const help = await runOk(process.execPath, [bin, '--help'], { cwd: project });
    expect(help).toMatch(/^Usage: redis-stream-coordinator <command>/);
    expect(help).toContain('--version');
  });
});

describe('service > the production install (the runtime image)', () => {
  it('holds no development tooling', () => {
    for (const dev of ['.bin/tsx', '.bin/tsc', '.bin/vitest', 'tsx', 'typescript', 'vitest', 'wrangler'])
      expect(existsSync(join(app, 'node_modules', dev)), dev).toBe(false);
    expect(existsSync(join(app, 'node_modules/ioredis'))).toBe(true);
  });

  it('refuses a public bind without credentials (the image sets HOST=0.0.0.0): exit 2', async () => {
    const service = serve(app, 'dist/node/start.js', {
      ...imageEnv(),
      REDIS_URL: inject('redisUrl'),
      PORT: String(await freePort()),
    });
    expect(await service.exited).toBe(2);
    expect(service.stderr()).toMatch(/HOST.*loopback/);
  });

  it("serves the image's CMD, passes its HEALTHCHECK and the probes, and drains to exit 0 on SIGTERM", async () => {
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)?.[1] ?? '[]') as string[];
    expect(cmd[0]).toBe('node');
    const port = String(await freePort());
    const service = serve(app, cmd[1]!, {
      ...imageEnv(),
      // Loopback here (the test must not listen publicly); credentials as in production.
      HOST: '127.0.0.1',
      PORT: port,
      REDIS_URL: inject('redisUrl'),
      COORDINATOR_KEY_PREFIX: uniquePrefix('svc'),
      COORDINATOR_ADMIN_PASSWORD: 'package-test-password',
    });
    const url = `http://127.0.0.1:${port}`;
    await waitForReady(url);

    const healthcheck = JSON.parse(/^\s+CMD (\[.*\])$/m.exec(dockerfile)?.[1] ?? '[]') as string[];
    expect(healthcheck.slice(0, 2)).toEqual(['node', '-e']);
    const probe = await run(process.execPath, healthcheck.slice(1), { cwd: app, env: { PORT: port } });
    expect(probe.code).toBe(0);

    const k8s = readFileSync(join(repoRoot, 'deploy/kubernetes.yaml'), 'utf8');
    const paths = [...k8s.matchAll(/httpGet: \{ path: (\S+),/g)].map((m) => m[1]!);
    expect(new Set(paths)).toEqual(new Set(['/actuator/health/liveness', '/actuator/health/readiness']));
    for (const path of paths) expect((await fetch(`${url}${path}`)).status).toBe(200);

    const started = Date.now();
    service.proc.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 60_000);
});

/** The runtime image's ENV lines of deploy/Dockerfile. */
function imageEnv(): Record<string, string> {
  const block = /^ENV ((?:.*\\\n)*.*)$/m.exec(dockerfile)?.[1] ?? '';
  return Object.fromEntries(
    [...block.matchAll(/([A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!.replace(/\\$/, '')] as const),
  );
}
