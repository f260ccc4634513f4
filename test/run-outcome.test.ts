// One outcome rule for both drivers (src/records/workspace-outcome.ts): a key revoked in the middle of
// a run records auth_revoked for the run and a code on every workspace that did not succeed, with
// `visync run --once` and with a worker's queued run (`enqueue --wait`), and `visync runs show`
// prints them alike. Real Redis, the simulator over HTTP with a 401 after some requests.
import { describe, expect, it } from 'vitest';
import { problemLines } from '../src/cli/run-lines.js';
import { RUN_ERROR_CODES } from '../src/records/error-code.js';
import type { Manifest } from '../src/records/manifest.js';
import { runOnceCli, sim, tempDir, visyncCli } from './helpers/harness.js';
import { jobsClient, jobsConfigFile, worker } from './helpers/jobs.js';

const WORKSPACES = 10;

/** 10 workspaces whose key is refused after discovery and the first few calls. */
async function revokedMidRun() {
  const s = await sim({ accounts: [{ name: 'acme', workspaces: WORKSPACES }] });
  s.addFault({ kind: 'status', status: 401, after: 12, times: Number.POSITIVE_INFINITY });
  const dir = tempDir();
  return { s, dir, ...jobsConfigFile(s, dir) };
}

/** The run's manifest as `runs show --json` prints it, and its lines for people. */
async function shown(path: string, runId: string): Promise<{ m: Manifest; lines: string[] }> {
  const json = await visyncCli(path, ['runs', 'show', runId, '--json']);
  expect(json.code).toBe(0);
  const text = await visyncCli(path, ['runs', 'show', runId]);
  expect(text.code).toBe(0);
  return { m: JSON.parse(json.out.join('\n')) as Manifest, lines: text.out };
}

/** What both drivers must record and show of a key revoked mid-run. */
function expectRevoked({ m, lines }: { m: Manifest; lines: string[] }) {
  expect(m.status).toBe('failed');
  expect(m.error).toMatch(/401: the API key was refused/);
  expect(m.error_code).toBe('auth_revoked');
  const failed = m.workspaces.filter((w) => w.status !== 'succeeded');
  expect(m.workspaces).toHaveLength(WORKSPACES);
  expect(failed.length).toBeGreaterThan(0);
  for (const w of failed) {
    expect(w.error, w.brand_id).toBeTruthy();
    expect(RUN_ERROR_CODES, `${w.brand_id}: ${w.error}`).toContain(w.error_code);
    expect(['auth_revoked', 'not_completed'], `${w.brand_id}: ${w.error}`).toContain(w.error_code);
  }
  // No workspace is left with a code that says nothing (the run's stop is known).
  expect(failed.some((w) => w.error_code === 'internal' || w.error_code === 'unknown')).toBe(false);
  // The stop is said once; a workspace it cut short has no line of its own, by its code.
  const problems = problemLines(m);
  expect(problems[0]).toContain(m.error);
  expect(problems.filter((l) => /not (completed|attempted)/.test(l))).toEqual([]);
  expect(failed.some((w) => w.error_code === 'not_completed')).toBe(true);
  // runs show prints the run's code and each failed workspace's.
  expect(lines).toContainEqual(expect.stringMatching(/^ {2}code: +auth_revoked$/));
  for (const w of failed) expect(lines).toContainEqual(`  ${w.brand_id}  failed  ${w.error_code}`);
}

describe('one outcome rule for both drivers', () => {
  it('run --once: a key revoked mid-run records auth_revoked and a code on every failed workspace', async () => {
    const { s, dir, path } = await revokedMidRun();
    const run = await runOnceCli(s, dir, ['--json']);
    expect(run.code).toBe(1);
    const runId = (JSON.parse(run.out.join('\n')) as { runs: { run_id: string }[] }).runs[0]!.run_id;
    expectRevoked(await shown(path, runId));
  });

  it("a worker's queued run: a key revoked mid-run records the same codes, in the ledger too", async () => {
    const { s, path, config } = await revokedMidRun();
    // One slot: the run's second workspace job (of 8 and 2) starts once the first has stopped the
    // run, and fails as a job, its workspaces unattempted.
    await worker(config, 1);
    const wait = await visyncCli(path, ['enqueue', 'sync', '--wait']);
    expect(wait.code).toBe(1);
    const c = jobsClient(config);
    const [ledgerRun] = await c.ledger.recent('acme');
    // Some workspace jobs failed as jobs: their workspaces' codes came through their data.
    expect((await c.queues.for('acme').getFailed()).length).toBeGreaterThan(0);
    expect(ledgerRun).toMatchObject({
      status: 'failed',
      error_code: 'auth_revoked',
      stopped_code: 'auth_revoked',
    });
    expect(s.log.some((e) => e.status === 401)).toBe(true);
    expectRevoked(await shown(path, ledgerRun!.run_id));
    // The failures and codes the jobs kept in their data carry no API key.
    const keys = await c.redis.keys(`${config.redis.prefix}:*`);
    const hashes = await Promise.all(
      keys.map(async (k) =>
        (await c.redis.type(k)) === 'hash' ? JSON.stringify(await c.redis.hgetall(k)) : '',
      ),
    );
    expect(hashes.join('')).toContain('not_completed');
    expect(hashes.join('')).not.toContain(s.accounts[0]!.keys[0]!);
  });
});
