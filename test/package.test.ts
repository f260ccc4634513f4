// The package as users get it: `npm pack` (whose prepare script compiles dist/) gives a tarball
// that installs into an empty folder, without dev dependencies (no tsx, no TypeScript), and whose
// `visync` runs the compiled JavaScript: --help, --version and a `run --once` against the simulator.
// One test on purpose: packing and installing take tens of seconds, and every step needs the last.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startProcess } from './helpers/cli-process.js';
import { configYaml, sim, tempDir } from './helpers/harness.js';

const root = new URL('..', import.meta.url).pathname;
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe('npm package', () => {
  it('packs, installs into an empty folder, and its visync answers --help and runs run --once', async () => {
    const out = tempDir();
    npm(['pack', '--pack-destination', out], root);
    const tarball = readdirSync(out).find((f) => f.endsWith('.tgz'));
    expect(tarball).toBe(`visibility-sync-${version}.tgz`);
    const files = execFileSync('tar', ['-tzf', join(out, tarball as string)], { encoding: 'utf8' }).split(
      '\n',
    );
    expect(files).toContain('package/dist/src/cli/main.js');
    expect(files).toContain('package/bin/visync.js');
    expect(files).toContain('package/config/visync.example.yaml');
    expect(files.filter((f) => f.startsWith('package/src/') || f.startsWith('package/test/'))).toEqual([]);

    // An empty folder, installing from the npm cache where it can (the registry otherwise).
    const app = tempDir();
    writeFileSync(join(app, 'package.json'), '{ "name": "visync-install-check", "private": true }\n');
    npm(['install', '--prefer-offline', join(out, tarball as string)], app);
    expect(existsSync(join(app, 'node_modules/tsx'))).toBe(false);
    const visync = join(app, 'node_modules/.bin/visync');

    const help = spawnSync(visync, ['--help'], { cwd: app, encoding: 'utf8' });
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage: visync');
    const v = spawnSync(visync, ['--version'], { cwd: app, encoding: 'utf8' });
    expect(v.stdout.trim()).toBe(version);

    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }], seed: 3 });
    const data = join(app, 'data');
    const { yaml, env } = configYaml(s, data);
    writeFileSync(join(app, 'visync.yaml'), yaml);
    // Async: the simulator answering it lives in this process.
    const run = await startProcess(
      visync,
      ['--config', 'visync.yaml', 'run', '--once', '--log-level', 'warn'],
      {
        cwd: app,
        env,
        guardMs: 120_000,
      },
    ).exited;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^acme: succeeded \| run \S+ \| 2\/2 workspaces/m);
    const manifest = /manifest (\S+manifest\.json)$/m.exec(run.stdout)?.[1] as string;
    expect(JSON.parse(readFileSync(manifest, 'utf8')).status).toBe('succeeded');
  }, 240_000);
});
