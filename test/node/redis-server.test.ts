import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { canConnect, freeLoopbackPort } from '../../node/net.js';
import { findOnPath, reapOrphans, startRedisServer } from '../../node/redis-server.js';
import { processAlive } from './child.js';

const binary = findOnPath('redis-server');

function baseDir(): string {
  return mkdtempSync(join(tmpdir(), 'private-redis-'));
}

describe('node adapter > private redis-server', () => {
  it('serves on a loopback port until stopped, then leaves no process and no directory', async () => {
    const base = baseDir();
    const redis = await startRedisServer({ binary: binary!, baseDir: base });
    expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);
    expect(await canConnect('127.0.0.1', redis.port)).toBe(true);
    expect(existsSync(redis.dir)).toBe(true);

    await redis.stop();
    expect(processAlive(redis.pid)).toBe(false);
    expect(await canConnect('127.0.0.1', redis.port)).toBe(false);
    expect(existsSync(redis.dir)).toBe(false);
    await redis.stop(); // idempotent
  });

  it('reaps a server left behind by a run that died, but not one owned by a live run', async () => {
    const base = baseDir();
    const deadOwner = spawnSync(process.execPath, ['-e', '']).pid!;
    const port = await freeLoopbackPort();
    const orphanDir = join(base, `${deadOwner}-${port}`);
    mkdirSync(orphanDir, { recursive: true });
    const orphan = spawn(binary!, ['--port', String(port), '--bind', '127.0.0.1', '--save', ''], {
      stdio: 'ignore',
    });
    const orphanExited = new Promise((r) => orphan.once('exit', r));
    writeFileSync(join(orphanDir, 'redis.pid'), String(orphan.pid));
    await vi.waitFor(async () => expect(await canConnect('127.0.0.1', port)).toBe(true));
    const liveDir = join(base, `${process.pid}-1`);
    mkdirSync(liveDir);

    expect(reapOrphans(base)).toBe(1);
    await orphanExited;
    expect(existsSync(orphanDir)).toBe(false);
    expect(existsSync(liveDir)).toBe(true);
  });
});
