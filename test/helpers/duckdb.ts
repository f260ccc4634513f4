// The warehouse on a real SQL engine: an in-memory DuckDB holding every catalogue table (columns
// typed from the catalogue) and every view, created from its BigQuery SQL through toDuckDbSql().
// Column types are those of `visync export duckdb` (src/export/column-types.ts); the session time
// zone is UTC. Rows go in as the sync writes them (toNdjsonLine objects, or its NDJSON parts, gzipped or not).
//
//   const wh = await openWarehouse();
//   await wh.insertRows('recommendations', rows);  // or loadNdjson(table, paths), loadTableParts(sinkDir)
//   const current = await wh.query(`SELECT * FROM ${wh.dataset}.recommendations_latest`);
//
// Warehouses are closed after each test (or earlier with close()).
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { type DuckDBConnection, DuckDBInstance, type Json } from '@duckdb/node-api';
import { afterEach } from 'vitest';
import { type Row, tableByName, toNdjsonLine, VIEWS, WAREHOUSE_TABLES } from '../../src/catalogue/index.js';
import { duckdbType } from '../../src/export/column-types.js';
import { parseTablePartKey } from '../../src/sinks/layout.js';

const open: Warehouse[] = [];
const sessions: DuckDBInstance[] = [];
/** Closes what this helper opened for the test (also registered per file by test/setup/cleanups.ts). */
export function closeDuckDbs(): void {
  while (open.length) open.pop()?.close();
  while (sessions.length) sessions.pop()?.closeSync();
}

/**
 * A DuckDB session (UTC) that reads relative paths from `dir`, as one started there: the generated
 * scripts and a dbt project name the store relative to where they run. Closed after the test.
 */
export async function duckdbIn(dir: string): Promise<DuckDBConnection> {
  const db = await DuckDBInstance.create(':memory:');
  sessions.push(db);
  const c = await db.connect();
  await c.run("SET TimeZone = 'UTC'");
  await c.run(`SET file_search_path = '${dir.replaceAll("'", "''")}'`);
  return c;
}
afterEach(closeDuckDbs);

const OPERAND = String.raw`('(?:[^']|'')*'|[A-Za-z_][\w.]*)`;
const ARRAY = String.raw`([A-Za-z_][\w.]*)`;

/**
 * BigQuery standard SQL, as the catalogue's views are written, to DuckDB SQL. The views keep to
 * what both engines accept (QUALIFY, ARRAY_LENGTH, ARRAY_CONCAT, window functions); the rest is
 * rewritten here, and an UNNEST in any other form throws rather than run with other semantics:
 *
 * - `` `project.dataset.table` `` -> `"project"."dataset"."table"` (DuckDB has no backtick quoting)
 * - `x IN UNNEST(arr)` / `x NOT IN UNNEST(arr)` -> `list_contains(arr, x)` / `NOT list_contains(arr, x)`
 * - `CROSS JOIN UNNEST(arr) AS v` -> `CROSS JOIN UNNEST(arr) AS v_values(v)` (a bare alias would
 *   name a one-field struct in DuckDB, not the element)
 * - `* EXCEPT(cols)` -> `* EXCLUDE(cols)`
 * - `CROSS JOIN UNNEST(JSON_QUERY_ARRAY(j)) AS v` -> `CROSS JOIN UNNEST(json_extract(j, '$[*]')) AS v_values(v)`,
 *   and `JSON_VALUE(v, path)` -> `json_extract_string(v, path)`
 */
