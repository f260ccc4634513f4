// README's "Connect your account", followed as written: the shell block is read out of README.md
// and each of its lines runs verbatim in bash, in a fresh folder, against the simulator. The only
// things the test does by hand are what the block's comments ask of the reader: set baseUrl in the
// copied config, and put a real key where it says 'your key'.
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtVisync, NODE22 } from './helpers/built-bin.js';
import * as h from './helpers/harness.js';

const ROOT = join(import.meta.dirname, '..');

/** The lines of the first ```sh block after the heading. */
function shellBlock(markdown: string, heading: string): string[] {
  const at = markdown.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`README has no heading ${heading}`);
  const m = /```sh\n([\s\S]*?)```/.exec(markdown.slice(at));
  if (!m) throw new Error(`no sh block under ${heading}`);
  return m[1]!.split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith('#'));
}

/** Runs one line in bash without blocking this process (the simulator answers from it). */
function bash(command: string, cwd: string, env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const guard = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`still running after 120 s: ${command}`));
    }, 120_000);
    child.once('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The environment without this machine's Redis or visync settings, as a newcomer's shell has. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith('REDIS') && !k.startsWith('VISYNC_') && !k.startsWith('npm_'))
      env[k] = v;
  return env;
}

describe('README: Connect your account', () => {
  it('runs as written against an account: doctor passes, the first run lands, runs lists it, reports are written', async () => {
    const lines = shellBlock(readFileSync(join(ROOT, 'README.md'), 'utf8'), '## Connect your account');
    expect(lines[0]).toMatch(/^cp config\/visync\.example\.yaml config\/visync\.yaml/);
    expect(lines.filter((l) => l.startsWith('npx visync ')).length).toBeGreaterThanOrEqual(3);

    const s = await h.sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    const dir = h.tempDir();
    mkdirSync(join(dir, 'config'));
    copyFileSync(join(ROOT, 'config', 'visync.example.yaml'), join(dir, 'config', 'visync.example.yaml'));
    // `npx visync` in a clone runs this package's bin/visync.js; here a local bin that runs this test
    // run's build of it (test/setup/global-bundle.ts).
    mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
    const shim = join(dir, 'node_modules', '.bin', 'visync');
    writeFileSync(shim, `#!/bin/sh\nexec "${NODE22}" "${builtVisync().bin}" "$@"\n`);
    chmodSync(shim, 0o755);
    writeFileSync(join(dir, 'package.json'), '{"name":"newcomer","private":true}\n');

    const key = s.accounts[0]!.keys[0]!;
    let env = cleanEnv();
    for (const line of lines) {
      const command = line.replace(/\s+#.*$/, '').replace("'your key'", `'${key}'`);
      if (command.startsWith('export ')) {
        // bash would keep it for the next lines: so does the test.
        const m = /^export (\w+)='([^']*)'$/.exec(command);
        expect(m, command).not.toBeNull();
        env = { ...env, [m![1]!]: m![2]! };
        continue;
      }
      const r = await bash(command, dir, env);
      expect({ command, code: r.code, stderr: r.stderr.slice(-2000), stdout: r.stdout.slice(-3000) }).toEqual(
        {
          command,
          code: 0,
          stderr: expect.any(String),
          stdout: expect.any(String),
        },
      );
      if (command.startsWith('cp ')) {
        // What the line's comment asks: the account's baseUrl (here the simulator's).
        const config = join(dir, 'config', 'visync.yaml');
        const text = readFileSync(config, 'utf8');
        writeFileSync(
          config,
          text.replace(/baseUrl: https:\/\/visibility\.example\/api\/v1/, `baseUrl: ${s.url}`),
        );
      }
      if (command.startsWith('npx visync runs')) expect(r.stdout).toMatch(/acme.*succeeded/);
      if (command.startsWith('npx visync doctor')) expect(r.stdout).not.toMatch(/^FAIL/m);
    }
    // Where README says the things are.
    expect(h.listFiles(join(dir, 'data', 'raw')).length).toBeGreaterThan(0);
    expect(h.listFiles(join(dir, 'data', 'tables')).some((f) => f.endsWith('.ndjson.gz'))).toBe(true);
    expect(h.listFiles(join(dir, 'data', 'runs')).some((f) => f.endsWith('manifest.json'))).toBe(true);
    const reports = h.listFiles(join(dir, 'reports')).filter((f) => f.endsWith('report.html'));
    expect(reports.length).toBe(2);
    expect(reports.every((f) => f.includes('account=acme'))).toBe(true);
    expect(existsSync(join(dir, 'config', 'visync.yaml'))).toBe(true);
  }, 300_000);
});
