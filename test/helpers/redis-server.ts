// A private, throwaway redis-server on a free loopback port (no persistence, its own temp dir),
// for the test suite and the benchmarks, so they never touch a developer's own Redis data.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './net.js';
import { waitFor } from './wait-for.js';

export interface PrivateRedis {
  url: string;
  stop(): Promise<void>;
}

/** `port`: start on this port (a test that stops Redis and starts it again where clients look). */
export async function startPrivateRedis(port?: number): Promise<PrivateRedis> {
  port ??= await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'visync-redis-'));
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore' },
  );
  await new Promise<void>((resolve, reject) => {
    child.once('error', (err: NodeJS.ErrnoException) => {
      rmSync(dir, { recursive: true, force: true });
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
  await waitForPort(port);
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitForPort(port: number): Promise<void> {
  await waitFor(
    () =>
      new Promise<boolean>((resolve) => {
        const s = connect(port, '127.0.0.1');
        s.once('connect', () => {
          s.end();
          resolve(true);
        });
        s.once('error', () => resolve(false));
      }),
    { what: `redis-server to accept connections on port ${port}`, timeoutMs: 10_000 },
  );
}
