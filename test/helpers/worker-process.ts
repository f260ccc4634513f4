// Real `visync worker` processes for tests: spawned through the bin (this run's bundle, on Node 22),
// like a user starts them.
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtVisync, NODE22 } from './built-bin.js';
import { onCleanup } from './cleanup-stack.js';
import { waitFor } from './wait-for.js';

export interface WorkerProcess {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function writeConfig(dir: string, yaml: string): string {
  const path = join(dir, 'visync.yaml');
  writeFileSync(path, yaml);
  return path;
}

/** Starts a worker and resolves once it printed its ready line. */
export async function spawnWorker(
  configPath: string,
  env: Record<string, string>,
  concurrency = 4,
): Promise<WorkerProcess> {
  const child = spawn(
    NODE22,
    [
      builtVisync().bin,
      '--config',
      configPath,
      'worker',
      '--concurrency',
      String(concurrency),
      '--log-level',
      'warn',
    ],
    {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  // Stopped, and gone, before the folders made before it are removed (a worker still writing into
  // a folder being removed fails the removal with ENOTEMPTY).
  onCleanup(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  await waitFor(
    () => {
      if (out.includes('visync worker ready')) return true;
      if (child.exitCode !== null) throw new Error(`worker exited before it was ready:\n${out}`);
      return false;
    },
    { what: () => `the worker to be ready:\n${out}`, timeoutMs: 30_000 },
  );
  return { child, output: () => out, exited };
}