export function toDuckDbSql(bigQuerySql: string): string {
  const sql = bigQuerySql
    .replace(/`([^`]+)`/g, (_m, name: string) =>
      name
        .split('.')
        .map((part) => `"${part}"`)
        .join('.'),
    )
    .replace(new RegExp(`${OPERAND}\\s+NOT\\s+IN\\s+UNNEST\\(${ARRAY}\\)`, 'gi'), 'NOT list_contains($2, $1)')
    .replace(new RegExp(`${OPERAND}\\s+IN\\s+UNNEST\\(${ARRAY}\\)`, 'gi'), 'list_contains($2, $1)')
    .replace(
      new RegExp(`CROSS\\s+JOIN\\s+UNNEST\\(JSON_QUERY_ARRAY\\(${ARRAY}\\)\\)\\s+AS\\s+(\\w+)`, 'gi'),
      "CROSS JOIN UNNEST(json_extract($1, '$[*]')) AS $2_values($2)",
    )
    .replace(/\bJSON_VALUE\(/g, 'json_extract_string(')
    .replace(
      new RegExp(`CROSS\\s+JOIN\\s+UNNEST\\(${ARRAY}\\)\\s+AS\\s+(\\w+)`, 'gi'),
      'CROSS JOIN UNNEST($1) AS $2_values($2)',
    )
    .replace(/\*\s+EXCEPT\s*\(/gi, '* EXCLUDE(');
  const unmapped = sql
    .replace(/CROSS JOIN UNNEST\((?:[\w.]+|json_extract\([\w.]+, '\$\[\*\]'\))\) AS (\w+)_values\(\1\)/g, '')
    .match(/.*\bUNNEST\b.*/i);
  if (unmapped) throw new Error(`no DuckDB mapping for this UNNEST: ${unmapped[0].trim()}`);
  return sql;
}

export interface Warehouse {
  /** Dataset (DuckDB schema) holding the tables and views: `${dataset}.recommendations_latest`. */
  readonly dataset: string;
  /** Inserts rows shaped as the sync writes them; each goes through toNdjsonLine, so a bad row throws. */
  insertRows(table: string, rows: readonly Row[]): Promise<void>;
  /** Loads NDJSON files (`.ndjson` or `.ndjson.gz`, e.g. curated parts) into a catalogue table. */
  loadNdjson(table: string, paths: readonly string[]): Promise<void>;
  /**
   * Loads every curated part (`tables/{table}/.../part-N.ndjson.gz`) under an fs sink folder into
   * its table; returns the number of parts per table.
   */
  loadTableParts(root: string): Promise<Record<string, number>>;
  /**
   * Runs DuckDB SQL; rows as JSON values: BIGINT as string, DATE `YYYY-MM-DD`, TIMESTAMP
   * `YYYY-MM-DD hh:mm:ss[.fff]+00`, JSON columns as their text, lists as arrays.
   */
  query(sql: string): Promise<Record<string, Json>[]>;
  close(): void;
}

/** An in-memory warehouse with every catalogue table (empty) and every view. */
export async function openWarehouse(dataset = 'visibility'): Promise<Warehouse> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const scratch = mkdtempSync(join(tmpdir(), 'visync-duckdb-'));
  let closed = false;
  const warehouse: Warehouse = {
    dataset,
    async insertRows(table, rows) {
      const def = tableByName(table);
      const path = join(scratch, `${table}-${Date.now()}-${Math.random().toString(36).slice(2)}.ndjson`);
      writeFileSync(path, rows.map((r) => `${toNdjsonLine(def, r)}\n`).join(''));
      try {
        await warehouse.loadNdjson(table, [path]);
      } finally {
        rmSync(path, { force: true });
      }
    },
    async loadNdjson(table, paths) {
      if (paths.length === 0) return;
      const def = tableByName(table);
      const columns = def.columns.map((c) => `"${c.name}": '${duckdbType(c)}'`).join(', ');
      const files = paths.map((p) => `'${p.replaceAll("'", "''")}'`).join(', ');
      await connection.run(
        `INSERT INTO "${dataset}"."${table}" BY NAME SELECT * FROM read_json([${files}], ` +
          // The sink's folders (dt=, account=, run=) are not columns: the rows carry their own.
          `format = 'newline_delimited', hive_partitioning = false, columns = {${columns}})`,
      );
    },
    async loadTableParts(root) {
      const byTable = new Map<string, string[]>();
      for (const path of filesUnder(join(root, 'tables'))) {
        const part = parseTablePartKey(relative(root, path).split(sep).join('/'));
        if (part) byTable.set(part.table, [...(byTable.get(part.table) ?? []), path]);
      }
      for (const [table, paths] of byTable) await warehouse.loadNdjson(table, paths);
      return Object.fromEntries([...byTable].map(([table, paths]) => [table, paths.length]));
    },
    async query(sql) {
      return (await connection.runAndReadAll(sql)).getRowObjectsJson();
    },
    close() {
      if (closed) return;
      closed = true;
      connection.closeSync();
      instance.closeSync();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
  open.push(warehouse);
  await createSchema(connection, dataset);
  return warehouse;
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)],
  );
}

async function createSchema(connection: DuckDBConnection, dataset: string): Promise<void> {
  await connection.run("SET TimeZone = 'UTC'");
  await connection.run(`CREATE SCHEMA "${dataset}"`);
  for (const t of WAREHOUSE_TABLES) {
    const columns = t.columns.map(
      (c) => `"${c.name}" ${duckdbType(c)}${c.mode === 'REQUIRED' ? ' NOT NULL' : ''}`,
    );
    await connection.run(`CREATE TABLE "${dataset}"."${t.name}" (${columns.join(', ')})`);
  }
  for (const v of VIEWS) {
    try {
      await connection.run(`CREATE VIEW "${dataset}"."${v.name}" AS ${toDuckDbSql(v.sql(dataset))}`);
    } catch (e) {
      throw new Error(`view ${v.name} does not run on DuckDB: ${(e as Error).message}`);
    }
  }
}
