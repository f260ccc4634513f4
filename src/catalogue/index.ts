// Public surface of the catalogue: tables, views, lookups and the deterministic NDJSON writer.
import { BRAND_EVENTS } from './brand-events.js';
import { SYNC_RUNS } from './sync-runs.js';
import { TABLES } from './tables.js';
import type { Row, TableDef, ViewDef } from './types.js';
import { VIEWS } from './views.js';

export { BRAND_EVENTS, EVENT_TYPES, SEVERITIES } from './brand-events.js';
export { grainColumns, renderTablesDoc } from './docs.js';
export { SYNC_RUNS } from './sync-runs.js';
export { TABLES } from './tables.js';

/** The tables a run curates and loads before its `sync_runs` row: the API's, then what changed. */
export const RUN_TABLES: readonly TableDef[] = [...TABLES, BRAND_EVENTS];
/** Every table of the warehouse: the run's tables, then the run history loaded after them. */
export const WAREHOUSE_TABLES: readonly TableDef[] = [...RUN_TABLES, SYNC_RUNS];
export type { ColumnDef, ColumnType, Row, TableDef } from './types.js';
export { VIEWS } from './views.js';

const tablesByName = new Map(WAREHOUSE_TABLES.map((t) => [t.name, t]));
const viewsByName = new Map(VIEWS.map((v) => [v.name, v]));

/** Throws on a name outside the catalogue: callers pass names from code, so that is a bug. */
export function tableByName(name: string): TableDef {
  const table = tablesByName.get(name);
  if (!table) throw new Error(`unknown table "${name}" (not in the catalogue)`);
  return table;
}

export function viewByName(name: string): ViewDef {
  const view = viewsByName.get(name);
  if (!view) throw new Error(`unknown view "${name}" (not in the catalogue)`);
  return view;
}

// Every curated row is checked against its table's columns: a set per table, not a scan per key.
const columnNames = new WeakMap<TableDef, ReadonlySet<string>>();
function columnNamesOf(table: TableDef): ReadonlySet<string> {
  const known = columnNames.get(table);
  if (known) return known;
  const names = new Set(table.columns.map((c) => c.name));
  columnNames.set(table, names);
  return names;
}

/**
 * One NDJSON line (without newline) with keys in catalogue column order, so the same rows give the
 * same bytes on every run and replay. Missing values become null (REPEATED: []); a key that is not
 * a column, or a REQUIRED column without a value, is a normaliser bug and throws.
 */
export function toNdjsonLine(table: TableDef, row: Row): string {
  const names = columnNamesOf(table);
  for (const key of Object.keys(row)) {
    if (!names.has(key))
      throw new Error(`row for table ${table.name} has key "${key}", which is not a column`);
  }
  const out: Record<string, unknown> = {};
  for (const c of table.columns) {
    const value = row[c.name] ?? null;
    if (value === null && c.mode === 'REQUIRED') {
      throw new Error(`row for table ${table.name} has no value for REQUIRED column "${c.name}"`);
    }
    out[c.name] = value === null && c.mode === 'REPEATED' ? [] : value;
  }
  return JSON.stringify(out);
}
export { type CurrentStateView, currentStateViews, DIALECTS } from './dialect.js';
