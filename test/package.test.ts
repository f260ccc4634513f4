// The package as users get it: `npm pack` (whose prepare script bundles dist/) gives a tarball
// that installs into an empty folder, without dev dependencies (no tsx, no TypeScript), and whose
// `visync` runs the bundled JavaScript: --help, --version, a `run --once` against the simulator,
// and a worker that takes an `enqueue --wait` run and stops on SIGTERM. The other tests run the
// sources; this is where the bundle itself is exercised. Then the same tarball on every other
// supported Node line (24 and 26 LTS, binaries from the npm registry): --help and run --once.
// One file, tests in order: packing and installing take tens of seconds, and later steps need them.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
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
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startProcess } from './helpers/cli-process.js';
import { configYaml, sim, tempDir } from './helpers/harness.js';
import { installNodeBinary } from './helpers/node-binary.js';

const root = new URL('..', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };

/** The other LTS lines the package supports; the suite itself runs on the oldest (22, from `npm ci`). */
const OTHER_NODE_LINES = ['24', '26'];

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

// The installed package and the Node binaries live for the whole file (tempDir() is per test).
const fileDir = mkdtempSync(join(tmpdir(), 'visync-package-'));
afterAll(() => rmSync(fileDir, { recursive: true, force: true }));

/**
 * `run --once` of a two-workspace simulated account in `dir` with `command ...prefix`; checks it
 * succeeded. Async: the simulator answering it lives in this process.
 */
async function syncOnce(command: string, prefix: string[], dir: string, seed: number) {
  const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }], seed });
  const { yaml, env } = configYaml(s, join(dir, 'data'));
  writeFileSync(join(dir, 'visync.yaml'), yaml);
  const args = [...prefix, '--config', 'visync.yaml', 'run', '--once', '--log-level', 'warn'];
  const run = await startProcess(command, args, { cwd: dir, env, guardMs: 120_000 }).exited;
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toMatch(/^acme: succeeded \| run \S+ \| 2\/2 workspaces/m);
  return run;
}

describe('npm package', () => {
  let app: string;
  let visync: string;

  beforeAll(() => {
    const out = tempDir();
    npm(['pack', '--pack-destination', out], root);
    const tarball = readdirSync(out).find((f) => f.endsWith('.tgz'));
    expect(tarball).toBe(`visibility-sync-${pkg.version}.tgz`);
    const files = execFileSync('tar', ['-tzf', join(out, tarball as string)], { encoding: 'utf8' }).split(
      '\n',
    );
    expect(files).toContain('package/dist/visync.js');
    expect(files).toContain('package/bin/visync.js');
    expect(files).toContain('package/config/visync.example.yaml');
    expect(files.filter((f) => f.startsWith('package/src/') || f.startsWith('package/test/'))).toEqual([]);

    // An empty folder, installing from the npm cache where it can (the registry otherwise).
    app = join(fileDir, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), '{ "name": "visync-install-check", "private": true }\n');
    npm(['install', '--prefer-offline', join(out, tarball as string)], app);
    expect(existsSync(join(app, 'node_modules/tsx'))).toBe(false);
    expect(existsSync(join(app, 'node_modules/node'))).toBe(false);
    visync = join(app, 'node_modules/.bin/visync');
  }, 240_000);

  it('answers --help and --version, and syncs with run --once', async () => {
    const help = spawnSync(visync, ['--help'], { cwd: app, encoding: 'utf8' });
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage: visync');
    const v = spawnSync(visync, ['--version'], { cwd: app, encoding: 'utf8' });
    expect(v.stdout.trim()).toBe(pkg.version);

    const run = await syncOnce(visync, [], app, 3);
    const manifest = /manifest (\S+manifest\.json)$/m.exec(run.stdout)?.[1] as string;
    expect(JSON.parse(readFileSync(manifest, 'utf8')).status).toBe('succeeded');
  }, 180_000);

  it('runs a worker that takes an enqueue --wait run and stops on SIGTERM', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 3 }], seed: 4 });
    const dir = join(app, `queued-${randomUUID().slice(0, 8)}`);
    mkdirSync(dir);
    const { yaml, env } = configYaml(s, join(dir, 'data'), {
      top: { redis: { url: inject('redisUrl'), prefix: `pkg-${randomUUID().slice(0, 8)}` } },
    });
    writeFileSync(join(dir, 'visync.yaml'), yaml);
    const worker = startProcess(visync, ['--config', 'visync.yaml', 'worker', '--log-level', 'info'], {
      cwd: dir,
      env,
      guardMs: 120_000,
    });
    const enqueue = await startProcess(visync, ['--config', 'visync.yaml', 'enqueue', 'sync', '--wait'], {
      cwd: dir,
      env,
      guardMs: 120_000,
    }).exited;
    expect(enqueue.code, `${enqueue.stderr}\nworker:\n${worker.stderr()}`).toBe(0);
    expect(enqueue.stdout).toMatch(
      /^acme: \S+ succeeded \| manifest runs\/account=acme\/run=\S+\/manifest\.json/m,
    );
    expect(worker.stderr() + worker.stdout()).toContain('visync worker ready');

    worker.child.kill('SIGTERM');
    const stopped = await worker.exited;
    expect(stopped.code, stopped.stderr).toBe(0);
  }, 180_000);

  it.each(OTHER_NODE_LINES)(
    'runs on Node %s LTS too: --help and run --once',
    async (line) => {
      const node = installNodeBinary(line, fileDir);
      const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
      expect(version).toMatch(new RegExp(`^v${line}\\.`));
      const bin = join(app, 'node_modules/visibility-sync/bin/visync.js');

      const help = spawnSync(node, [bin, '--help'], { cwd: app, encoding: 'utf8' });
      expect(help.status, help.stderr).toBe(0);
      expect(help.stdout).toContain('Usage: visync');

      const dir = join(app, `node-${line}`);
      mkdirSync(dir);
      const run = await syncOnce(node, [bin], dir, 5);
      // No warning about the Node version from any dependency (the AWS SDK warns on old lines).
      expect(run.stderr).not.toMatch(/node\.?js.*(version|support)/i);
    },
    240_000,
  );
});
