// The end of every run, whoever ran it (`run --once`, the workers' load batch, replay and the
// completion of an interrupted run): its `sync_runs` row is written to the sink, loaded into the
// warehouse after every other table, and only then is the manifest written, last. A view that
// reads only runs with a sync_runs row (docs/tables.md) so never sees a half-loaded run.
//
// Each recording is a new row (a later `recorded_at`): a replayed or completed run adds a newer
// row rather than rewriting the old one, and its load job gets a new id (src/warehouse/load-job.ts).
// The runs of a load batch (jobs/load-batches.ts) are recorded together: their rows in one job.
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { SYNC_RUNS, toNdjsonLine } from '../catalogue/index.js';
import { ndjsonPartBytes, putNdjsonPart } from '../curate/ndjson-part.js';
import { metrics } from '../metrics/recorder.js';
import { syncRunsRow } from '../normalise/sync-runs.js';
import type { BatchTableLoad } from '../records/batch-load.js';
import {
  type LoadResult,
  type Manifest,
  type ManifestFile,
  redactionCount,
  runStatus,
  writeManifest,
} from '../records/manifest.js';
import { parseTablePartKey, tablePartKey } from '../sinks/layout.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { errorMessage } from '../util/errors.js';
import { makeTempDir } from '../util/temp-dir.js';
import type { RunLoader } from './finish-run.js';
import { ranStage } from './stages.js';

export interface RecordRunOptions {
  store: ObjectStore;
  /** The run as finished: every other table curated and loaded (or failed). */
  manifest: Manifest;
  logger: Logger;
  /** The warehouse; none: the row is written to the sink only. */
  loader?: RunLoader | undefined;
  /**
   * The row is not loaded: its load is recorded as failed with this reason (a load batch that
   * failed for good; `visync replay` loads it run by run).
   */
  notLoaded?: string | undefined;
  now?: () => Date;
}

const failed = (error: string): LoadResult => ({
  table: SYNC_RUNS.name,
  job_id: '',
  status: 'failed',
  rows: 0,
  error,
  error_code: 'load_failed',
});

/**
 * Writes the run's sync_runs part, loads it (with a warehouse), and writes the manifest with that
 * file and load. A sync_runs row that could not be written or loaded makes the run partial, like
 * any other table: `visync replay` records it again. Throws only when the manifest itself cannot
 * be written.
 */
export async function recordRun(o: RecordRunOptions): Promise<Manifest> {
  const recordedAt = (o.now ?? (() => new Date()))().toISOString();
  const part = await writeRowPart(o.store, o.manifest, {
    recordedAt,
    warehouse: !!o.loader || o.notLoaded !== undefined,
  });
  let load: LoadResult | undefined = part.error ? failed(part.error) : undefined;
  if (!load && o.notLoaded !== undefined) load = failed(o.notLoaded);
  // The stored part's digest names this recording in the load job id (src/warehouse/load-job.ts).
  if (!load && o.loader && part.stored)
    load = await loadRow(o.loader, o.manifest, part.bytes, part.stored.sha256.slice(0, 16));
  return writeRecorded(o.store, o.manifest, part, load, o.logger, recordedAt);
}

export interface BatchRecording {
  store: ObjectStore;
  /** The run as finished by its load batch. */
  manifest: Manifest;
}

/**
 * The end of every run of a load batch: each run's sync_runs part, then ONE load job of all their
 * rows (named by the batch), then each run's manifest, last. `recordedAt` is the batch's: a batch
 * retried after a crash writes the same rows, and its load job (409) is the first one. Per run:
 * the manifest written, or why it could not be.
 */
export async function recordBatch(o: {
  runs: BatchRecording[];
  batchId: string;
  loader: RunLoader;
  logger: Logger;
  recordedAt: string;
  /** The sync_runs load of an earlier try of this batch: not loaded again. */
  done?: BatchTableLoad | undefined;
  /** After the sync_runs load, before any manifest (the batch job keeps it for a retry). */
  onLoaded?: ((load: BatchTableLoad) => Promise<void>) | undefined;
}): Promise<(Manifest | Error)[]> {
  // The record stage starts now: `recordedAt` is the batch's first try's, kept for its rows.
  const startedAt = new Date().toISOString();
  const parts = await Promise.all(
    o.runs.map((r) =>
      writeRowPart(r.store, r.manifest, {
        recordedAt: o.recordedAt,
        warehouse: true,
        loadBatchId: o.batchId,
      }),
    ),
  );
  let batch = o.done;
  if (!batch) {
    const included = o.runs.filter((_, i) => parts[i]!.stored);
    const text = Buffer.concat(parts.filter((p) => p.stored).map((p) => p.line));
    const load = included.length
      ? await loadRows(o.loader, ndjsonPartBytes(text.toString('utf8')), (loader, file) =>
          loader.loadBatch
            ? loader.loadBatch({ table: SYNC_RUNS, batchId: o.batchId, file })
            : Promise.reject(new Error('this warehouse cannot load batches')),
        )
      : failed('no sync_runs row to load');
    batch = {
      job_id: load.job_id,
      status: load.status,
      rows: load.rows,
      error: load.error,
      runs: Object.fromEntries(included.map((r) => [r.manifest.run_id, 1])),
      left_out: {},
    };
    if (load.job_id) await o.onLoaded?.(batch);
  }
  const loaded = batch;
  return Promise.all(
    o.runs.map(async (r, i) => {
      const part = parts[i]!;
      const load: LoadResult = part.error
        ? failed(part.error)
        : loaded.runs[r.manifest.run_id] === undefined
          ? failed(`the row was not in the sync_runs load of batch ${o.batchId} (${loaded.job_id})`)
          : {
              table: SYNC_RUNS.name,
              job_id: loaded.job_id,
              status: loaded.status,
              rows: loaded.status === 'succeeded' ? 1 : 0,
              error: loaded.error,
              load_batch_id: o.batchId,
            };
      try {
        return await writeRecorded(r.store, r.manifest, part, load, o.logger, startedAt);
      } catch (err) {
        return err instanceof Error ? err : new Error(String(err));
      }
    }),
  );
}

