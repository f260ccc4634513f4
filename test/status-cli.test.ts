// `visync enqueue --json --wait` and `visync status --account` as a user runs them (real processes)
// against a worker: one JSON document on stdout, status for the accounts asked, lines no wider than
// 100 columns (stdout is not a terminal) with a pointer to the run's whole reasons, and no phase on
// a run that has ended.
import { describe, expect, it } from 'vitest';
import { runVisync } from './helpers/cli-process.js';
import { sim, tempDir } from './helpers/harness.js';
import { jobsClient, jobsConfigFile, worker } from './helpers/jobs.js';

const lines = (text: string) => text.split('\n').filter(Boolean);

interface EnqueueJson {
  runs: { account: string; run_id: string; kind: string; enqueued: boolean }[];
  finished: boolean;
  status: string;
  exit_code: number;
  results: { account: string; run_id: string; status: string; problems: string[] }[];
}

describe('enqueue --json and status --account', () => {
  it('enqueue --json --wait prints one JSON document; status --account shows that account only, lines within 100 columns, and no phase for an ended run', async () => {
    const s = await sim({
      accounts: [
        { name: 'acme', workspaces: 2 },
        { name: 'gamma', workspaces: 1 },
      ],
    });
    // gamma asks for a workspace it does not own: the upstream's JSON error becomes its reason.
    const { config, path } = jobsConfigFile(s, tempDir(), { accounts: { gamma: { brands: ['nope'] } } });
    await worker(config);

    const queued = await runVisync(['--config', path, 'enqueue', 'sync', '--wait', '--json']);
    expect(queued.code).toBe(2);
    const doc = JSON.parse(queued.stdout) as EnqueueJson;
    expect(doc).toMatchObject({ finished: true, status: 'partial', exit_code: 2 });
    expect(queued.code).toBe(doc.exit_code);
    expect(doc.runs.map((r) => [r.account, r.kind, r.enqueued])).toEqual([
      ['acme', 'sync', true],
      ['gamma', 'sync', true],
    ]);
    const acme = doc.results.find((r) => r.account === 'acme')!;
    const gamma = doc.results.find((r) => r.account === 'gamma')!;
    expect(acme).toMatchObject({ status: 'succeeded', problems: [] });
    expect(gamma.status).toBe('failed');
    expect(gamma.problems.join('\n')).toMatch(/nope.*404.*upstream said/);
    // Progress and the result lines went to stderr.
    expect(queued.stderr).toMatch(/acme \[#{20}\] 2\/2 workspaces/);

    // The ledger keeps the phase the run was last in; status does not show it for an ended run.
    expect((await jobsClient(config).ledger.get(acme.run_id))?.phase).toBe('curating');
    const json = await runVisync(['--config', path, 'status', '--json', '--account', 'acme']);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as { accounts: { account: string; last_success: object }[] };
    expect(report.accounts.map((a) => a.account)).toEqual(['acme']);
    expect(report.accounts[0]!.last_success).toMatchObject({ run_id: acme.run_id, status: 'succeeded' });
    expect(report.accounts[0]!.last_success).not.toHaveProperty('phase');

    const text = await runVisync(['--config', path, 'status', '--account', 'gamma']);
    expect(text.code).toBe(0);
    const shown = lines(text.stdout);
    expect(shown[0]).toBe('gamma');
    expect(shown).not.toContain('acme');
    for (const l of shown) expect(l.length).toBeLessThanOrEqual(100);
    // The run, then its reason cut to the width, then where the whole reason is.
    const at = shown.findIndex((l) =>
      l.startsWith(`  failed: ${gamma.run_id} (sync 3d, failed 1/1 workspaces`),
    );
    expect(at).toBeGreaterThan(0);
    expect(shown[at + 1]).toMatch(
      // Under its account's heading: the account is not said again (#31 item 3).
      /^ {4}workspace nope failed: GET \/api\/v1\/brands\/nope -> 404: .*\.\.\.$/,
    );
    expect(shown[at + 2]).toBe(`    all of them whole: visync runs show ${gamma.run_id}`);
    // No shard or queue key in what a user reads.
    expect(text.stdout).not.toMatch(/\{visync-/);

    const unknown = await runVisync(['--config', path, 'status', '--account', 'nope']);
    expect(unknown.code).toBe(64);
    expect(lines(unknown.stderr)).toEqual(['visync: unknown account nope: the config has acme, gamma']);
  });
});
