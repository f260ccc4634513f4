// No decision on text (#31 item 3): errors are stored without the account in front (the line
// printer adds it, once), and what a message says decides nothing: a run's lines and enqueue --wait's
// are chosen by the problem's kind and the stored record, never by what the text starts or ends with.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { problemLines } from '../src/cli/run-lines.js';
import { runRow } from '../src/cli/runs.js';
import { runAlert } from '../src/delivery/webhooks/payloads.js';
import type { Manifest } from '../src/records/manifest.js';
import { manifestKey } from '../src/sinks/layout.js';
import { bothDrivers, DRIVERS, type DriverRun } from './helpers/driver-runs.js';
import { configFile, sim, tempDir, visyncCli } from './helpers/harness.js';
import { jobsConfigFile, worker } from './helpers/jobs.js';

const REFUSED = 'GET /api/v1/me -> 401: the API key was refused';

async function revokedRun() {
  const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
  s.revokeKey(s.accounts[0]!.keys[0]!);
  const dir = tempDir();
  const { path } = configFile(s, dir);
  const c = await visyncCli(path, ['run', '--once', '--log-level', 'silent']);
  const line = c.out.find((l) => l.startsWith('acme: failed'))!;
  const runId = /run (\S+)/.exec(line)![1]!;
  const file = join(dir, manifestKey('acme', runId));
  return { s, path, c, runId, file, manifest: () => JSON.parse(readFileSync(file, 'utf8')) as Manifest };
}

describe('errors stored without the account, printed with it once', () => {
  // Manifests written by both drivers: a key revoked mid-run, and a workspace every call of which fails.
  let revoked: Record<(typeof DRIVERS)[number], DriverRun>;
  let workspace: Record<(typeof DRIVERS)[number], DriverRun>;
  beforeAll(async () => {
    [revoked, workspace] = await Promise.all([bothDrivers('revoked'), bothDrivers('workspace')]);
  }, 120_000);

  it('visync run: the manifest stores the error without the account; the line names it once', async () => {
    const { c, manifest } = await revokedRun();
    expect(c.code).toBe(1);
    const m = manifest();
    expect(m.error).toMatch(new RegExp(`^${REFUSED}`));
    expect(m.error_code).toBe('auth_revoked');
    const reasons = c.err.filter((l) => l.includes(REFUSED));
    expect(reasons).toEqual([expect.stringMatching(new RegExp(`^visync: acme: ${REFUSED}`))]);
    expect(c.err.join('\n')).not.toContain('acme: acme:');
  });

  it('a manifest written before, with the account in front, prints without doubling it', async () => {
    const { path, runId, file, manifest } = await revokedRun();
    const m = manifest();
    const old: Manifest = {
      ...m,
      error: `acme: ${m.error}`,
      workspaces: [
        { brand_id: 'w9', status: 'failed', error: 'acme: GET /api/v1/brands/w9 -> 400: refused' },
      ],
    };
    writeFileSync(file, JSON.stringify(old));
    expect(problemLines(old)).toEqual([
      `acme: ${m.error}`,
      'acme: workspace w9 failed: GET /api/v1/brands/w9 -> 400: refused',
    ]);
    expect(runRow(old).reason).toMatch(new RegExp(`^${REFUSED}`));
    const alert = runAlert(old, ['failed'])!;
    expect(alert.visync.error).toMatch(new RegExp(`^${REFUSED}`));
    expect(alert.visync.failed_workspaces).toEqual([
      { brand_id: 'w9', error: 'GET /api/v1/brands/w9 -> 400: refused' },
    ]);
    // As a user reads it: `runs` shows the reason once, without the account doubled.
    const runs = await visyncCli(path, ['runs']);
    const text = runs.out.join('\n');
    expect(text).toContain(runId);
    expect(text).not.toContain('acme: acme:');
    expect(text).not.toContain(`acme: ${REFUSED}`);
    // `runs show` names the account in its heading: the error and the workspace's without it.
    const show = await visyncCli(path, ['runs', 'show', runId]);
    expect(show.code).toBe(0);
    expect(show.out.find((l) => l.trimStart().startsWith('error:'))).toMatch(
      new RegExp(`^\\s+error:\\s+${REFUSED}`),
    );
    expect(show.out.join('\n')).not.toContain('acme: GET');
  });

  it.each(DRIVERS)('a message that happens to start with another account name keeps it (%s)', (driver) => {
    const m = workspace[driver].manifest;
    const [broken, ...others] = m.workspaces.filter((w) => w.status === 'failed');
    expect(others).toEqual([]);
    // The workspace's reason as a server might word it, naming another account first.
    const named: Manifest = {
      ...m,
      workspaces: m.workspaces.map((w) => (w === broken ? { ...w, error: `beta: ${w.error}` } : w)),
    };
    expect(problemLines(named)).toEqual([
      `acme: workspace ${broken!.brand_id} failed: beta: ${broken!.error}`,
    ]);
  });

  it.each(DRIVERS)(
    'a workspace is left out as cut short by its code or as the stop itself, not for containing its words (%s)',
    (driver) => {
      const m = revoked[driver].manifest;
      const stop = m.error!;
      const lines = problemLines(m);
      const cut = m.workspaces.filter((w) => w.error_code === 'not_completed');
      expect(cut.length).toBeGreaterThanOrEqual(2);
      const [older, own] = cut.slice(-2) as [(typeof cut)[0], (typeof cut)[0]];
      const mixed: Manifest = {
        ...m,
        workspaces: m.workspaces.map((w) =>
          // Recorded without a code, with the account in front (older records): the stop itself.
          w === older
            ? { brand_id: w.brand_id, status: 'failed', error: `acme: ${stop}` }
            : // Its own failure, whose words end with the stop's: printed.
              w === own
              ? {
                  brand_id: w.brand_id,
                  status: 'failed',
                  error: `proxy said: ${stop}`,
                  error_code: 'internal',
                }
              : w,
        ),
      };
      const mixedLines = problemLines(mixed);
      expect(mixedLines).toHaveLength(lines.length + 1);
      expect(mixedLines).toEqual(
        expect.arrayContaining([...lines, `acme: workspace ${own.brand_id} failed: proxy said: ${stop}`]),
      );
      expect(mixedLines.filter((l) => l.includes(older.brand_id))).toEqual([]);
    },
  );
});

