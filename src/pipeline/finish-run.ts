// Normalise + load of one run, shared by `run --once`, `replay` and the jobs' load step: curate
// the raw landing, then one load job per table. A table whose load already succeeded for this
// run (replay after a partial failure) is not loaded again.
import type { Logger } from 'pino';
import { tableByName } from '../catalogue/index.js';
import type { TableDef } from '../catalogue/types.js';
import { curateRun } from '../curate/curate-run.js';
import type { RunCoordinates } from '../curate/raw-run.js';
import type { DriftEntry, LoadResult, ManifestFile } from '../runs/manifest.js';
import type { ObjectStore } from '../sinks/object-store.js';

/** What the load stage needs of a warehouse; BigQuery implements it (src/warehouse). */
export interface RunLoader {
  /** Dataset, tables and views exist (idempotent, cheap after the first call). */
  prepare(): Promise<void>;
  /** One load job of `file` (gzipped NDJSON) into `table`, with an id derived from run and table. */
  load(p: { table: TableDef; account: string; runId: string; file: string }): Promise<LoadResult>;
}

export interface FinishRunOptions {
  store: ObjectStore;
  run: RunCoordinates;
  logger: Logger;
  loader?: RunLoader;
  /** Loads recorded for this run before (replay): succeeded tables are skipped and kept. */
  previousLoads?: readonly LoadResult[];
  partRows?: number;
}

export interface FinishRunResult {
  /** Raw files found in the store for the run, with their hashes. */
  rawFiles: ManifestFile[];
  /** Curated parts and latest bundles. */
  files: ManifestFile[];
  drift: DriftEntry[];
  loads: LoadResult[];
}

export async function finishRun(o: FinishRunOptions): Promise<FinishRunResult> {
  const curated = await curateRun({
    store: o.store,
    run: o.run,
    logger: o.logger,
    ...(o.partRows ? { partRows: o.partRows } : {}),
  });
  try {
    const loads: LoadResult[] = [];
    if (o.loader && curated.tables.length) {
      await o.loader.prepare();
      const done = new Map(
        (o.previousLoads ?? []).filter((l) => l.status === 'succeeded').map((l) => [l.table, l]),
      );
      // One table's failed load must not stop the others: each is awaited on its own.
      for (const t of curated.tables) {
        const previous = done.get(t.table);
        if (previous) {
          loads.push(previous);
          continue;
        }
        try {
          loads.push(
            await o.loader.load({
              table: tableByName(t.table),
              account: o.run.account,
              runId: o.run.runId,
              file: t.loadFile,
            }),
          );
        } catch (err) {
          loads.push({
            table: t.table,
            job_id: '',
            status: 'failed',
            rows: 0,
            error: (err as Error).message,
          });
        }
        const last = loads.at(-1)!;
        const log =
          last.status === 'succeeded' ? o.logger.info.bind(o.logger) : o.logger.error.bind(o.logger);
        log(
          { table: last.table, job_id: last.job_id, rows: last.rows, error: last.error },
          `load ${last.status}`,
        );
      }
    }
    return { rawFiles: curated.rawFiles, files: curated.files, drift: curated.drift, loads };
  } finally {
    await curated.dispose();
  }
}
