// Why a queued run failed or ended partial, where a user looks: `enqueue --wait` names each failed
// workspace with its reason, and `status` shows the reason of each failed or partial run.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { problemLines } from '../src/cli/run-lines.js';
import { bothDrivers, DRIVERS, type DriverRun } from './helpers/driver-runs.js';
import { breakWorkspace, sim, tempDir, visyncCli } from './helpers/harness.js';
import { jobsConfigFile, worker } from './helpers/jobs.js';

describe('reasons of failed and partial runs', () => {
  it('enqueue --wait prints each failed workspace and why; status shows the reason in the table and --json', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 3 }] });
    const broken = s.accounts[0]!.workspaceIds[1]!;
    breakWorkspace(s, 'acme', broken);
    // The account keeps its files in a folder of its own: status reads its manifests there.
    const dir = tempDir();
    const { config, path } = jobsConfigFile(s, dir, {
      top: { jobs: { lockSeconds: 2 } },
      accounts: { acme: { fs: { dir: join(dir, 'acme-data') } } },
    });
    await worker(config);

    const wait = await visyncCli(path, ['enqueue', 'sync', '--wait']);
    expect(wait.code).toBe(2);
    const reason = new RegExp(`acme: workspace ${broken} failed: .*400`);
    expect(wait.err.filter((l) => reason.test(l))).toHaveLength(1);
    expect(wait.err.find((l) => reason.test(l))).toMatch(/^visync: /);

    const table = await visyncCli(path, ['status']);
    expect(table.code).toBe(0);
    // The run's line, then its reason on a line of its own (within 100 columns: stdout is no terminal).
    const partial = table.out.findIndex((l) => l.trimStart().startsWith('partial: '));
    expect(table.out[partial]).toMatch(/3\/3 workspaces \(1 failed\)/);
    expect(table.out[partial + 1]).toMatch(new RegExp(`^ {4}workspace ${broken} failed: .*400`));
    for (const l of table.out) expect(l.length).toBeLessThanOrEqual(100);

    const json = await visyncCli(path, ['status', '--json']);
    expect(json.code).toBe(0);
    const run = JSON.parse(json.out.join('\n')).accounts[0].failed[0];
    expect(run.status).toBe('partial');
    expect(run.reasons).toEqual([expect.stringMatching(new RegExp(`^workspace ${broken} failed: .*400`))]);
  });

  // Manifests written by both drivers, BigQuery failing three tables' loads (two with one long reason).
  let tables: Record<(typeof DRIVERS)[number], DriverRun>;
  beforeAll(async () => {
    tables = await bothDrivers('tables');
  }, 120_000);

  it.each(DRIVERS)(
    'failed loads (%s): one line per distinct reason naming its tables; a long reason keeps its start and its end',
    (driver) => {
      const m = tables[driver].manifest;
      expect(m.status).toBe('partial');
      const lines = problemLines(m);
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(
        /^acme: loads failed for 2 tables \((accounts, brands|brands, accounts)\): Access Denied: BigQuery said .* \.\.\. .*the end$/,
      );
      expect(lines[0]!.length).toBeLessThan(500);
      expect(lines[1]).toBe('acme: load of prompts failed: quota exceeded');
    },
  );
});
