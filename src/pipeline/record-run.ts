// The end of every run, whoever ran it (`run --once`, the workers' load job, replay and the
// completion of an interrupted run): its `sync_runs` row is written to the sink, loaded into the
// warehouse after every other table, and only then is the manifest written, last. A view that
// reads only runs with a sync_runs row (docs/tables.md) so never sees a half-loaded run.
//
// Each recording is a new row (a later `recorded_at`): a replayed or completed run adds a newer
// row rather than rewriting the old one, and its load job gets a new id (src/warehouse/load-job.ts).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { SYNC_RUNS, toNdjsonLine } from '../catalogue/index.js';
import { ndjsonPartBytes, putNdjsonPart } from '../curate/ndjson-part.js';
import { syncRunsRow } from '../normalise/sync-runs.js';
import { metrics } from '../ops/metrics.js';
import {
  type LoadResult,
  type Manifest,
  type ManifestFile,
  runStatus,
  writeManifest,
} from '../runs/manifest.js';
import { parseTablePartKey, tablePartKey } from '../sinks/layout.js';
import type { ObjectStore } from '../sinks/object-store.js';
import type { RunLoader } from './finish-run.js';

export interface RecordRunOptions {
  store: ObjectStore;
  /** The run as finished: every other table curated and loaded (or failed). */
  manifest: Manifest;
  logger: Logger;
  /** The warehouse; none: the row is written to the sink only. */
  loader?: RunLoader | undefined;
  now?: () => Date;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

const failed = (error: string): LoadResult => ({
  table: SYNC_RUNS.name,
  job_id: '',
  status: 'failed',
  rows: 0,
  error,
});

/**
 * Writes the run's sync_runs part, loads it (with a warehouse), and writes the manifest with that
 * file and load. A sync_runs row that could not be written or loaded makes the run partial, like
 * any other table: `visync replay` records it again. Throws only when the manifest itself cannot
 * be written.
 */
export async function recordRun(o: RecordRunOptions): Promise<Manifest> {
  const m = o.manifest;
  const recordedAt = (o.now ?? (() => new Date()))().toISOString();
  const row = syncRunsRow(m, { recordedAt, warehouse: !!o.loader });
  const bytes = ndjsonPartBytes(`${toNdjsonLine(SYNC_RUNS, row)}\n`);
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
  let load: LoadResult | undefined;
  try {
    const stored: ManifestFile = { ...(await putNdjsonPart(o.store, key, bytes)), rows: 1 };
    files.push(stored);
    // The stored part's digest names this recording in the load job id (src/warehouse/load-job.ts).
    if (o.loader) load = await loadRow(o.loader, m, bytes, stored.sha256.slice(0, 16));
  } catch (err) {
    load = failed(`sync_runs part not written: ${message(err)}`);
  }
  if (load) {
    loads.push(load);
    if (load.status === 'succeeded') metrics.rowsLoaded(load.table, load.rows);
    const log = load.status === 'succeeded' ? o.logger.info.bind(o.logger) : o.logger.error.bind(o.logger);
    log(
      { table: load.table, job_id: load.job_id, rows: load.rows, error: load.error },
      `load ${load.status}`,
    );
  }
  const recorded: Manifest = { ...m, files, loads };
  recorded.status = runStatus(recorded);
  await writeManifest(o.store, recorded);
  return recorded;
}

/** The loader takes a local file: the part's bytes go to a temporary one. */
async function loadRow(
  loader: RunLoader,
  m: Manifest,
  bytes: Buffer,
  recording: string,
): Promise<LoadResult> {
  // A run that landed nothing (revoked key) loaded no other table, so the warehouse may be new.
  try {
    await loader.prepare();
  } catch (err) {
    return failed(`${loader.describe?.() ?? 'warehouse'} not ready: ${message(err)}`);
  }
  const dir = await mkdtemp(join(tmpdir(), 'visync-sync-runs-'));
  try {
    const file = join(dir, 'sync_runs.ndjson.gz');
    await writeFile(file, bytes);
    return await loader.load({ table: SYNC_RUNS, account: m.account, runId: m.run_id, file, recording });
  } catch (err) {
    return failed(message(err));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
