// The few SQL forms the views (./views.ts, ./change-views.ts) need that the engines spell
// differently. The views are written once against this interface and rendered for BigQuery, DuckDB
// and Athena (Trino SQL); everything else they use (window functions, LAG, IS DISTINCT FROM, CTEs)
// reads the same on all three.

export type Dialect = 'bigquery' | 'duckdb' | 'athena';
export const DIALECTS: readonly Dialect[] = ['bigquery', 'duckdb', 'athena'];

/** How a view names a base table: `` `project.dataset.brands` ``, `"brands"`, `{{ source('visync', 'brands') }}`. */
export type TableRef = (table: string) => string;

/** A SELECT that keeps only the rows whose window terms are all 1 (BigQuery's and DuckDB's QUALIFY). */
export interface Qualified {
  /** The select list, as written after SELECT (may use `t.*`). */
  select: string;
  /** The names the select list yields, in order (Trino has no QUALIFY: the outer query lists them). */
  columns: readonly string[];
  /** FROM and JOIN lines. */
  from: readonly string[];
  /** Defaults to TRUE: BigQuery takes QUALIFY only in a query with WHERE, GROUP BY or HAVING. */
  where?: readonly string[];
  /** Window terms each kept at 1, e.g. `ROW_NUMBER() OVER (PARTITION BY ... ORDER BY ...)`. */
  keep: readonly string[];
}

export interface Sql {
  readonly dialect: Dialect;
  table: TableRef;
  /** `x` is an element of the array `arr` (BigQuery `x IN UNNEST(arr)`). */
  contains(arr: string, x: string): string;
  notContains(arr: string, x: string): string;
  arrayLength(arr: string): string;
  /** `x IS TRUE` / `x IS NOT TRUE` (NULL counts as not true). */
  isTrue(x: string): string;
  isNotTrue(x: string): string;
  /** FROM item: each element of the array `arr` as the column `alias`. */
  crossJoinUnnest(arr: string, alias: string): string;
  /** FROM item: each element of the JSON array `json` as the JSON value `alias`. */
  crossJoinJsonArray(json: string, alias: string): string;
  /** The scalar at `path` (`'$.a.b'`) of a JSON value, as a string. */
  jsonValue(json: string, path: string): string;
  /** Lines of a SELECT with QUALIFY, indented by `indent`. */
  qualified(q: Qualified, indent?: string): string[];
}

function qualifyLines(q: Qualified, indent: string): string[] {
  const where = q.where ?? ['TRUE'];
  return [
    `SELECT ${q.select}`,
    ...q.from,
    `WHERE ${where[0]}`,
    ...where.slice(1),
    `QUALIFY ${q.keep.map((k) => `${k} = 1`).join('\n  AND ')}`,
  ].flatMap((l) => l.split('\n').map((line) => `${indent}${line}`));
}

/** Trino: the window terms as columns of a subquery, kept at 1 outside it. */
function subqueryLines(q: Qualified, indent: string): string[] {
  const terms = q.keep.map((k, i) => `${k} AS keep_${i + 1}`);
  return [
    `SELECT ${q.columns.join(', ')}`,
    'FROM (',
    `  SELECT ${q.select.replaceAll('\n', '\n  ')},`,
    ...terms.map((t, i) => `    ${t.replaceAll('\n', '\n  ')}${i < terms.length - 1 ? ',' : ''}`),
    ...q.from.map((l) => `  ${l}`),
    ...(q.where ? [`  WHERE ${q.where[0]}`, ...q.where.slice(1).map((l) => `  ${l}`)] : []),
    ') AS kept',
    `WHERE ${q.keep.map((_, i) => `keep_${i + 1} = 1`).join(' AND ')}`,
  ].flatMap((l) => l.split('\n').map((line) => `${indent}${line}`));
}

const BIGQUERY = (table: TableRef): Sql => ({
  dialect: 'bigquery',
  table,
  contains: (arr, x) => `${x} IN UNNEST(${arr})`,
  notContains: (arr, x) => `${x} NOT IN UNNEST(${arr})`,
  arrayLength: (arr) => `ARRAY_LENGTH(${arr})`,
  isTrue: (x) => `${x} IS TRUE`,
  isNotTrue: (x) => `${x} IS NOT TRUE`,
  crossJoinUnnest: (arr, alias) => `CROSS JOIN UNNEST(${arr}) AS ${alias}`,
  crossJoinJsonArray: (json, alias) => `CROSS JOIN UNNEST(JSON_QUERY_ARRAY(${json})) AS ${alias}`,
  jsonValue: (json, path) => `JSON_VALUE(${json}, ${path})`,
  qualified: (q, indent = '') => qualifyLines(q, indent),
});

const DUCKDB = (table: TableRef): Sql => ({
  dialect: 'duckdb',
  table,
  contains: (arr, x) => `list_contains(${arr}, ${x})`,
  notContains: (arr, x) => `NOT list_contains(${arr}, ${x})`,
  arrayLength: (arr) => `len(${arr})`,
  isTrue: (x) => `${x} IS TRUE`,
  isNotTrue: (x) => `${x} IS NOT TRUE`,
  // A bare alias would name a one-field struct in DuckDB, not the element.
  crossJoinUnnest: (arr, alias) => `CROSS JOIN UNNEST(${arr}) AS ${alias}_values(${alias})`,
  crossJoinJsonArray: (json, alias) =>
    `CROSS JOIN UNNEST(json_extract(${json}, '$[*]')) AS ${alias}_values(${alias})`,
  jsonValue: (json, path) => `json_extract_string(${json}, ${path})`,
  qualified: (q, indent = '') => qualifyLines(q, indent),
});

// Athena's engine is Trino: no QUALIFY, no IS [NOT] TRUE; JSON columns are strings (JSON text).
const ATHENA = (table: TableRef): Sql => ({
  dialect: 'athena',
  table,
  contains: (arr, x) => `contains(${arr}, ${x})`,
  notContains: (arr, x) => `NOT contains(${arr}, ${x})`,
  arrayLength: (arr) => `cardinality(${arr})`,
  isTrue: (x) => `COALESCE(${x}, FALSE)`,
  isNotTrue: (x) => `NOT COALESCE(${x}, FALSE)`,
  crossJoinUnnest: (arr, alias) => `CROSS JOIN UNNEST(${arr}) AS ${alias}_values(${alias})`,
  crossJoinJsonArray: (json, alias) =>
    `CROSS JOIN UNNEST(CAST(json_parse(${json}) AS ARRAY(JSON))) AS ${alias}_values(${alias})`,
  jsonValue: (json, path) => `json_extract_scalar(${json}, ${path})`,
  qualified: (q, indent = '') => subqueryLines(q, indent),
});

export function sqlFor(dialect: Dialect, table: TableRef): Sql {
  return { bigquery: BIGQUERY, duckdb: DUCKDB, athena: ATHENA }[dialect](table);
}

/** BigQuery's way of naming a table of `dataset` (`project.dataset` or `dataset`). */
export const bigqueryRef =
  (dataset: string): TableRef =>
  (name) =>
    `\`${dataset}.${name}\``;
