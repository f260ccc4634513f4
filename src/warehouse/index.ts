// The warehouse stage: BigQuery dataset, tables and views, and one load job per table per run, or
// per table per load batch (the finished runs of many accounts in one upload: jobs/load-batches.ts).
import { createHash } from 'node:crypto';
import type { BigQuery } from '@google-cloud/bigquery';
import type { TableDef, ViewDef } from '../catalogue/types.js';
import { type BigQueryConfig, createBigQuery } from './bigquery-client.js';
import { type EnsureAction, type EnsureResult, ensureDataset, ensureTables, ensureViews } from './ensure.js';
import { type LoadOptions, type LoadResult, loadBatchJobId, loadTable } from './load-job.js';
import { tableMetadata } from './schema.js';

export { type BigQueryClientOptions, createBigQuery } from './bigquery-client.js';
export { ensureTables, ensureViews } from './ensure.js';
export { loadJobId } from './load-job.js';
export { tableMetadata } from './schema.js';

export interface PrepareResult {
  dataset: EnsureAction;
  tables: EnsureResult[];
  views: EnsureResult[];
}

export interface WarehouseLoad {
  table: TableDef;
  account: string;
  runId: string;
  /** Local gzipped NDJSON file with all of this run's rows of the table. */
  file: string;
  /** Names the rows when a run's rows of the table change between loads (sync_runs). */
  recording?: string | undefined;
}

// Shared by every Warehouse of the process: a worker serving many accounts prepares the same
// dataset once, and concurrent callers wait on the same promise instead of racing creates.
const prepared = new Map<string, Promise<PrepareResult>>();

export class Warehouse {
  readonly bq: BigQuery;

  constructor(
    readonly config: BigQueryConfig,
    private readonly opts: { bigquery?: BigQuery; load?: LoadOptions } = {},
  ) {
    this.bq = opts.bigquery ?? createBigQuery(config);
  }

  /** Dataset, then tables, then views (views need their tables), once per process and catalogue. */
  prepare(tables: readonly TableDef[], views: readonly ViewDef[]): Promise<PrepareResult> {
    const { projectId, dataset, location, apiEndpoint } = this.config;
    const key = createHash('sha256')
      .update(
        JSON.stringify([
          apiEndpoint ?? '',
          projectId,
          dataset,
          location,
          tables.map((t) => [t.name, tableMetadata(t, this.config)]),
          views.map((v) => [v.name, v.sql(`${projectId}.${dataset}`)]),
        ]),
      )
      .digest('hex');
    let once = prepared.get(key);
    if (!once) {
      once = (async () => ({
        dataset: await ensureDataset(this.bq, dataset, location),
        tables: await ensureTables(this.bq, dataset, tables, this.config),
        views: await ensureViews(this.bq, dataset, views),
      }))();
      prepared.set(key, once);
      // A failed prepare must not stick: the next run tries again.
      once.catch(() => prepared.delete(key));
    }
    return once;
  }

  /** One load job of a batch's rows of `table` (`file`: every member run's rows, gzipped NDJSON). */
  loadBatch(args: { table: TableDef; batchId: string; file: string }): Promise<LoadResult> {
    const { dataset } = this.config;
    return loadTable({
      bq: this.bq,
      dataset,
      location: this.config.location,
      table: args.table,
      account: '',
      runId: args.batchId,
      file: args.file,
      jobIdOf: (attempt) => loadBatchJobId(dataset, args.batchId, args.table.name, attempt),
      ...(this.opts.load && { options: this.opts.load }),
    });
  }

  load(args: WarehouseLoad): Promise<LoadResult> {
    return loadTable({
      bq: this.bq,
      dataset: this.config.dataset,
      location: this.config.location,
      ...args,
      ...(this.opts.load && { options: this.opts.load }),
    });
  }
}
