// models/sources.yml of the dbt project: the source `visync`, one table per catalogue table with
// its columns, types and data tests, where its rows are (BigQuery dataset, Athena database, or the
// object store read by DuckDB), and freshness on the time the rows were loaded; then every `_latest`
// and change view as a source too, as 0.1.0's sources.yml declared them, so a project that reads
// `source('visync', 'visibility_daily_latest')` keeps compiling (docs/dbt.md).
import { type ColumnDef, currentStateViews, type TableDef } from '../../catalogue/index.js';
import { athenaType, bigqueryType, duckdbType } from '../column-types.js';
import { sqlIdentifier, sqlString, tablePartsGlob } from '../duckdb.js';
import { columnTests, rowKey, tableTests } from './data-tests.js';

export type DbtTarget = 'bigquery' | 'duckdb' | 'athena';
export const SOURCE_NAME = 'visync';

/** Where the source tables are, per target. */
export type SourceLocation =
  | { target: 'bigquery'; project: string; dataset: string; requirePartitionFilter: boolean }
  /** `root`: the store's folder as dbt (run from the project folder) finds it, or s3://bucket/prefix. */
  | {
      target: 'duckdb';
      root: string;
      /**
       * Tables with part files when the project was written (undefined: the store was not
       * listed): read_json fails on a glob that matches no file, so the others read as empty.
       */
      withFiles?: ReadonlySet<string> | undefined;
    }
  /** `schema`: the Glue database holding the tables of `visync export athena`. */
  | { target: 'athena'; catalog: string; schema: string };

export interface Freshness {
  /** Hours after which a table's newest row counts as stale (warn). */
  warnAfterHours: number;
  /** Hours after which it is an error. */
  errorAfterHours: number;
}

/** The column that says when a table's rows were loaded: when the run received them, or wrote the row. */
function loadedAtField(table: TableDef): string | undefined {
  for (const name of ['extracted_at', 'recorded_at', 'finished_at'])
    if (table.columns.some((c) => c.name === name && c.type === 'TIMESTAMP')) return name;
  return undefined;
}

const dataType: Record<DbtTarget, (c: ColumnDef) => string> = {
  bigquery: bigqueryType,
  duckdb: duckdbType,
  athena: athenaType,
};

/**
 * DuckDB's read of a table's part files (what `{{ source('visync', t) }}` compiles to with
 * dbt-duckdb): every column typed from the catalogue, so an all-NULL column keeps its type, and
 * the folders' dt, account and run as columns, so a filter on dt reads only that day's files.
 */
function duckdbReadJson(table: TableDef, root: string): string {
  const glob = tablePartsGlob(root, table.name);
  const columns = table.columns.map((c) => `${sqlString(c.name)}: ${sqlString(duckdbType(c))}`);
  return [
    `read_json(${sqlString(glob)}, format = 'newline_delimited', compression = 'gzip',`,
    "hive_partitioning = true, hive_types = {'dt': 'DATE', 'account': 'VARCHAR', 'run': 'VARCHAR'},",
    `columns = {${columns.join(', ')}})`,
  ].join(' ');
}

/**
 * A table with no part files yet: no rows, the same typed columns as duckdbReadJson() (dt and run
 * included), so the models over it and its tests run.
 */
function duckdbEmpty(table: TableDef): string {
  const columns = [
    ...table.columns.map((c) => ({ name: c.name, type: duckdbType(c) })),
    { name: 'dt', type: 'DATE' },
    { name: 'run', type: 'VARCHAR' },
  ].map((c) => `CAST(NULL AS ${c.type}) AS ${sqlIdentifier(c.name)}`);
  return `(SELECT ${columns.join(', ')} WHERE FALSE)`;
}

/**
 * The days a freshness check reads: enough to find a row younger than the error threshold, so a
 * stale table reads as stale, and no more (BigQuery bills, DuckDB and Athena list, what is read).
 */
function freshnessDays(f: Freshness): number {
  return Math.ceil(f.errorAfterHours / 24) + 1;
}

/** The partition condition of a freshness check, where the target reads less with one. */
function freshnessFilter(t: TableDef, at: SourceLocation, days: number): string | undefined {
  switch (at.target) {
    case 'bigquery':
      // BigQuery refuses a query without one when the table requires a partition filter
      // (sinks.bigquery.requirePartitionFilter; never on sync_runs: src/warehouse/schema.ts).
      if (!at.requirePartitionFilter || t.name === 'sync_runs') return undefined;
      return `${t.partitionField} >= DATE_SUB(CURRENT_DATE(), INTERVAL ${days} DAY)`;
    case 'duckdb':
      return `dt >= current_date - ${days}`;
    case 'athena':
      return `dt >= date_format(current_date - interval '${days}' day, '%Y-%m-%d')`;
  }
}

