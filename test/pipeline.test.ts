// Normalise and load end to end: curated files, latest bundles, BigQuery loads (fake REST server,
// real client), replay, and the S3 sink, all from real runs against the simulator.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { TABLES, VIEWS } from '../src/catalogue/index.js';
import type { Config } from '../src/config/schema.js';
import { type Manifest, writeManifest } from '../src/records/manifest.js';
import { exitCodeFor } from '../src/records/run-state.js';
import { runInline } from '../src/run/inline/run-inline.js';
import { replayRun } from '../src/run/replay.js';
import { createRunLoader } from '../src/run/warehouse.js';
import { createObjectStore } from '../src/sinks/create-store.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import type { ObjectStore } from '../src/sinks/object-store.js';
import {
  configFor,
  fakeBigQuery,
  listFiles,
  memoryLogger,
  readBytes,
  sim,
  tempDir,
} from './helpers/harness.js';
import { startS3rver } from './helpers/s3rver.js';

const TODAY = '2026-11-20';
async function runOnce(config: Config, store: ObjectStore) {
  const loader = await createRunLoader(config.sinks);
  const { manifests } = await runInline({
    config,
    store,
    logger: memoryLogger('warn').logger,
    ...(loader ? { loader } : {}),
  });
  return manifests[0]!;
}

/** The run's own record (sync_runs) is written from its manifest, not curated from its raw landing. */
const SYNC_RUNS_PARTS = 'tables/sync_runs/';

/** A run of two workspaces whose process stopped before its manifest: raw landing only. */
async function crashedBeforeManifest() {
  const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }], today: TODAY });
  const dir = tempDir();
  const m = await runOnce(configFor(s, dir), new FsObjectStore(dir));
  rmSync(join(dir, 'runs'), { recursive: true });
  rmSync(join(dir, 'tables'), { recursive: true });
  return { s, dir, m };
}
const curated = (m: Manifest) =>
  m.files.filter((f) => f.key.startsWith('tables/') && !f.key.startsWith(SYNC_RUNS_PARTS));

