// One definition per table drives the NDJSON writer, the BigQuery schemas and docs/tables.md.
import type { RawEndpoint } from '../api/endpoints.js';
import type { Sql } from './sql-dialect.js';

export type ColumnType = 'STRING' | 'INT64' | 'FLOAT64' | 'BOOL' | 'DATE' | 'TIMESTAMP' | 'JSON';
export type ColumnMode = 'REQUIRED' | 'NULLABLE' | 'REPEATED';

export interface ColumnDef {
  name: string;
  type: ColumnType;
  mode: ColumnMode;
  description: string;
}

export interface TableDef {
  name: string;
  description: string;
  /**
   * The columns that are unique together, comma-separated ("One row per ..." in the docs): every
   * run writes its own rows, so a run table's grain includes `run_id` (tested on real runs).
   */
  grain: string;
  /** Raw endpoints the rows come from. */
  sources: readonly RawEndpoint[];
  columns: readonly ColumnDef[];
  /** Columns that identify a row across runs (run_id excluded): what `{table}_latest` partitions by. */
  naturalKey: readonly string[];
  /** DAY partitioning column (DATE). */
  partitionField: 'snapshot_date' | 'date' | 'run_date';
  clustering: readonly string[];
}

export interface ViewDef {
  name: string;
  description: string;
  /** The view's SELECT in one engine's SQL (./sql-dialect.ts): the one definition of the view. */
  render(sql: Sql): string;
  /** BigQuery standard SQL; tables are named `${dataset}.table` with the dataset given (project-qualified or not). */
  sql(dataset: string): string;
  /** Base tables and the columns the SQL references, checked against the catalogue in tests. */
  references: readonly { table: string; columns: readonly string[] }[];
  /** The columns that make a row of the view unique (its grain), where the view has one. */
  key?: readonly string[];
}

/** One row as written to NDJSON: column name -> JSON value (DATE as YYYY-MM-DD, TIMESTAMP as ISO). */
export type Row = Record<string, unknown>;
