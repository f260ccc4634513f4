// How each catalogue column type reads in the engines `visync export` writes for. One table per
// engine, side by side, so a new catalogue type fails to compile until every engine maps it.
import type { ColumnDef, ColumnType } from '../catalogue/index.js';
import { tablePartKey } from '../sinks/layout.js';

/** Athena (Hive DDL over the OpenX JSON SerDe, src/export/athena.ts): what the column is declared as. */
const ATHENA: Record<ColumnType, string> = {
  STRING: 'string',
  INT64: 'bigint',
  FLOAT64: 'double',
  BOOL: 'boolean',
  // Athena documents DATE as read from `YYYY-MM-DD` text: what we write.
  DATE: 'date',
  // Read with the SerDe's timestamp.formats (src/export/athena.ts): visync writes ISO-8601 in UTC.
  TIMESTAMP: 'timestamp',
  // The SerDe hands a nested object or array declared string back as its JSON text: json_extract reads it.
  JSON: 'string',
};

/** DuckDB read_json `columns` types. */
const DUCKDB: Record<ColumnType, string> = {
  STRING: 'VARCHAR',
  INT64: 'BIGINT',
  FLOAT64: 'DOUBLE',
  BOOL: 'BOOLEAN',
  DATE: 'DATE',
  // A BigQuery TIMESTAMP is an instant (UTC); DuckDB's instant type is TIMESTAMPTZ.
  TIMESTAMP: 'TIMESTAMPTZ',
  JSON: 'JSON',
};

/** dbt `data_type`: the BigQuery type, as the BigQuery adapter names it (REPEATED: ARRAY<...>). */
const BIGQUERY: Record<ColumnType, string> = {
  STRING: 'STRING',
  INT64: 'INT64',
  FLOAT64: 'FLOAT64',
  BOOL: 'BOOL',
  DATE: 'DATE',
  TIMESTAMP: 'TIMESTAMP',
  JSON: 'JSON',
};

export function athenaType(c: ColumnDef): string {
  return c.mode === 'REPEATED' ? `array<${ATHENA[c.type]}>` : ATHENA[c.type];
}

export function duckdbType(c: ColumnDef): string {
  return c.mode === 'REPEATED' ? `${DUCKDB[c.type]}[]` : DUCKDB[c.type];
}

export function bigqueryType(c: ColumnDef): string {
  return c.mode === 'REPEATED' ? `ARRAY<${BIGQUERY[c.type]}>` : BIGQUERY[c.type];
}

const MARK = { dt: '\u0001dt', account: '\u0001account', run: '\u0001run' } as const;

/** The segments of a part key of `table`, with marks where the date, account and run go. */
function markedSegments(table: string): string[] {
  const segments = tablePartKey({
    table,
    partitionDate: MARK.dt,
    account: MARK.account,
    runId: MARK.run,
    part: 0,
  }).split('/');
  const at = (mark: string) => segments.findIndex((s) => s.includes(mark));
  // Readers rely on this nesting: partitions dt then account, and runs below them.
  if (
    !(
      at(MARK.dt) < at(MARK.account) &&
      at(MARK.account) < at(MARK.run) &&
      at(MARK.run) === segments.length - 2
    )
  )
    throw new Error(`unexpected table part key layout: ${segments.join('/')}`);
  return segments;
}

interface Fill {
  dt: string;
  account: string;
  run: string;
  /** Replaces the part number in the file name. */
  part: string;
}

function filled(segment: string, fill: Fill): string {
  return segment.replace(MARK.dt, fill.dt).replace(MARK.account, fill.account).replace(MARK.run, fill.run);
}

/**
 * A table's part files as the layout names them (tables/{table}/dt=../account=../run=../part-N.ndjson.gz),
 * with the values filled in by the caller (globs, templates). Derived from tablePartKey, never spelt
 * out here, so a change of the layout shows in every reader.
 */
export function tablePartPattern(table: string, fill: Fill): string {
  const segments = markedSegments(table).map((s) => filled(s, fill));
  const file = segments.pop() as string;
  return [...segments, file.replace(/\d+/, fill.part)].join('/');
}

/** The folder of one table (ends with `/`): every part key of the table starts with it. */
export function tableFolder(table: string): string {
  const segments = markedSegments(table);
  return `${segments
    .slice(
      0,
      segments.findIndex((s) => s.includes(MARK.dt)),
    )
    .join('/')}/`;
}

/** The folder of one (dt, account) partition (ends with `/`): the runs of that day and account are below it. */
export function partitionFolder(table: string, fill: Pick<Fill, 'dt' | 'account'>): string {
  const segments = markedSegments(table);
  const end = segments.findIndex((s) => s.includes(MARK.account)) + 1;
  return `${segments
    .slice(0, end)
    .map((s) => filled(s, { ...fill, run: '', part: '' }))
    .join('/')}/`;
}
