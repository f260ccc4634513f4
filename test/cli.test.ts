// The command line as a user types it: exit codes, one-line errors, help that teaches.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { runVisync } from './helpers/cli-process.js';
import { capture, configFile, listFiles, sim, tempDir } from './helpers/harness.js';
import { writeConfig } from './helpers/worker-process.js';

afterEach(() => {
  delete process.env.VISYNC_CLI_TEST_KEY;
});

describe('visync CLI', () => {
  it('--help lists the commands and run --help explains exit codes', async () => {
    const c = capture();
    expect(await main(['node', 'visync', '--help'], c.io)).toBe(0);
    expect(c.out.join('\n')).toMatch(/run .*\n.*simulate/s);
    const r = capture();
    expect(await main(['node', 'visync', 'run', '--help'], r.io)).toBe(0);
    expect(r.out.join('\n')).toMatch(/2\s+partial/);
    expect(r.out.join('\n')).toMatch(/64\s+a\s+usage\s+error.*78\s+a\s+config\s+error/s);
    expect(r.out.join('\n')).not.toMatch(/--once .*\(required\)/);
  });

  it('run --once lands a simulated account and exits 0; a partial run exits 2', async () => {
    const s = await sim({
      accounts: [
        { name: 'acme', workspaces: 2 },
        { name: 'beta', workspaces: 1, plan: 'starter' },
      ],
    });
    const dir = tempDir();
    process.env.VISYNC_CLI_TEST_KEY = s.accounts[0]!.keys[0]!;
    const cfg = join(dir, 'visync.yaml');
    writeFileSync(
      cfg,
      `accounts:\n  - name: acme\n    apiKey: \${VISYNC_CLI_TEST_KEY}\n    baseUrl: ${s.url}\n` +
        `  - name: beta\n    apiKey: ${s.accounts[1]!.keys[0]}\n    baseUrl: ${s.url}\n` +
        `sinks:\n  fs: { dir: ${join(dir, 'data')} }\n`,
    );
    const ok = capture();
    expect(
      await main(
        ['node', 'visync', '--config', cfg, 'run', '--once', '--account', 'acme', '--log-level', 'silent'],
        ok.io,
      ),
    ).toBe(0);
    expect(ok.out.join('\n')).toMatch(/^acme: succeeded \| run .* \| 2\/2 workspaces \| \d+ requests/);
    expect(listFiles(join(dir, 'data')).some((f) => f.startsWith('runs/account=acme/'))).toBe(true);

    const both = capture();
    expect(
      await main(['node', 'visync', '--config', cfg, 'run', '--once', '--log-level', 'silent'], both.io),
    ).toBe(2);
    expect(both.err.join('\n')).toMatch(/visync: beta: GET \/api\/v1\/me -> 403/);
  });

  it('a bad config stops with the path of the bad key, no stack trace', async () => {
    const dir = tempDir();
    const cfg = join(dir, 'visync.yaml');
    writeFileSync(
      cfg,
      'accounts:\n  - name: acme\n    apiKey: x\n    baseUrl: http://example.com/api/v1\n    brnds: all\nsinks: { fs: {} }\n',
    );
    const c = capture();
    expect(await main(['node', 'visync', '--config', cfg, 'run', '--once'], c.io)).toBe(78);
    const text = c.err.join('\n');
    expect(text).toMatch(/accounts\.0\.brnds/);
    expect(text).toMatch(/accounts\.0\.baseUrl/);
    expect(text).not.toMatch(/\n\s+at /);
  });

  it('rejects a bad --days with a clear message', async () => {
    const c = capture();
    expect(await main(['node', 'visync', 'run', '--once', '--days', '400'], c.io)).toBe(64);
    expect(c.err.join('\n')).toMatch(/1 to 365/);
  });

  it('`visync run` runs now: --once is accepted but not required', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const c = capture();
    expect(
      await main(
        ['node', 'visync', '--config', configFile(s, tempDir()).path, 'run', '--log-level', 'silent'],
        c.io,
      ),
    ).toBe(0);
    expect(c.out.join('\n')).toMatch(/^acme: succeeded \| run /);
    expect(c.err.join('\n')).not.toMatch(/--once/);
  });
});

// Run as a process, as a scheduler sees it: its own exit code for a typo and for a bad config.
describe('exit codes: 64 usage, 78 config', () => {
  it('an unknown option, command or bad argument exits 64 with one line', async () => {
    for (const args of [['run', '--bogus'], ['frobnicate'], ['run', '--days', '400']]) {
      const r = await runVisync(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(64);
      expect(r.stderr).toMatch(/^error: /);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('an impossible cron: worker and run exit 78 naming the key and value; doctor FAILs with 78', async () => {
    const dir = tempDir();
    const cfg = writeConfig(
      dir,
      [
        'accounts:',
        '  - name: acme',
        '    apiKey: key-that-is-long-enough',
        '    baseUrl: http://127.0.0.1:1/api/v1',
        '    schedule: { cron: "0 25 * * *" }',
        'redis: { url: "redis://127.0.0.1:1" }',
        `sinks: { fs: { dir: ${JSON.stringify(join(dir, 'data'))} } }`,
        '',
      ].join('\n'),
    );
    const line = `visync: ${cfg}: accounts.0.schedule.cron: hour 25 is out of range 0-23`;
    for (const args of [['worker'], ['run']]) {
      const r = await runVisync(['--config', cfg, ...args]);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(78);
      expect(r.stderr.trim()).toBe(line);
    }
    const doctor = await runVisync(['--config', cfg, 'doctor']);
    expect(doctor.code, doctor.stderr).toBe(78);
    expect(doctor.stdout).toMatch(
      /^FAIL config: .*accounts\.0\.schedule\.cron: hour 25 is out of range 0-23/m,
    );
    expect(doctor.stdout).not.toMatch(/^PASS/m);
  });

  it('a missing config file exits 78', async () => {
    const r = await runVisync(['--config', join(tempDir(), 'none.yaml'), 'run']);
    expect(r.code, r.stderr).toBe(78);
    expect(r.stderr).toMatch(/config file not found/);
  });
});
