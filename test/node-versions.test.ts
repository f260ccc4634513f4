// visync supports Node.js 22.19+ (docs/development.md "Node.js versions"). A machine whose own Node is older
// (Debian 12 ships 20) still runs the clone's `node bin/visync.js ...`: the bin re-runs itself
// under the Node 22 that `npm ci` installs (the `node` dev dependency), passing the exit code and
// signals through; without that Node it stops with one line that says what to do.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript module of the bin, without type declarations
import { isSupportedNode, MIN_NODE } from '../bin/supported-node.js';
import { installNodeBinary } from './helpers/node-binary.js';
import { waitFor } from './helpers/wait-for.js';

const root = new URL('..', import.meta.url).pathname;
const BIN = join(root, 'bin/visync.js');
const dir = mkdtempSync(join(tmpdir(), 'visync-node-versions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Pids of the processes whose parent is `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('supported Node versions', () => {
  it('compares versions against the minimum', () => {
    expect(MIN_NODE).toEqual([22, 19, 0]);
    for (const v of ['22.19.0', '22.23.3', '24.0.0', '26.10.0', '100.0.0'])
      expect(isSupportedNode(v), v).toBe(true);
    for (const v of ['20.20.2', '22.18.9', '21.99.0', '18.0.0']) expect(isSupportedNode(v), v).toBe(false);
  });

  describe('started by Node 20', () => {
    let node20: string;
    beforeAll(() => {
      node20 = installNodeBinary('20', dir);
    }, 120_000);

    it('runs the command under the clone Node 22 and passes its exit code through', () => {
      const v = spawnSync(node20, [BIN, '--version'], { encoding: 'utf8' });
      expect(v.status, v.stderr).toBe(0);
      expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
      const bad = spawnSync(node20, [BIN, '--config', join(dir, 'missing.yaml'), 'status'], {
        encoding: 'utf8',
      });
      expect(bad.status).toBe(78);
      expect(bad.stderr).toMatch(/^visync: .*missing\.yaml/m);
    });

    it('forwards SIGTERM to the command, and the command stops when its parent is killed', async () => {
      for (const kill of ['SIGTERM', 'SIGKILL'] as const) {
        const parent = spawn(node20, [BIN, 'simulate', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        parent.stdout.on('data', (d: Buffer) => {
          out += d.toString();
        });
        await waitFor(() => out.includes('listening on'), {
          what: 'the simulator to listen',
          timeoutMs: 15_000,
        });
        const [child] = childrenOf(parent.pid as number);
        expect(child, 'the re-run command').toBeDefined();
        const exited = new Promise<number | null>((r) => parent.once('exit', (code) => r(code)));
        parent.kill(kill);
        const code = await exited;
        if (kill === 'SIGTERM') expect(code).toBe(0);
        await waitFor(() => !alive(child as number), {
          what: `the command to stop after its parent got ${kill}`,
          timeoutMs: 15_000,
        });
      }
    });

    it('npm ci run by npm on Node 20 prints one line about it, not 5 EBADENGINE lines per package', () => {
      // The project's install files as they are, in a folder of their own; the build, which needs
      // the installed packages, is a stand-in (--dry-run installs nothing; --offline: no network).
      const clone = join(dir, 'npm-ci');
      mkdirSync(join(clone, 'scripts'), { recursive: true });
      mkdirSync(join(clone, 'bin'), { recursive: true });
      for (const f of ['package.json', 'package-lock.json', '.npmrc', 'scripts/npm-node-notice.mjs'])
        copyFileSync(join(root, f), join(clone, f));
      copyFileSync(join(root, 'bin/supported-node.js'), join(clone, 'bin/supported-node.js'));
      writeFileSync(join(clone, 'scripts/build.mjs'), '');
      const npmCli = realpathSync(
        execFileSync('sh', ['-c', 'command -v npm'], {
          encoding: 'utf8',
          env: { PATH: '/usr/local/bin:/usr/bin:/bin' },
        }).trim(),
      );
      const version = execFileSync(node20, ['--version'], { encoding: 'utf8' }).trim();
      // npm's scripts find node on PATH: Node 20's folder only, as on the machine the issue was met on.
      const env = {
        PATH: `${dirname(node20)}:/usr/bin:/bin`,
        HOME: clone,
        npm_config_cache: join(dir, 'npm-cache'),
      };
      const run = (npmrc: boolean) => {
        if (!npmrc) rmSync(join(clone, '.npmrc'));
        return spawnSync(
          node20,
          [npmCli, 'ci', '--dry-run', '--offline', '--no-audit', '--no-fund', '--no-update-notifier'],
          {
            cwd: clone,
            env,
            encoding: 'utf8',
          },
        );
      };
      const withNpmrc = run(true);
      expect(withNpmrc.status, withNpmrc.stderr).toBe(0);
      const output = `${withNpmrc.stdout}\n${withNpmrc.stderr}`;
      expect(output).not.toContain('EBADENGINE');
      expect(output.split('\n').filter((l) => l.startsWith('visync: '))).toEqual([
        `visync: npm runs on Node ${version.slice(1)}, older than the 22.19.0 visync needs: fine in this clone, whose scripts, tests and bin/visync.js run on the Node 22 installed in node_modules/node (docs/development.md "Node.js versions")`,
      ]);
      // Without .npmrc, what the issue met: 5 lines for each package asking for Node 22.
      const bare = run(false);
      expect(
        `${bare.stdout}\n${bare.stderr}`.split('\n').filter((l) => l.includes('EBADENGINE')).length,
      ).toBeGreaterThan(50);
    });

    it('without the clone Node 22 it stops with one line saying what to do', () => {
      const bare = join(dir, 'bare', 'bin');
      mkdirSync(bare, { recursive: true });
      for (const f of ['visync.js', 'run-cli.js', 'supported-node.js'])
        copyFileSync(join(root, 'bin', f), join(bare, f));
      const version = execFileSync(node20, ['--version'], { encoding: 'utf8' }).trim();
      const r = spawnSync(node20, [join(bare, 'visync.js'), '--help'], { encoding: 'utf8' });
      expect(r.status).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toEqual([
        `visync: needs Node.js ${MIN_NODE.join('.')} or newer (22, 24 or 26 LTS); this is ${version}. Install a current LTS from https://nodejs.org and run it again.`,
      ]);
    });
  });
});
