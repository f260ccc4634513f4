// Curate + BigQuery load of one run, shared by the inline driver (`run --once`), `replay` and the
// queued finish-run job: curate the raw landing, then one BigQuery load job per table. A table
// whose load already succeeded for this run (replay after a partial failure) is not loaded again.
//
// It never throws for a fault of the sink or the warehouse: the data has landed by then, so the run
// ends partial with each table that was not curated or not loaded, and why (a failed load entry).
// Replay, or the next run of the same id, redoes exactly those tables.
import type { Logger } from 'pino';
import { RUN_TABLES, tableByName } from '../catalogue/index.js';
import type { Row, TableDef } from '../catalogue/types.js';
import { type CuratedTable, type CurateResult, curateRun } from '../curate/curate-run.js';
import { metrics } from '../metrics/recorder.js';
import { failedLoadsByReason } from '../records/failed-loads.js';
import type { RunHistory } from '../records/history.js';
import type { DriftEntry, LoadResult, ManifestFile } from '../records/manifest.js';
import type { RunCoordinates } from '../records/run-coordinates.js';
import type { KeyLock } from '../sinks/key-lock.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { errorMessage } from '../util/errors.js';
import { brandEventsTable } from './brand-events.js';

/** What the load stage needs of a warehouse; BigQuery implements it (src/warehouse). */
export interface RunLoader {
  /** Names the warehouse in messages, e.g. `BigQuery dataset p:visibility`. */
  describe?(): string;
  /** Dataset, tables and views exist (idempotent, cheap after the first call). */
  prepare(): Promise<void>;
  /** One load job of `file` (gzipped NDJSON) into `table`, with an id derived from run and table. */
  load(p: {
    table: TableDef;
    account: string;
    runId: string;
    file: string;
    /** Names the rows when a run's rows of the table change between loads (sync_runs). */
    recording?: string;
  }): Promise<LoadResult>;
  /**
   * One load job of `file` (the rows of several runs) into `table`, with an id derived from the
   * warehouse, the batch and the table. Loaders without it load run by run.
   */
  loadBatch?(p: { table: TableDef; batchId: string; file: string }): Promise<LoadResult>;
}

export interface FinishRunOptions {
  store: ObjectStore;
  run: RunCoordinates;
  logger: Logger;
  loader?: RunLoader | undefined;
  /** Loads recorded for this run before (replay): succeeded tables are skipped and kept. */
  previousLoads?: readonly LoadResult[] | undefined;
  partRows?: number | undefined;
  /** Serialises writers of latest/ bundles across processes (Redis); default: this process. */
  latestLock?: KeyLock | undefined;
  /**
   * Curate only: the tables to load are returned as `deferred` (a load batch loads them with other
   * runs' rows, jobs/load-batches.ts); `loads` lists the tables that failed, and those kept from
   * `previousLoads`.
   */
  deferLoads?: boolean | undefined;
  /** The run's start (manifest started_at): when its brand_events were detected. */
  startedAt?: string | undefined;
  /** The run's history, read once for all its stages (its brand_events compare with it). */
  history?: RunHistory | undefined;
  /**
   * The run's brand_events as recorded, written again as they are instead of detected anew: a
   * replay of a run whose events an older release's rules detected (src/run/replay.ts).
   */
  recordedEvents?: readonly Row[] | undefined;
  /** Called once curate ends: what stopped it, or how many tables could not be curated. */
  onCurated?: ((r: { error?: unknown; failedTables: number }) => void) | undefined;
  /** Called after each table's load (the crash-point test hook uses it). */
  onLoaded?: ((load: LoadResult) => void) | undefined;
}

export interface FinishRunResult {
  /** Raw files found in the store for the run, with their hashes. */
  rawFiles: ManifestFile[];
  /** Curated parts and latest bundles. */
  files: ManifestFile[];
  drift: DriftEntry[];
  /** One per table of the run; failed ones carry the reason (not curated, warehouse down, job error). */
  loads: LoadResult[];
  /** With `deferLoads`: tables curated and still to load, in curate order. */
  deferred?: string[];
}

const failed = (table: string, error: string): LoadResult => ({
  table,
  job_id: '',
  status: 'failed',
  rows: 0,
  error,
  error_code: 'load_failed',
});

