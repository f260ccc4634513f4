// Starts a private redis-server on a free port unless REDIS_URL points at one already,
// so tests never touch a developer's own Redis data.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort } from '../helpers/net.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.REDIS_URL) {
    project.provide('redisUrl', process.env.REDIS_URL);
    return async () => {};
  }
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'visync-redis-'));
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore' },
  );
  await new Promise<void>((resolve, reject) => {
    child.once('error', (err: NodeJS.ErrnoException) => {
      reject(
        new Error(
          err.code === 'ENOENT'
            ? 'redis-server is not installed: run `apt-get install -y redis-server` (Debian/Ubuntu) or `brew install redis`, or set REDIS_URL to a Redis you can flush'
            : `redis-server failed to start: ${err.message}`,
        ),
      );
    });
    child.once('spawn', () => resolve());
  });
  const url = `redis://127.0.0.1:${port}`;
  await waitForPort(port);
  project.provide('redisUrl', url);
  return async () => {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  };
}

async function waitForPort(port: number): Promise<void> {
  const { connect } = await import('node:net');
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.end();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server did not accept connections on port ${port}`);
}

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}
