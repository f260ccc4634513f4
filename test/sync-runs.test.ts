// Every finished run records one sync_runs row: in the sink under the storage layout, and in
// BigQuery after every other table (fake REST server, real client), whoever ran it (run --once,
// replay, a worker). A failed sync_runs load leaves the run partial, and replay records it.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { RAW_ENDPOINTS } from '../src/api/endpoints.js';
import { SYNC_RUNS, toNdjsonLine, WAREHOUSE_TABLES } from '../src/catalogue/index.js';
import { syncRunsRow } from '../src/normalise/sync-runs.js';
import { assembleManifest, type Manifest, readManifest } from '../src/records/manifest.js';
import { runScope } from '../src/records/run-scope.js';
import type { Simulator } from '../src/simulator/index.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { tablePartKey } from '../src/sinks/layout.js';
import { Warehouse } from '../src/warehouse/index.js';
import type { FakeBigQuery } from './fakes/bigquery-server.js';
import {
  configFile,
  fakeBigQuery,
  listFiles,
  readBytes,
  runOnceCli,
  sim,
  tempDir,
  visyncCli,
} from './helpers/harness.js';
import { jobsConfigFile, worker } from './helpers/jobs.js';

const ALL_ENDPOINTS = [...RAW_ENDPOINTS];
const RUN = { account: 'acme', runId: '20261120T020000Z-sync-abc123', runDate: '2026-11-20' };

function manifest(p: Partial<Parameters<typeof assembleManifest>[0]> = {}): Manifest {
  return assembleManifest({
    run: RUN,
    kind: 'sync',
    startedAt: '2026-11-20T02:00:00.000Z',
    visibilityDays: 3,
    buyerIntentDays: [7],
    workspaces: [],
    files: [],
    loads: [],
    requests: { calls: 12, rate_limited: 1, retries: 2, waited_ms: 345 },
    drift: [],
    ...p,
  });
}

const part = (table: string, rows: number, runId = RUN.runId) => ({
  key: tablePartKey({ table, partitionDate: '2026-11-20', account: 'acme', runId, part: 0 }),
  bytes: 10,
  sha256: 'x',
  rows,
});