export async function finishRun(o: FinishRunOptions): Promise<FinishRunResult> {
  let curated: CurateResult;
  try {
    curated = await curateRun({
      store: o.store,
      run: o.run,
      logger: o.logger,
      partRows: o.partRows || undefined,
      latestLock: o.latestLock,
      loadFiles: Boolean(o.loader) && !o.deferLoads,
      derived: brandEventsTable({
        store: o.store,
        run: o.run,
        startedAt: o.startedAt,
        history: o.history,
        recorded: o.recordedEvents,
      }),
    });
  } catch (err) {
    // Curate stopped as a whole (spool or sink failing): no table of the run can be loaded. Which
    // tables the run feeds is not known yet, so every table of the catalogue is named.
    o.onCurated?.({ error: err, failedTables: RUN_TABLES.length });
    const reason = `not curated: ${errorMessage(err)}`;
    o.logger.error({ err: reason }, 'curate failed');
    return { rawFiles: [], files: [], drift: [], loads: RUN_TABLES.map((t) => failed(t.name, reason)) };
  }
  o.onCurated?.({ failedTables: curated.tables.filter((t) => t.error).length });
  try {
    if (o.deferLoads) return { ...curatedOnly(curated), ...deferredLoads(o, curated.tables) };
    const loads = o.loader ? await loadTables(o, o.loader, curated.tables) : notLoaded(curated.tables);
    return { rawFiles: curated.rawFiles, files: curated.files, drift: curated.drift, loads };
  } finally {
    await curated.dispose();
  }
}

const curatedOnly = (c: CurateResult) => ({ rawFiles: c.rawFiles, files: c.files, drift: c.drift });

/** Tables a batch is to load, apart from those that failed to curate or were loaded before. */
function deferredLoads(o: FinishRunOptions, tables: readonly CuratedTable[]) {
  const done = new Map(
    (o.previousLoads ?? []).filter((l) => l.status === 'succeeded').map((l) => [l.table, l]),
  );
  const loads: LoadResult[] = [];
  const deferred: string[] = [];
  for (const t of tables) {
    const previous = done.get(t.table);
    if (previous) loads.push(previous);
    else if (t.error) loads.push(failed(t.table, t.error));
    else deferred.push(t.table);
  }
  return { loads, deferred };
}

/** Without a warehouse only tables that could not be curated are listed (as failed). */
function notLoaded(tables: readonly CuratedTable[]): LoadResult[] {
  return tables.flatMap((t) => (t.error ? [failed(t.table, t.error)] : []));
}

async function loadTables(
  o: FinishRunOptions,
  loader: RunLoader,
  tables: readonly CuratedTable[],
): Promise<LoadResult[]> {
  const loads: LoadResult[] = [];
  if (!tables.length) return loads;
  const done = new Map(
    (o.previousLoads ?? []).filter((l) => l.status === 'succeeded').map((l) => [l.table, l]),
  );
  let notReady: string | undefined;
  if (tables.some((t) => !t.error && !done.has(t.table))) {
    try {
      await loader.prepare();
    } catch (err) {
      notReady = `${loader.describe?.() ?? 'warehouse'} not ready: ${errorMessage(err)}`;
    }
  }
  // One table's failed load must not stop the others: each is awaited on its own.
  for (const t of tables) {
    const previous = done.get(t.table);
    let result: LoadResult;
    if (previous) result = previous;
    else if (t.error) result = failed(t.table, t.error);
    else if (notReady) result = failed(t.table, notReady);
    else {
      try {
        result = await loader.load({
          table: tableByName(t.table),
          account: o.run.account,
          runId: o.run.runId,
          file: t.loadFile,
        });
      } catch (err) {
        result = failed(t.table, errorMessage(err));
      }
      o.onLoaded?.(result);
      if (result.status === 'succeeded') metrics.rowsLoaded(result.table, result.rows);
    }
    loads.push(result);
    if (result.status === 'succeeded')
      o.logger.info({ table: result.table, job_id: result.job_id, rows: result.rows }, 'load succeeded');
  }
  logFailedLoads(o.logger, loads);
  return loads;
}

/** One record per distinct reason, naming its tables. */
function logFailedLoads(logger: FinishRunOptions['logger'], loads: readonly LoadResult[]): void {
  for (const [error, tables] of failedLoadsByReason(loads)) logger.error({ tables, error }, 'load failed');
}
