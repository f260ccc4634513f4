// A private, throwaway Redis Cluster of three masters (no replicas) on free loopback ports, each a
// redis-server with its own temp dir and no persistence, joined with `redis-cli --cluster create`.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './net.js';
import { waitFor } from './wait-for.js';

const run = promisify(execFile);

export interface PrivateCluster {
  /** One node's URL: what redis.url names with redis.cluster: true. */
  url: string;
  ports: number[];
  stop(): Promise<void>;
}

async function redisCli(port: number, ...args: string[]): Promise<string> {
  return (await run('redis-cli', ['-p', String(port), ...args])).stdout;
}

/** A node that does not answer yet (connection refused) is one not ready yet. */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  await waitFor(() => check().catch(() => false), { what: `redis cluster: ${what}`, timeoutMs: 20_000 });
}

export async function startPrivateCluster(): Promise<PrivateCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'visync-cluster-'));
  const ports: number[] = [];
  const children: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      ports.push(port);
      const child = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(dir, `nodes-${port}.conf`),
          '--save',
          '',
          '--appendonly',
          'no',
          '--dir',
          dir,
        ],
        { stdio: 'ignore' },
      );
      children.push(child);
      await until(`node ${port} to answer`, async () => (await redisCli(port, 'PING')).trim() === 'PONG');
    }
    await run('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((p) => `127.0.0.1:${p}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    for (const port of ports)
      await until(`node ${port} to see the cluster ok`, async () =>
        (await redisCli(port, 'CLUSTER', 'INFO')).includes('cluster_state:ok'),
      );
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: `redis://127.0.0.1:${ports[0]}`, ports, stop };
}