describe("workspaces cut short by the account's stop, told by identity and code", () => {
  it('a key revoked mid-run: cut-short workspaces carry not_completed, and the stop is printed once', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 10 }] });
    s.addFault({ kind: 'status', status: 401, after: 12, times: Number.POSITIVE_INFINITY });
    const dir = tempDir();
    const { path } = configFile(s, dir, { extract: { concurrency: 4 } });
    const c = await visyncCli(path, ['run', '--once', '--log-level', 'silent']);
    expect(c.code).toBe(1);
    const runId = /run (\S+)/.exec(c.out.find((l) => l.startsWith('acme: failed'))!)![1]!;
    const m = JSON.parse(readFileSync(join(dir, manifestKey('acme', runId)), 'utf8')) as Manifest;
    expect(m.error_code).toBe('auth_revoked');
    expect(m.error).toMatch(/^GET \S+ -> 401: the API key was refused/);
    const failed = m.workspaces.filter((w) => w.status === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    for (const w of failed) expect(w.error_code).toBeDefined();
    const cut = failed.filter((w) => w.error_code === 'not_completed');
    expect(cut.length).toBeGreaterThan(0);
    for (const w of cut) expect(w.error).toBe(`not completed: ${m.error}`);
    // The stop once; no workspace line repeats it.
    expect(c.err.filter((l) => l.includes(m.error!))).toEqual([`visync: acme: ${m.error}`]);
  });
});

describe('enqueue --wait: the run error shown once, by its kind', () => {
  it('a failed queued run: the ledger stores its error without the account; the result line names it once', async () => {
    const s = await sim({ accounts: [{ name: 'beta', workspaces: 1, plan: 'starter' }] });
    const { config, path } = jobsConfigFile(s, tempDir(), { top: { jobs: { lockSeconds: 2 } } });
    await worker(config);
    const c = await visyncCli(path, ['enqueue', 'sync', '--wait']);
    expect(c.code).toBe(1);
    expect(c.out.at(-1)).toMatch(/^beta: \S+ failed: GET \/api\/v1\/me -> 403/);
    // Said once, in the result line: not again as a problem line on stderr.
    expect(c.err.filter((l) => l.includes('GET /api/v1/me -> 403'))).toEqual([]);
    expect([...c.out, ...c.err].join('\n')).not.toContain('beta: beta:');

    const json = await visyncCli(path, ['enqueue', 'sync', '--force', '--wait', '--json']);
    const doc = JSON.parse(json.out.join('\n'));
    expect(doc.results[0].error).toMatch(/^GET \/api\/v1\/me -> 403/);
    expect(doc.results[0].error_code).toBe('no_api_access');
    expect(doc.results[0].problems).toEqual([expect.stringMatching(/^beta: GET \/api\/v1\/me -> 403/)]);
  });
});