interface RowPart {
  files: ManifestFile[];
  loads: LoadResult[];
  /** The gzipped part as stored. */
  bytes: Buffer;
  /** The row as one NDJSON line. */
  line: Buffer;
  stored?: ManifestFile;
  error?: string;
}

/** The run's sync_runs row written to the sink; an earlier recording of it (replay) is replaced. */
async function writeRowPart(
  store: ObjectStore,
  m: Manifest,
  opts: Parameters<typeof syncRunsRow>[1],
): Promise<RowPart> {
  const row = syncRunsRow(m, opts);
  const line = Buffer.from(`${toNdjsonLine(SYNC_RUNS, row)}\n`);
  const bytes = ndjsonPartBytes(line.toString('utf8'));
  const key = tablePartKey({
    table: SYNC_RUNS.name,
    partitionDate: m.run_date,
    account: m.account,
    runId: m.run_id,
    part: 0,
  });
  // An earlier recording of this run (replay) is replaced: same key, and its load is redone.
  const files = m.files.filter((f) => parseTablePartKey(f.key)?.table !== SYNC_RUNS.name);
  const loads = m.loads.filter((l) => l.table !== SYNC_RUNS.name);
  try {
    const stored: ManifestFile = { ...(await putNdjsonPart(store, key, bytes)), rows: 1 };
    files.push(stored);
    return { files, loads, bytes, line, stored };
  } catch (err) {
    return { files, loads, bytes, line, error: `sync_runs part not written: ${errorMessage(err)}` };
  }
}

/**
 * The manifest with the sync_runs part and load, and the record stage (from `startedAt`), written
 * last. A written manifest is the record, so the stage is at worst partial: its row not recorded.
 */
async function writeRecorded(
  store: ObjectStore,
  m: Manifest,
  part: RowPart,
  load: LoadResult | undefined,
  logger: Logger,
  startedAt: string,
): Promise<Manifest> {
  const loads = [...part.loads];
  if (load) {
    loads.push(load);
    if (load.status === 'succeeded') metrics.rowsLoaded(load.table, load.rows);
    const log = load.status === 'succeeded' ? logger.info.bind(logger) : logger.error.bind(logger);
    log(
      { table: load.table, job_id: load.job_id, rows: load.rows, error: load.error, run_id: m.run_id },
      `load ${load.status}`,
    );
  }
  const rowError = part.error ?? (load?.status === 'failed' ? load.error : undefined);
  const record = ranStage(rowError === undefined ? 'succeeded' : 'partial', startedAt, rowError);
  const recorded: Manifest = {
    ...m,
    files: part.files,
    loads,
    redactions: redactionCount(part.files),
    stages: { ...m.stages, record },
  };
  recorded.status = runStatus(recorded);
  await writeManifest(store, recorded);
  return recorded;
}

/** The loader takes a local file: the part's bytes go to a temporary one. */
async function loadRow(
  loader: RunLoader,
  m: Manifest,
  bytes: Buffer,
  recording: string,
): Promise<LoadResult> {
  return loadRows(loader, bytes, (l, file) =>
    l.load({ table: SYNC_RUNS, account: m.account, runId: m.run_id, file, recording }),
  );
}

async function loadRows(
  loader: RunLoader,
  bytes: Buffer,
  load: (loader: RunLoader, file: string) => Promise<LoadResult>,
): Promise<LoadResult> {
  // A run that landed nothing (revoked key) loaded no other table, so the warehouse may be new.
  try {
    await loader.prepare();
  } catch (err) {
    return failed(`${loader.describe?.() ?? 'warehouse'} not ready: ${errorMessage(err)}`);
  }
  const dir = await makeTempDir('visync-sync-runs-');
  try {
    const file = join(dir, 'sync_runs.ndjson.gz');
    await writeFile(file, bytes);
    return await load(loader, file);
  } catch (err) {
    return failed(errorMessage(err));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