describe('syncRunsRow (a manifest as its sync_runs row)', () => {
  const recordedAt = '2026-11-20T02:05:00.000Z';

  it('says what the manifest says: status, window, requests, workspaces, every endpoint of a full run', () => {
    const m = manifest({
      workspaces: [
        { brand_id: 'b1', status: 'succeeded' },
        { brand_id: 'b2', status: 'failed', error: 'GET /brands/b2 -> 500' },
      ],
      loads: [
        { table: 'brands', job_id: 'j1', status: 'succeeded', rows: 2 },
        { table: 'prompts', job_id: 'j2', status: 'failed', rows: 0, error: 'job failed' },
      ],
      drift: [{ endpoint: 'visibility', kind: 'new-field', detail: 'x', stage: 'normalise' }],
    });
    const row = syncRunsRow(m, { recordedAt, warehouse: true });
    expect(row).toMatchObject({
      account: 'acme',
      run_id: RUN.runId,
      kind: 'sync',
      status: 'partial',
      run_date: '2026-11-20',
      window_start: '2026-11-18',
      window_end: '2026-11-20',
      started_at: '2026-11-20T02:00:00.000Z',
      finished_at: m.finished_at,
      recorded_at: recordedAt,
      requests: 12,
      rate_limited: 1,
      retries: 2,
      waited_ms: 345,
      endpoints: ALL_ENDPOINTS,
      brand_filter: [],
      workspaces_succeeded: ['b1'],
      workspaces_failed: ['b2'],
      tables_failed: ['prompts'],
      table_rows: { brands: 2 },
      failures: [
        { scope: 'workspace', id: 'b2', reason: 'GET /brands/b2 -> 500' },
        { scope: 'table', id: 'prompts', reason: 'job failed' },
      ],
      drift_findings: 1,
      drift: [{ endpoint: 'visibility', kind: 'new-field', detail: 'x', example: null, count: null }],
      error: null,
    });
    // Every REQUIRED column has a value and no key is outside the table.
    expect(() => toNdjsonLine(SYNC_RUNS, row)).not.toThrow();
  });

  it('a --brand / --endpoints run: its brands as brand_filter, me and brands plus its endpoints', () => {
    const row = syncRunsRow(manifest({ scope: runScope(['b1'], ['prompts', 'visibility']) }), {
      recordedAt,
      warehouse: false,
    });
    expect(row.brand_filter).toEqual(['b1']);
    expect(row.endpoints).toEqual(['me', 'brands', 'visibility', 'prompts']);
  });

  it('without a warehouse, table_rows counts the curated parts of this run (not its sync_runs part)', () => {
    const m = manifest({
      files: [
        { key: 'raw/me/account=acme/dt=2026-11-20/run=r/_account.json', bytes: 1, sha256: 'x' },
        part('visibility_daily', 3),
        {
          ...part('visibility_daily', 2),
          key: part('visibility_daily', 2).key.replace('part-00000', 'part-00001'),
        },
        part('brands', 1),
        part('sync_runs', 1),
        part('prompts', 9, 'another-run'),
        { key: 'latest/account=acme/brand=b1.json', bytes: 1, sha256: 'x' },
      ],
      loads: [{ table: 'prompts', job_id: '', status: 'failed', rows: 0, error: 'not curated: disk full' }],
    });
    const row = syncRunsRow(m, { recordedAt, warehouse: false });
    expect(row.table_rows).toEqual({ brands: 1, visibility_daily: 5 });
    expect(row.tables_failed).toEqual(['prompts']);
  });

  it('an account that stopped: failed, with its error; an interrupted run says so in failures and speaks for no workspace', () => {
    const failed = syncRunsRow(manifest({ error: 'acme: GET /api/v1/me -> 401' }), {
      recordedAt,
      warehouse: true,
    });
    // Written before #31 with the account in front: the row has it without (its account column names it).
    expect(failed).toMatchObject({
      status: 'failed',
      error: 'GET /api/v1/me -> 401',
      failures: [{ scope: 'account', id: 'acme', reason: 'GET /api/v1/me -> 401' }],
      table_rows: {},
    });
    // Completed from a stopped process's raw landing: it speaks for no workspace (calls are missing).
    const interrupted = syncRunsRow(
      {
        ...manifest({ workspaces: [{ brand_id: 'b1', status: 'succeeded' }] }),
        status: 'partial',
        interrupted: 'stopped before its manifest',
      },
      { recordedAt, warehouse: true },
    );
    expect(interrupted.failures).toEqual([
      { scope: 'run', id: RUN.runId, reason: 'stopped before its manifest' },
    ]);
    expect(interrupted.workspaces_succeeded).toEqual([]);
  });
});

describe('the sync_runs load job', () => {
  it('a retried recording finds its job by id (409); a new recording of the run is a new job and row', async () => {
    const bq = await fakeBigQuery();
    const dir = tempDir();
    const warehouse = new Warehouse({ ...DATASET, location: 'EU', apiEndpoint: bq.url });
    await warehouse.prepare(WAREHOUSE_TABLES, []);
    const m = manifest();
    const file = (name: string, recordedAt: string) => {
      const path = join(dir, name);
      const row = syncRunsRow(m, { recordedAt, warehouse: true });
      writeFileSync(path, gzipSync(`${toNdjsonLine(SYNC_RUNS, row)}\n`));
      return path;
    };
    // As recordRun names each recording: by the digest of the part it stored.
    const load = (path: string) =>
      warehouse.load({
        table: SYNC_RUNS,
        account: 'acme',
        runId: RUN.runId,
        file: path,
        recording: createHash('sha256').update(readFileSync(path)).digest('hex').slice(0, 16),
      });

    const first = await load(file('a.gz', '2026-11-20T02:05:00.000Z'));
    const retried = await load(file('b.gz', '2026-11-20T02:05:00.000Z'));
    expect(retried).toEqual(first);
    expect(bq.jobs.map((j) => j.outcome)).toEqual(['created', 'duplicate']);
    expect(bqRows(bq)).toHaveLength(1);

    const replayed = await load(file('c.gz', '2026-11-21T08:00:00.000Z'));
    expect(replayed.status).toBe('succeeded');
    expect(replayed.job_id).not.toBe(first.job_id);
    expect(bqRows(bq)).toHaveLength(2);
  });
});