function rowsOf(bytes: Buffer): Record<string, unknown>[] {
  return gunzipSync(bytes)
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

describe('normalise and load', () => {
  it('loads every table with one job per run, creates partitioned, clustered tables and views', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 3 }], today: TODAY });
    const bq = await fakeBigQuery();
    const dir = tempDir();
    const config = configFor(s, dir, {
      sinks: {
        fs: { dir },
        bigquery: { projectId: 'p', dataset: 'visibility', location: 'EU', apiEndpoint: bq.url },
      },
    });
    const m = await runOnce(config, new FsObjectStore(dir));
    expect(m.status).toBe('succeeded');
    expect(bq.datasets.get('p:visibility')?.location).toBe('EU');

    for (const def of TABLES) {
      const t = bq.table('p', 'visibility', def.name)!;
      expect(t, def.name).toBeDefined();
      expect(t.schema.map((f) => f.name)).toEqual(def.columns.map((c) => c.name));
      expect(t.timePartitioning).toMatchObject({ type: 'DAY', field: def.partitionField });
      expect(t.clustering?.fields).toEqual([...def.clustering]);
    }
    for (const v of VIEWS)
      expect(bq.table('p', 'visibility', v.name)?.view?.query, v.name).toBe(v.sql('p.visibility'));

    // One load job per table per run, and BigQuery holds exactly the curated rows.
    const created = bq.jobs.filter((j) => j.outcome === 'created');
    const loaded = new Set(m.loads.map((l) => l.table));
    expect(created).toHaveLength(loaded.size);
    for (const load of m.loads) {
      expect(load.status).toBe('succeeded');
      const fileRows = m.files
        .filter((f) => f.key.startsWith(`tables/${load.table}/`))
        .reduce((n, f) => n + (f.rows ?? 0), 0);
      expect(load.rows, load.table).toBe(fileRows);
      expect(bq.rows('p', 'visibility', load.table)).toHaveLength(fileRows);
    }
    expect(bq.rows('p', 'visibility', 'visibility_daily')).toHaveLength(3 * 3);
    expect(bq.rows('p', 'visibility', 'brands')).toHaveLength(3);

    // A crash after the loads but before the manifest recorded them: the replay finds the jobs
    // by their ids (409, then jobs.get) and appends nothing but its own, newer sync_runs row.
    const store = new FsObjectStore(dir);
    await writeManifest(store, { ...m, loads: [] });
    const before = Object.fromEntries(
      m.loads.map((l) => [l.table, bq.rows('p', 'visibility', l.table).length]),
    );
    const replayed = await replayRun({
      store,
      runId: m.run_id,
      logger: memoryLogger('warn').logger,
      loader: (await createRunLoader(config.sinks))!,
    });
    expect(replayed.status).toBe('succeeded');
    const createdNow = bq.jobs.filter((j) => j.outcome === 'created');
    expect(createdNow).toHaveLength(loaded.size + 1);
    expect(createdNow.at(-1)!.destination).toBe('visibility.sync_runs');
    expect(bq.jobs.filter((j) => j.outcome === 'duplicate')).toHaveLength(loaded.size - 1);
    for (const l of replayed.loads)
      expect(bq.rows('p', 'visibility', l.table).length).toBe(
        before[l.table]! + (l.table === 'sync_runs' ? 1 : 0),
      );
    const recordings = bq.rows('p', 'visibility', 'sync_runs').map((r) => r.recorded_at as string);
    expect(recordings[1]! > recordings[0]!).toBe(true);
  });

  it('a failed load job makes the run partial with its error text; replay loads only that table', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }], today: TODAY });
    const bq = await fakeBigQuery();
    const dir = tempDir();
    const config = configFor(s, dir, {
      sinks: { fs: { dir }, bigquery: { projectId: 'p', dataset: 'visibility', apiEndpoint: bq.url } },
    });
    bq.failNextLoad('prompts', 'Error while reading data, error message: simulated failure');
    const m = await runOnce(config, new FsObjectStore(dir));
    expect(m.status).toBe('partial');
    expect(exitCodeFor(m.status)).toBe(2);
    const failed = m.loads.filter((l) => l.status === 'failed');
    expect(failed.map((l) => l.table)).toEqual(['prompts']);
    expect(failed[0]!.error).toContain('simulated failure');
    expect(m.loads.filter((l) => l.status === 'succeeded').length).toBeGreaterThan(5);
    // Nothing landed is lost: the curated prompts parts are there for the replay.
    expect(curated(m).some((f) => f.key.startsWith('tables/prompts/'))).toBe(true);

    const calls = s.log.length;
    const jobsBefore = bq.jobs.length;
    const r = await replayRun({
      store: new FsObjectStore(dir),
      runId: m.run_id,
      logger: memoryLogger('warn').logger,
      loader: (await createRunLoader(config.sinks))!,
    });
    expect(r.status).toBe('succeeded');
    expect(r.replayed_at).toBeDefined();
    // Attempt 1 answers 409 (it exists, failed), so the replay creates attempt 2: one new job, and
    // the run's new sync_runs row.
    const newJobs = bq.jobs.slice(jobsBefore).filter((j) => j.outcome === 'created');
    expect(newJobs.map((j) => j.destination)).toEqual(['visibility.prompts', 'visibility.sync_runs']);
    expect(newJobs[0]!.jobId).toMatch(/_a2$/);
    expect(bq.rows('p', 'visibility', 'prompts')).toHaveLength(
      r.loads.find((l) => l.table === 'prompts')!.rows,
    );
    expect(s.log.length).toBe(calls);
  });

  it('replay rebuilds the curated files byte for byte from raw alone, with zero API calls', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 3 }], today: TODAY });
    const dir = tempDir();
    const m = await runOnce(configFor(s, dir, { extract: { visibilityDays: 10 } }), new FsObjectStore(dir));
    expect(m.status).toBe('succeeded');
    const originals = new Map(curated(m).map((f) => [f.key, readBytes(dir, f.key)]));
    expect(originals.size).toBeGreaterThan(10);
    // visibility_daily is partitioned by date: one folder per day of the window.
    expect(
      new Set(
        curated(m)
          .filter((f) => f.key.startsWith('tables/visibility_daily/'))
          .map((f) => f.key.split('/')[2]),
      ).size,
    ).toBe(10);

    rmSync(join(dir, 'tables'), { recursive: true });
    const calls = s.log.length;
    for (let i = 0; i < 2; i++) {
      const r = await replayRun({
        store: new FsObjectStore(dir),
        runId: m.run_id,
        logger: memoryLogger('warn').logger,
      });
      expect(
        curated(r)
          .map((f) => f.key)
          .sort(),
      ).toEqual([...originals.keys()].sort());
      for (const [key, bytes] of originals) expect(readBytes(dir, key).equals(bytes), key).toBe(true);
    }
    expect(s.log.length).toBe(calls);
    // Rewriting a run leaves exactly one set of files (and one sync_runs part): no duplicates.
    expect(
      listFiles(dir)
        .filter((f) => f.startsWith('tables/'))
        .sort(),
    ).toEqual(
      [
        ...originals.keys(),
        `${SYNC_RUNS_PARTS}dt=${m.run_date}/account=acme/run=${m.run_id}/part-00000.ndjson.gz`,
      ].sort(),
    );
  });

  it('replay finds a run that crashed before its manifest through its raw keys, and writes the manifest', async () => {
    const { s, dir, m } = await crashedBeforeManifest();
    const r = await replayRun({
      store: new FsObjectStore(dir),
      runId: m.run_id,
      logger: memoryLogger('warn').logger,
    });
    expect(r.account).toBe('acme');
    expect(r.run_date).toBe(m.run_date);
    expect(r.replayed_at).toBeDefined();
    expect(r.workspaces.map((w) => w.brand_id).sort()).toEqual([...s.accounts[0]!.workspaceIds].sort());
    const raw = (x: Manifest) =>
      x.files.filter((f) => f.key.startsWith('raw/')).sort((a, b) => (a.key < b.key ? -1 : 1));
    // The raw files as found in the store, hashes included, are the ones the run landed.
    expect(raw(r)).toEqual(raw(m));
    expect(
      curated(r)
        .map((f) => f.key)
        .sort(),
    ).toEqual(
      curated(m)
        .map((f) => f.key)
        .sort(),
    );
    expect(listFiles(dir)).toContain(`runs/account=acme/run=${m.run_id}/manifest.json`);
  });

  it('a run that crashed mid-workspace: the workspace missing calls its siblings landed is failed, naming them', async () => {
    const { s, dir, m } = await crashedBeforeManifest();
    // The stop came before the second workspace's visibility call landed.
    const [first, second] = [...s.accounts[0]!.workspaceIds].sort() as [string, string];
    const cut = listFiles(dir).find((f) => f.startsWith('raw/visibility/') && f.endsWith(`/${second}.json`));
    expect(cut).toBeDefined();
    rmSync(join(dir, cut!));
    const r = await replayRun({
      store: new FsObjectStore(dir),
      runId: m.run_id,
      logger: memoryLogger('warn').logger,
    });
    expect(r.status).toBe('partial');
    expect(r.interrupted).toMatch(/stopped before writing its manifest/);
    expect(r.workspaces).toEqual([
      { brand_id: first, status: 'succeeded' },
      {
        brand_id: second,
        status: 'failed',
        error: 'the run stopped before visibility landed',
        error_code: 'interrupted',
      },
    ]);
  });

  it('a run to S3 lands the same tree as a run to the fs sink', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }], today: TODAY });
    const s3 = await startS3rver({ buckets: ['visync-test'] });
    try {
      const dir = tempDir();
      const fsRun = await runOnce(configFor(s, dir), new FsObjectStore(dir));
      const s3Config = configFor(s, dir, {
        sinks: { s3: { bucket: 'visync-test', prefix: 'vis/', endpoint: s3.endpoint, forcePathStyle: true } },
      });
      const s3Store = await createObjectStore(s3Config.sinks);
      const s3Run = await runOnce(s3Config, s3Store);
      expect(s3Run.status).toBe('succeeded');

      const norm = (m: Manifest) => m.files.map((f) => f.key.replaceAll(m.run_id, 'RUN')).sort();
      expect(norm(s3Run)).toEqual(norm(fsRun));
      const s3Keys = (await s3Store.list('')).filter((k) => !k.startsWith('runs/'));
      expect(s3Keys.map((k) => k.replaceAll(s3Run.run_id, 'RUN')).sort()).toEqual(
        listFiles(dir)
          .filter((k) => !k.startsWith('runs/') && !k.startsWith('latest/'))
          .map((k) => k.replaceAll(fsRun.run_id, 'RUN'))
          .concat(listFiles(dir).filter((k) => k.startsWith('latest/')))
          .sort(),
      );
      // Same content: raw bodies byte-equal, curated rows equal but for the run and the time of the call.
      for (const f of fsRun.files) {
        const other = f.key.replaceAll(fsRun.run_id, s3Run.run_id);
        const a = readBytes(dir, f.key);
        const b = (await s3Store.get(other))!;
        if (f.key.startsWith('raw/')) {
          // /me reports live usage counters, which differ between two runs by design.
          const body = (x: Buffer) => {
            const doc = JSON.parse(x.toString()).body;
            if (f.key.startsWith('raw/me/')) delete doc.usage;
            return doc;
          };
          expect(body(b), f.key).toEqual(body(a));
        } else if (curated(fsRun).includes(f) && !f.key.startsWith('tables/accounts/')) {
          const strip = (r: Record<string, unknown>) => ({ ...r, run_id: null, extracted_at: null });
          expect(rowsOf(b).map(strip), f.key).toEqual(rowsOf(a).map(strip));
        }
      }
    } finally {
      await s3.close();
    }
  });
});
