// enqueue --wait and status as a user types them, against an in-process worker.
import { describe, expect, it } from 'vitest';
import { configFile, sim, tempDir, visyncCli } from './helpers/harness.js';
import { jobsConfigFile, worker } from './helpers/jobs.js';

async function setup(accounts: Parameters<typeof sim>[0]['accounts']) {
  const s = await sim({ accounts });
  const { config, path } = jobsConfigFile(s, tempDir(), { top: { jobs: { lockSeconds: 2 } } });
  await worker(config);
  return { s, path };
}

describe('enqueue and status commands', () => {
  it('enqueue --wait prints the run id, shows progress and exits 0; the same run again is not enqueued', async () => {
    const { path } = await setup([{ name: 'acme', workspaces: 3 }]);
    const c = await visyncCli(path, ['enqueue', 'sync', '--wait']);
    expect(c.code).toBe(0);
    const enqueued = c.out.find((l) => l.startsWith('acme: enqueued sync '));
    expect(enqueued).toBeDefined();
    const runId = enqueued!.split(' ').at(-1)!;
    expect(c.out.at(-1)).toMatch(
      new RegExp(`^acme: ${runId} succeeded \\| manifest runs/account=acme/run=${runId}/manifest.json`),
    );
    expect(c.err.some((l) => /\[#{20}\] 3\/3 workspaces \| \d+ requests/.test(l))).toBe(true);

    const again = await visyncCli(path, ['enqueue', 'sync']);
    expect(again.code).toBe(0);
    expect(again.out[0]).toBe(
      `acme: ${runId} exists already (succeeded); not enqueued again (use --force for a new run)`,
    );

    const status = await visyncCli(path, ['status']);
    expect(status.code).toBe(0);
    const text = status.out.join('\n');
    expect(text).toContain(`last success: ${runId} (sync 3d, succeeded 3/3 workspaces`);
    expect(text).toMatch(/next nightly: \d{4}-\d{2}-\d{2}T02:00:00.000Z/);
    expect(text).toMatch(/^queue: waiting \d+, prioritized \d+, active \d+, delayed \d+/m);

    const json = await visyncCli(path, ['status', '--json']);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.out.join('\n'));
    expect(report.accounts[0].last_success.run_id).toBe(runId);
  });

  it('enqueue --wait exits 1 with the reason when the run fails, and 2 when it is partial', async () => {
    const { s, path } = await setup([
      { name: 'acme', workspaces: 2 },
      { name: 'beta', workspaces: 1, plan: 'starter' },
    ]);
    const failed = await visyncCli(path, ['enqueue', 'sync', '--account', 'beta', '--wait']);
    expect(failed.code).toBe(1);
    expect(failed.out.at(-1)).toMatch(/^beta: \S+ failed: GET \/api\/v1\/me -> 403/);

    s.addFault({
      account: 'acme',
      endpoint: 'brand',
      brandId: s.accounts[0]!.workspaceIds[0],
      kind: 'status',
      status: 400,
    });
    const partial = await visyncCli(path, ['enqueue', 'sync', '--account', 'acme', '--wait']);
    expect(partial.code).toBe(2);
    expect(partial.out.at(-1)).toMatch(/^acme: \S+ partial/);
  });

  it('enqueue --wait exits as run --once does when one account fails and another succeeds (2)', async () => {
    const { path } = await setup([
      { name: 'acme', workspaces: 1 },
      { name: 'beta', workspaces: 1, plan: 'starter' },
    ]);
    const queued = await visyncCli(path, ['enqueue', 'sync', '--wait']);
    expect(queued.out.filter((l) => / (succeeded|failed)/.test(l)).map((l) => l.split(' ')[0])).toEqual([
      'acme:',
      'beta:',
    ]);
    expect(queued.code).toBe(2);
    const inline = await visyncCli(path, ['run', '--once', '--log-level', 'silent']);
    expect(inline.code).toBe(2);
  });

  it('commands that need Redis say so when redis.url is missing', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const { path } = configFile(s, tempDir());
    const c = await visyncCli(path, ['status']);
    expect(c.code).toBe(78);
    expect(c.err.join('\n')).toMatch(/redis\.url: visync status needs Redis/);
    expect(c.err.join('\n')).not.toMatch(/\n\s+at /);
  });

  it('enqueue for an account the config lacks: a usage error (64) naming the configured ones, nothing enqueued', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const { path } = jobsConfigFile(s, tempDir());
    const c = await visyncCli(path, ['enqueue', 'sync', '--account', 'nope']);
    expect(c.code).toBe(64);
    expect(c.err).toEqual(['visync: unknown account nope: the config has acme']);
    expect(c.out).toEqual([]);
  });
});