// --- end to end ------------------------------------------------------------------------------

const DATASET = { projectId: 'p', dataset: 'vis' };
const bigquerySinks = (dir: string, bq: FakeBigQuery) => ({
  fs: { dir },
  bigquery: { ...DATASET, apiEndpoint: bq.url },
});
const runIdOf = (line: string) => /\| run (\S+) \|/.exec(line)![1]!;

/** The sync_runs rows in the sink: every part under tables/sync_runs/, with its key. */
function sinkRows(dir: string): { key: string; row: Record<string, unknown> }[] {
  return listFiles(dir)
    .filter((k) => k.startsWith('tables/sync_runs/'))
    .flatMap((key) =>
      gunzipSync(readBytes(dir, key))
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => ({ key, row: JSON.parse(l) as Record<string, unknown> })),
    );
}

const bqRows = (bq: FakeBigQuery) =>
  bq.table('p', 'vis', 'sync_runs') ? bq.rows('p', 'vis', 'sync_runs') : [];

describe('run --once records one sync_runs row per run', () => {
  it('in BigQuery and the sink, with the manifest status, window, requests, table rows and endpoints', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    const bq = await fakeBigQuery();
    const dir = tempDir();
    const sinks = bigquerySinks(dir, bq);
    const runs: Manifest[] = [];
    for (let i = 0; i < 2; i++) {
      const c = await runOnceCli(s, dir, [], { sinks });
      expect(c.code).toBe(0);
      runs.push((await readManifest(new FsObjectStore(dir), 'acme', runIdOf(c.out[0]!)))!);
    }

    const inBq = bqRows(bq);
    const inSink = sinkRows(dir);
    expect(inBq.map((r) => r.run_id).sort()).toEqual(runs.map((m) => m.run_id).sort());
    expect(inSink.map((r) => r.row.run_id).sort()).toEqual(runs.map((m) => m.run_id).sort());
    for (const m of runs) {
      const key = `tables/sync_runs/dt=${m.run_date}/account=acme/run=${m.run_id}/part-00000.ndjson.gz`;
      const fromSink = inSink.find((r) => r.key === key)!.row;
      const fromBq = inBq.find((r) => r.run_id === m.run_id)!;
      const tables = m.loads.filter((l) => l.table !== 'sync_runs');
      expect(fromSink).toMatchObject({
        status: 'succeeded',
        kind: 'sync',
        run_date: m.run_date,
        window_start: m.window.from,
        window_end: m.window.to,
        requests: m.requests.calls,
        rate_limited: m.requests.rate_limited,
        retries: m.requests.retries,
        endpoints: ALL_ENDPOINTS,
        brand_filter: [],
        workspaces_succeeded: m.workspaces.map((w) => w.brand_id),
        workspaces_failed: [],
        tables_failed: [],
        failures: [],
        table_rows: Object.fromEntries(tables.map((l) => [l.table, l.rows])),
      });
      expect(Object.keys(fromSink.table_rows as object).length).toBeGreaterThan(5);
      // BigQuery holds the same row (its TIMESTAMPs come back with microseconds).
      const { recorded_at, started_at, finished_at, ...rest } = fromBq;
      expect(fromSink).toMatchObject(rest);
      expect(Date.parse(recorded_at as string)).toBe(Date.parse(fromSink.recorded_at as string));
      expect(Date.parse(finished_at as string)).toBe(Date.parse(m.finished_at));
      // The manifest lists the part and its load, after every other table's.
      expect(m.files.map((f) => f.key)).toContain(key);
      expect(m.loads.at(-1)).toMatchObject({ table: 'sync_runs', status: 'succeeded', rows: 1 });
    }
    expect(bq.table('p', 'vis', 'sync_runs')?.timePartitioning).toMatchObject({ field: 'run_date' });
    expect(bq.jobs.filter((j) => j.outcome === 'created').at(-1)?.destination).toBe('vis.sync_runs');
  });

  it('--endpoints visibility lists me, brands, visibility; --brand X has brand_filter [X] (no warehouse)', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 3 }] });
    const dir = tempDir();
    const brand = s.accounts[0]!.workspaceIds[1]!;
    const vis = await runOnceCli(s, dir, ['--endpoints', 'visibility']);
    expect(vis.code).toBe(0);
    const one = await runOnceCli(s, dir, ['--brand', brand]);
    expect(one.code).toBe(0);

    const rows = sinkRows(dir).map((r) => r.row);
    const visRow = rows.find((r) => r.run_id === runIdOf(vis.out[0]!))!;
    expect(visRow.endpoints).toEqual(['me', 'brands', 'visibility']);
    expect(visRow.brand_filter).toEqual([]);
    // Without a warehouse, table_rows counts the curated rows: visibility_daily and what me/brands give.
    const visManifest = (await readManifest(new FsObjectStore(dir), 'acme', visRow.run_id as string))!;
    const curatedVis = visManifest.files
      .filter((f) => f.key.startsWith('tables/visibility_daily/'))
      .reduce((n, f) => n + (f.rows ?? 0), 0);
    expect((visRow.table_rows as Record<string, number>).visibility_daily).toBe(curatedVis);
    expect(visRow.table_rows).not.toHaveProperty('prompts');

    const brandRow = rows.find((r) => r.run_id === runIdOf(one.out[0]!))!;
    expect(brandRow.brand_filter).toEqual([brand]);
    expect(brandRow.workspaces_succeeded).toEqual([brand]);
    expect(brandRow.endpoints).toEqual(ALL_ENDPOINTS);
  });

  it('a revoked key: a failed row with the error, in the sink and in BigQuery, though nothing else landed', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    s.revokeKey(s.accounts[0]!.keys[0]!);
    const bq = await fakeBigQuery();
    const dir = tempDir();
    const c = await runOnceCli(s, dir, [], { sinks: bigquerySinks(dir, bq) });
    expect(c.code).toBe(1);
    const [row] = bqRows(bq);
    expect(bqRows(bq)).toHaveLength(1);
    expect(row).toMatchObject({ run_id: runIdOf(c.out[0]!), status: 'failed', workspaces_succeeded: [] });
    expect(row!.error).toMatch(/401: the API key was refused/);
    // Beside the text, a code that never changes: what a query or a script decides on.
    expect(row!.error_code).toBe('auth_revoked');
    expect(row!.failures).toEqual([{ scope: 'account', id: 'acme', reason: row!.error }]);
    expect(sinkRows(dir).map((r) => r.row.status)).toEqual(['failed']);
    expect(bq.jobs.map((j) => j.destination)).toEqual(['vis.sync_runs']);
  });

  it('a failed sync_runs load: exit 2, the manifest names sync_runs; visync replay records the run', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    const bq = await fakeBigQuery();
    const dir = tempDir();
    bq.failNextLoad('sync_runs', 'Error while reading data, error message: simulated failure');
    const { path } = configFile(s, dir, { sinks: bigquerySinks(dir, bq) });
    const c = await visyncCli(path, ['run', '--once', '--log-level', 'silent']);
    expect(c.code).toBe(2);
    expect(c.err).toContain(
      'visync: acme: load of sync_runs failed: Error while reading data, error message: simulated failure',
    );
    const runId = runIdOf(c.out[0]!);
    const store = new FsObjectStore(dir);
    const m = (await readManifest(store, 'acme', runId))!;
    expect(m.status).toBe('partial');
    expect(m.loads.filter((l) => l.status === 'failed').map((l) => l.table)).toEqual(['sync_runs']);
    expect(bqRows(bq)).toHaveLength(0);
    const tableJobs = bq.jobs.filter((j) => j.outcome === 'created').length - 1;

    const r = await visyncCli(path, ['replay', '--run', runId, '--log-level', 'silent']);
    expect(r.code).toBe(0);
    const replayed = (await readManifest(store, 'acme', runId))!;
    expect(replayed.status).toBe('succeeded');
    expect(replayed.loads.filter((l) => l.table === 'sync_runs')).toMatchObject([{ status: 'succeeded' }]);
    // Only the sync_runs row was loaded again: every other table was found loaded.
    const created = bq.jobs.filter((j) => j.outcome === 'created');
    expect(created).toHaveLength(tableJobs + 2);
    expect(created.at(-1)!.destination).toBe('vis.sync_runs');
    expect(bqRows(bq)).toMatchObject([{ run_id: runId, status: 'succeeded' }]);
    expect(sinkRows(dir).map((x) => x.row.status)).toEqual(['succeeded']);
  });
});

