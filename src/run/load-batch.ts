// The tables of a load batch: the curated rows of several runs (any accounts loading into one
// dataset) read back from their stores and loaded with ONE job per table, named by the batch
// (src/warehouse/load-job.ts: a retried batch finds its job by id instead of appending twice).
//
// Like finishRun, it never throws for a fault of the sink or the warehouse: a table whose job
// failed fails for every run in it, a run whose part cannot be read fails that table alone, and
// each run's manifest says so (`visync replay` then loads the run's tables run by run).
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { createGzip, gunzipSync } from 'node:zlib';
import type { Logger } from 'pino';
import { RUN_TABLES, tableByName } from '../catalogue/index.js';
import { metrics } from '../metrics/recorder.js';
import type { BatchTableLoad } from '../records/batch-load.js';
import type { LoadResult, ManifestFile } from '../records/manifest.js';
import { parseTablePartKey } from '../sinks/layout.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { errorMessage } from '../util/errors.js';
import { makeTempDir } from '../util/temp-dir.js';
import type { RunLoader } from './finish-run.js';

export interface BatchRun {
  account: string;
  runId: string;
  store: ObjectStore;
  /** The run's files as its manifest lists them (its curated parts among them). */
  files: readonly ManifestFile[];
  /** Tables of the run still to load. */
  tables: readonly string[];
}

export interface LoadBatchOptions {
  batchId: string;
  runs: readonly BatchRun[];
  loader: RunLoader;
  logger: Logger;
  /** Tables loaded by an earlier try of this batch: not loaded again. */
  done?: ReadonlyMap<string, BatchTableLoad>;
  /** After each table's job, before the next (the batch job keeps it for a retry). */
  onLoaded?: (table: string, load: BatchTableLoad) => Promise<void>;
}

