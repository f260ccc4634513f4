// Manifests written by real runs of both drivers, for the tests of the lines a run's problems print
// (src/cli/run-lines.ts): `visync run --once` (inline) and a worker's queued run (`visync enqueue
// sync --wait`), each against the simulator over HTTP with a fault, into an fs store (and the fake
// BigQuery for a table that fails). Each call starts its own simulator, folder and Redis prefix, so
// a test file makes the cases it needs at once in its beforeAll.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Manifest } from '../../src/records/manifest.js';
import { manifestKey } from '../../src/sinks/layout.js';
import { breakWorkspace, fakeBigQuery, memoryLogger, sim, tempDir, visyncCli } from './harness.js';
import { jobsClient, jobsConfigFile, runReport, worker } from './jobs.js';

export const DRIVERS = ['inline', 'queued'] as const;
export type Driver = (typeof DRIVERS)[number];

/**
 * - `revoked`: 10 workspaces, the key refused (401) for good after discovery and a few calls;
 * - `workspace`: 3 workspaces, every call of the second answered 400;
 * - `tables`: 2 workspaces into BigQuery, whose loads of `brands` and `accounts` fail with LONG_REASON
 *   and of `prompts` with `quota exceeded` (each once).
 */
export type Case = 'revoked' | 'workspace' | 'tables';

/**
 * How long a driver's run may take before the helper gives up on it and says what it is stuck on
 * (a run takes a few seconds; files make their cases at once in a beforeAll of 120 s).
 */
export const RUN_BOUND_S = 60;

/** A BigQuery error long enough that a line shortens it (run-lines.ts, LOAD_ERROR_MAX). */
export const LONG_REASON = `Access Denied: ${'BigQuery said something long. '.repeat(40)}the end`;

export interface DriverRun {
  driver: Driver;
  manifest: Manifest;
  /** The config file the run used (for `visync runs` and `runs show`). */
  path: string;
  /** The manifest's file in the store. */
  file: string;
}

/** One run of `driver` under the fault of `kase`, and the manifest it wrote. */
export async function driverRun(driver: Driver, kase: Case): Promise<DriverRun> {
  const workspaces = kase === 'revoked' ? 10 : kase === 'workspace' ? 3 : 2;
  const s = await sim({ accounts: [{ name: 'acme', workspaces }] });
  if (kase === 'revoked')
    s.addFault({ kind: 'status', status: 401, after: 12, times: Number.POSITIVE_INFINITY });
  if (kase === 'workspace') breakWorkspace(s, 'acme', s.accounts[0]!.workspaceIds[1]!);
  const dir = tempDir();
  let sinks: { fs: { dir: string }; bigquery?: object } | undefined;
  if (kase === 'tables') {
    const bq = await fakeBigQuery();
    bq.failNextLoad('brands', LONG_REASON);
    bq.failNextLoad('accounts', LONG_REASON);
    bq.failNextLoad('prompts', 'quota exceeded');
    sinks = { fs: { dir }, bigquery: { projectId: 'p', dataset: 'vis', apiEndpoint: bq.url } };
  }
  const { config, path } = jobsConfigFile(s, dir, sinks ? { sinks } : {});
  let runId: string;
  const what = `the ${driver} run of case ${kase}`;
  const calls = () =>
    `${s.log.length} calls to the simulator, the last: ${s.log
      .slice(-5)
      .map((e) => `${e.path} ${e.status}`)
      .join(', ')}`;
  if (driver === 'inline') {
    const c = await within(
      RUN_BOUND_S,
      visyncCli(path, ['run', '--once', '--log-level', 'silent', '--json']),
      () => `${what} has not returned after ${RUN_BOUND_S} s; ${calls()}`,
    );
    expect(c.code, c.err.join('\n')).toBeGreaterThan(0);
    runId = (JSON.parse(c.out.join('\n')) as { runs: { run_id: string }[] }).runs[0]!.run_id;
  } else {
    // One slot: under a revoked key the run's later workspace job starts once the first stopped it.
    const log = memoryLogger('info');
    await worker(config, kase === 'revoked' ? 1 : 2, log.logger);
    // The wait bounded, so a run that never ends says where it stands instead of outlasting the hook.
    const c = await visyncCli(path, ['enqueue', 'sync', '--wait', '--timeout', String(RUN_BOUND_S)]);
    runId = /enqueued sync (\S+)/.exec(c.out.join('\n'))?.[1] ?? '';
    if (c.err.some((l) => l.includes('timed out')))
      throw new Error(
        `${what} (${runId}) has not ended after ${RUN_BOUND_S} s; ${calls()}\n` +
          `${await runReport(config, runId)}\nworker log:\n${log.lines.slice(-30).join('')}`,
      );
    expect(c.code, c.err.join('\n')).toBeGreaterThan(0);
    runId = (await jobsClient(config).ledger.recent('acme'))[0]!.run_id;
  }
  const file = join(dir, manifestKey('acme', runId));
  return { driver, manifest: JSON.parse(readFileSync(file, 'utf8')) as Manifest, path, file };
}

/** The case's run by each driver, made at once. */
export async function bothDrivers(kase: Case): Promise<Record<Driver, DriverRun>> {
  const [inline, queued] = await Promise.all(DRIVERS.map((d) => driverRun(d, kase)));
  return { inline: inline!, queued: queued! };
}

/** `work`'s value, or after `seconds` an error saying what `stuck` tells. */
async function within<T>(seconds: number, work: Promise<T>, stuck: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(stuck())), seconds * 1000);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