/** A worker on a private queue prefix, loading into the fake BigQuery. */
async function queuedWithBigQuery(s: Simulator) {
  const bq = await fakeBigQuery();
  const dir = tempDir();
  const { config, path } = jobsConfigFile(s, dir, {
    sinks: { fs: { dir }, bigquery: { ...DATASET, location: 'US', apiEndpoint: bq.url } },
  });
  await worker(config);
  return { bq, dir, path };
}

describe('a worker run records its row', () => {
  it('enqueue sync --wait: one sync_runs row in BigQuery and in the sink, as the manifest says', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    const { bq, dir, path } = await queuedWithBigQuery(s);
    const c = await visyncCli(path, ['enqueue', 'sync', '--wait', '--timeout', '40']);
    expect(c.code).toBe(0);
    const runId = c.out[0]!.split(' ').at(-1)!;
    const m = (await readManifest(new FsObjectStore(dir), 'acme', runId))!;
    expect(m.loads.at(-1)).toMatchObject({ table: 'sync_runs', status: 'succeeded' });
    expect(bqRows(bq)).toMatchObject([
      {
        run_id: runId,
        status: 'succeeded',
        kind: 'sync',
        window_start: m.window.from,
        endpoints: ALL_ENDPOINTS,
      },
    ]);
    expect(sinkRows(dir).map((r) => r.row.run_id)).toEqual([runId]);
  });

  it('a revoked key: the queued run fails as a whole and still records its failed row', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    s.revokeKey(s.accounts[0]!.keys[0]!);
    const { bq, dir, path } = await queuedWithBigQuery(s);
    const c = await visyncCli(path, ['enqueue', 'sync', '--wait', '--timeout', '40']);
    expect(c.code).toBe(1);
    const runId = c.out[0]!.split(' ').at(-1)!;
    expect(bqRows(bq)).toMatchObject([{ run_id: runId, status: 'failed', workspaces_succeeded: [] }]);
    expect(String(bqRows(bq)[0]!.error)).toMatch(/401: the API key was refused/);
    expect(bqRows(bq)[0]!.error_code).toBe('auth_revoked');
    expect(sinkRows(dir).map((r) => r.row.status)).toEqual(['failed']);
    const m = (await readManifest(new FsObjectStore(dir), 'acme', runId))!;
    expect(m.error_code).toBe('auth_revoked');
    expect(m.loads).toMatchObject([{ table: 'sync_runs', status: 'succeeded' }]);
  });
});