/** Loads the batch's tables; per run, one load entry per table it had to load. */
export async function loadBatchTables(o: LoadBatchOptions): Promise<Map<string, LoadResult[]>> {
  const wanted = new Set(o.runs.flatMap((r) => r.tables));
  const tables = RUN_TABLES.map((t) => t.name).filter((t) => wanted.has(t));
  const loads = new Map<string, BatchTableLoad>();
  const todo = tables.filter((t) => {
    const done = o.done?.get(t);
    if (done) loads.set(t, done);
    return !done;
  });
  let notReady: string | undefined;
  if (todo.length) {
    try {
      await o.loader.prepare();
    } catch (err) {
      notReady = `${o.loader.describe?.() ?? 'warehouse'} not ready: ${errorMessage(err)}`;
    }
  }
  if (!o.loader.loadBatch) notReady = `${o.loader.describe?.() ?? 'warehouse'} cannot load batches`;
  const dir = await makeTempDir('visync-batch-');
  try {
    // A warehouse that is not ready fails every table alike: said once for them all.
    if (notReady && todo.length)
      o.logger.error({ tables: todo, runs: o.runs.length, error: notReady }, 'batch load failed');
    for (const table of todo) {
      const members = o.runs.filter((r) => r.tables.includes(table));
      if (notReady) {
        loads.set(table, failedForAll(members, notReady));
        continue;
      }
      const load = await loadTable(o, table, members, join(dir, `${table}.ndjson.gz`));
      loads.set(table, load);
      await o.onLoaded?.(table, load);
      if (load.status === 'succeeded') metrics.rowsLoaded(table, load.rows);
      const log = load.status === 'succeeded' ? o.logger.info.bind(o.logger) : o.logger.error.bind(o.logger);
      log(
        {
          table,
          job_id: load.job_id,
          rows: load.rows,
          runs: Object.keys(load.runs).length,
          error: load.error,
        },
        `batch load ${load.status}`,
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const perRun = new Map<string, LoadResult[]>();
  for (const r of o.runs) {
    perRun.set(
      r.runId,
      tables.filter((t) => r.tables.includes(t)).map((t) => runLoad(t, loads.get(t)!, r.runId, o.batchId)),
    );
  }
  return perRun;
}

function failedForAll(members: readonly BatchRun[], error: string): BatchTableLoad {
  return {
    job_id: '',
    status: 'failed',
    rows: 0,
    error,
    runs: {},
    left_out: Object.fromEntries(members.map((m) => [m.runId, error])),
  };
}

/** The run's entry for a table of the batch: the batch's job, the run's own rows. */
function runLoad(table: string, load: BatchTableLoad, runId: string, batchId: string): LoadResult {
  const leftOut = load.left_out[runId];
  const rows = load.runs[runId];
  if (leftOut !== undefined || rows === undefined)
    return {
      table,
      job_id: load.job_id,
      status: 'failed',
      rows: 0,
      error: leftOut ?? load.error ?? 'not in the batch upload',
      error_code: 'load_failed',
      load_batch_id: batchId,
    };
  if (load.status === 'failed')
    return {
      table,
      job_id: load.job_id,
      status: 'failed',
      rows: 0,
      error: load.error ?? 'load failed',
      error_code: 'load_failed',
      load_batch_id: batchId,
    };
  return { table, job_id: load.job_id, status: 'succeeded', rows, load_batch_id: batchId };
}

/**
 * One upload of every member's rows of the table (their parts read back, checked against the
 * manifest's digests, decompressed and written as one gzip stream), then one job.
 */
async function loadTable(
  o: LoadBatchOptions,
  table: string,
  members: readonly BatchRun[],
  file: string,
): Promise<BatchTableLoad> {
  const runs: Record<string, number> = {};
  const leftOut: Record<string, string> = {};
  const gzip = createGzip();
  const sink = createWriteStream(file);
  gzip.pipe(sink);
  const written = finished(sink);
  // Awaited below; until then a failing disk must not count as an unhandled rejection.
  written.catch(() => {});
  for (const m of members) {
    // A run's parts are all read (compressed) before any is written: one unreadable part leaves
    // the run's rows out of the upload, never half of them in.
    let parts: Buffer[];
    let rows = 0;
    try {
      parts = [];
      for (const f of m.files) {
        const part = parseTablePartKey(f.key);
        if (part?.table !== table || part.account !== m.account || part.runId !== m.runId) continue;
        const bytes = await m.store.get(f.key);
        if (!bytes) throw new Error(`curated part ${f.key} is missing`);
        if (createHash('sha256').update(bytes).digest('hex') !== f.sha256)
          throw new Error(`curated part ${f.key} differs from the one the run wrote`);
        parts.push(bytes);
        rows += f.rows ?? 0;
      }
    } catch (err) {
      leftOut[m.runId] = `not in load batch ${o.batchId}: ${errorMessage(err)}`;
      continue;
    }
    // One part decompressed at a time: memory holds a run's compressed parts, not its rows.
    for (const p of parts) if (!gzip.write(gunzipSync(p))) await once(gzip, 'drain');
    runs[m.runId] = rows;
  }
  gzip.end();
  await written;
  if (!Object.keys(runs).length)
    return { job_id: '', status: 'failed', rows: 0, error: 'no rows to load', runs, left_out: leftOut };
  let result: LoadResult;
  try {
    result = await o.loader.loadBatch!({ table: tableByName(table), batchId: o.batchId, file });
  } catch (err) {
    result = { table, job_id: '', status: 'failed', rows: 0, error: errorMessage(err) };
  }
  const expected = Object.values(runs).reduce((a, b) => a + b, 0);
  if (result.status === 'succeeded' && result.rows !== expected)
    o.logger.warn(
      { table, job_id: result.job_id, rows: result.rows, expected },
      "batch load rows differ from the runs' parts",
    );
  return {
    job_id: result.job_id,
    status: result.status,
    rows: result.rows,
    error: result.error,
    runs,
    left_out: leftOut,
  };
}