/** Athena reads a TIMESTAMP column declared string through from_iso8601_timestamp. */
function loadedAtExpression(t: TableDef, field: string, target: DbtTarget): string {
  const column = t.columns.find((c) => c.name === field) as ColumnDef;
  return target === 'athena' && athenaType(column) === 'string' ? `from_iso8601_timestamp(${field})` : field;
}

/** How DuckDB reads a table's rows: its part files, or no rows when it has none yet. */
function duckdbRead(t: TableDef, at: SourceLocation & { target: 'duckdb' }): string {
  return !at.withFiles || at.withFiles.has(t.name) ? duckdbReadJson(t, at.root) : duckdbEmpty(t);
}

/**
 * A DuckDB source's config: it reads `read` (a SQL expression). oldstyle: dbt-duckdb formats the
 * location with `%`, not str.format, which would read the braces of `columns = {...}` as fields; a
 * `%` of the path is doubled.
 */
function duckdbConfig(read: string): Record<string, unknown> {
  return { external_location: read.replaceAll('%', '%%'), formatter: 'oldstyle' };
}

/** A column of a source: its name, description and type on the target. */
function columnEntry(c: ColumnDef, target: DbtTarget): Record<string, unknown> {
  return { name: c.name, description: c.description, data_type: dataType[target](c) };
}

/**
 * Each view as a source. BigQuery and Athena have the views beside the tables (the BigQuery sink
 * and `visync export athena` create them); for DuckDB the source reads the view's SELECT over the
 * tables' part files. A `_latest` view lists its base table's columns; it has no tests or
 * freshness of its own (its staging model and base table have them).
 */
function viewEntries(tables: readonly TableDef[], at: SourceLocation): Record<string, unknown>[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const ref = (name: string) => {
    const t = byName.get(name);
    if (at.target !== 'duckdb') return name;
    if (!t) throw new Error(`a view reads ${name}, which is no table of the catalogue`);
    return duckdbRead(t, at);
  };
  return currentStateViews(at.target, ref).map((v) => {
    const base = v.name.endsWith('_latest') ? byName.get(v.name.slice(0, -'_latest'.length)) : undefined;
    return {
      name: v.name,
      description: v.description,
      ...(at.target === 'duckdb' ? { config: duckdbConfig(`(${v.sql.trim()})`) } : {}),
      ...(base ? { columns: base.columns.map((c) => columnEntry(c, at.target)) } : {}),
    };
  });
}

function tableEntry(t: TableDef, at: SourceLocation, f: Freshness): Record<string, unknown> {
  const key = rowKey(t);
  const field = loadedAtField(t);
  const filter = freshnessFilter(t, at, freshnessDays(f));
  const config = at.target === 'duckdb' ? duckdbConfig(duckdbRead(t, at)) : {};
  if (field) {
    config.loaded_at_field = loadedAtExpression(t, field, at.target);
    config.freshness = {
      warn_after: { count: f.warnAfterHours, period: 'hour' },
      error_after: { count: f.errorAfterHours, period: 'hour' },
      ...(filter ? { filter } : {}),
    };
  }
  const tests = tableTests(key);
  return {
    name: t.name,
    description: t.description,
    ...(Object.keys(config).length ? { config } : {}),
    ...(tests.length ? { data_tests: tests } : {}),
    columns: t.columns.map((c) => {
      const columnTestList = columnTests(t, c.name, key);
      return {
        ...columnEntry(c, at.target),
        ...(columnTestList.length ? { data_tests: columnTestList } : {}),
      };
    }),
  };
}

const WHERE: Record<DbtTarget, string> = {
  bigquery: 'the BigQuery dataset visync loads',
  duckdb: 'the object store visync writes (NDJSON parts read by DuckDB)',
  athena: 'the Athena tables of `visync export athena` over the S3 store',
};

export function sourcesDocument(
  tables: readonly TableDef[],
  at: SourceLocation,
  f: Freshness,
): Record<string, unknown> {
  const place =
    at.target === 'bigquery'
      ? { database: at.project, schema: at.dataset }
      : at.target === 'athena'
        ? { database: at.catalog, schema: at.schema }
        : {};
  return {
    version: 2,
    sources: [
      {
        name: SOURCE_NAME,
        description:
          `AI-visibility data synced by visync from the read-only visibility API, in ${WHERE[at.target]}: ` +
          'one snapshot per run in each table (`run_id`, `extracted_at` say which run), one row per ' +
          'finished run in `sync_runs`; the staging models give the current state, as do the `_latest` ' +
          'views, declared here with the change views. Column reference: docs/tables.md.',
        ...place,
        tables: [...tables.map((t) => tableEntry(t, at, f)), ...viewEntries(tables, at)],
      },
    ],
  };
}
