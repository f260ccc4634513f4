// A running worker picks up accounts added to and removed from its accountsFrom folder without a
// restart: the new account's runs are worked, the removed account's schedule is dropped.
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { startVisync } from './helpers/cli-process.js';
import { sim, tempDir, visyncCli } from './helpers/harness.js';
import { waitFor } from './helpers/wait-for.js';

describe('worker config reload', () => {
  it('an account file added is worked without a restart; one removed loses its schedule', async () => {
    const s = await sim({
      accounts: [
        { name: 'acme', workspaces: 1 },
        { name: 'beta', workspaces: 2 },
      ],
    });
    const dir = tempDir();
    const accountFile = (name: string) => join(dir, 'accounts', `${name}.yaml`);
    // Keys in files, as mounted secrets: the running worker cannot see variables set after its start.
    const writeAccount = (name: string) => {
      const a = s.accounts.find((x) => x.name === name)!;
      writeFileSync(join(dir, `${name}.key`), `${a.keys[0]}\n`);
      writeFileSync(accountFile(name), stringify({ name, apiKeyFile: `../${name}.key`, baseUrl: s.url }));
    };
    mkdirSync(join(dir, 'accounts'));
    writeAccount('acme');
    const path = join(dir, 'visync.yaml');
    writeFileSync(
      path,
      stringify({
        accountsFrom: 'accounts',
        extract: { visibilityDays: 3, buyerIntentDays: [7] },
        sinks: { fs: { dir: join(dir, 'data') } },
        redis: { url: inject('redisUrl'), prefix: `reload-${randomUUID().slice(0, 8)}` },
        jobs: { lockSeconds: 2 },
        worker: { listen: 'off' },
      }),
    );
    const worker = startVisync(['--config', path, 'worker', '--log-level', 'info'], {}, 90_000);
    await waitFor(() => worker.stdout().includes('visync worker ready'), { what: 'the worker to be ready' });

    writeAccount('beta');
    await waitFor(() => /config reloaded/.test(worker.stderr()), { what: 'the worker to reload its config' });
    const c = await visyncCli(path, ['enqueue', 'sync', '--account', 'beta', '--wait', '--timeout', '40']);
    expect(c.code, [...c.out, ...c.err, worker.stderr()].join('\n')).toBe(0);
    expect(c.out.at(-1)).toMatch(/^beta: \S+ succeeded/);

    rmSync(accountFile('acme'));
    await waitFor(
      () =>
        /removed schedules of accounts no longer configured.*acme|acme.*removed schedules/.test(
          worker.stderr(),
        ),
      { what: 'the removed account to lose its schedule' },
    );
    worker.child.kill('SIGTERM');
    expect((await worker.exited).code).toBe(0);
  }, 120_000);

  it('an impossible cron edited into a running worker: the old schedule stays, status and /metrics say the reload failed', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const dir = tempDir();
    writeFileSync(join(dir, 'acme.key'), `${s.accounts[0]!.keys[0]}\n`);
    const prefix = `reload-${randomUUID().slice(0, 8)}`;
    const config = (cron: string) =>
      stringify({
        accounts: [{ name: 'acme', apiKeyFile: 'acme.key', baseUrl: s.url }],
        schedule: { nightly: { cron } },
        sinks: { fs: { dir: join(dir, 'data') } },
        redis: { url: inject('redisUrl'), prefix },
        worker: { listen: '127.0.0.1:0' },
      });
    const path = join(dir, 'visync.yaml');
    const good = config('0 2 * * *');
    writeFileSync(path, good);
    // What an operator's status reads while the worker's own file is broken: the config in force.
    const inForce = join(dir, 'in-force.yaml');
    writeFileSync(inForce, good);
    const worker = startVisync(['--config', path, 'worker', '--log-level', 'info'], {}, 90_000);
    await waitFor(() => worker.stdout().includes('visync worker ready'), { what: 'the worker to be ready' });
    const endpoint = /endpoint (http:\/\/\S+?)\/ /.exec(worker.stdout())?.[1];
    const gauge = async () =>
      /^visync_config_reload_failed (\d)$/m.exec(await (await fetch(`${endpoint}/metrics`)).text())?.[1];
    expect(await gauge()).toBe('0');
    const next = (await visyncCli(inForce, ['status'])).out.find((l) => l.includes('next nightly'));

    writeFileSync(path, config('0 25 * * *'));
    await waitFor(() => /config reload: keeping the config in force/.test(worker.stderr()), {
      what: 'the worker to refuse the new config',
    });
    expect(worker.stderr()).toContain('schedule.nightly.cron: hour 25 is out of range 0-23');
    const status = await visyncCli(inForce, ['status']);
    expect(status.code).toBe(0);
    expect(status.out.find((l) => l.includes('next nightly'))).toBe(next);
    // The warning first, wrapped to 100 columns (stdout is no terminal) with its lines indented.
    const warning = [
      status.out[0]!,
      ...status.out.slice(
        1,
        status.out.findIndex((l, i) => i > 0 && !l.startsWith('    ')),
      ),
    ];
    for (const l of warning) expect(l.length).toBeLessThanOrEqual(100);
    expect(warning.map((l) => l.trim()).join(' ')).toMatch(
      /^warning: config reload failed at \S+ \(worker \S+\): .*schedule\.nightly\.cron: hour 25 is out of range 0-23; the worker runs the previous config$/,
    );
    const json = JSON.parse((await visyncCli(inForce, ['status', '--json'])).out.join('\n'));
    expect(json.config_reload_failed.reason).toMatch(/hour 25 is out of range 0-23/);
    expect(await gauge()).toBe('1');

    writeFileSync(path, good.replace('0 2 * * *', '0 3 * * *'));
    await waitFor(() => /config reloaded/.test(worker.stderr()), { what: 'the worker to reload' });
    await waitFor(async () => (await gauge()) === '0', { what: 'the gauge to clear' });
    expect((await visyncCli(inForce, ['status'])).out[0]).toBe('acme');
    worker.child.kill('SIGTERM');
    expect((await worker.exited).code).toBe(0);
  }, 120_000);
});
