// Column builders shared by every table, so the common columns read the same everywhere.
import type { ColumnDef, ColumnMode, ColumnType } from './types.js';

function column(
  name: string,
  type: ColumnType,
  description: string,
  mode: ColumnMode = 'NULLABLE',
): ColumnDef {
  return { name, type, mode, description };
}

export function required(name: string, type: ColumnType, description: string): ColumnDef {
  return column(name, type, description, 'REQUIRED');
}

export function nullable(name: string, type: ColumnType, description: string): ColumnDef {
  return column(name, type, description, 'NULLABLE');
}

/** REPEATED columns are written as arrays, empty (never NULL) when the source has no usable value. */
export function repeated(name: string, type: ColumnType, description: string): ColumnDef {
  return column(name, type, description, 'REPEATED');
}

/**
 * Appended to a column description: where the value comes from and whether the upstream spec
 * documents that field name or it is our assumption (from the simulator's shapes).
 */
export function source(path: string, documented: boolean): string {
  return documented ? `Source: \`${path}\` (documented).` : `Source: \`${path}\` (field name assumed).`;
}

export const accountColumn = (): ColumnDef =>
  required('account', 'STRING', 'Account name from the visync configuration (one API key set).');

export const brandIdColumn = (): ColumnDef =>
  required('brand_id', 'STRING', 'Workspace (brand) id, as used in API paths (`/brands/{brand_id}`).');

export const runIdColumn = (): ColumnDef =>
  required(
    'run_id',
    'STRING',
    'Sync run that extracted the row: `20261121-nightly-a1b2c3d4` (a logical run) or ' +
      '`20261121-sync-144a43bb05a1` (run --once, enqueue --force); older run --once runs have ' +
      '`20261121T225508Z-sync-3fa2c1`. Its start time and status are in `sync_runs`.',
  );

const extractedAtColumn = (): ColumnDef =>
  required('extracted_at', 'TIMESTAMP', 'When the API response holding this record was received (UTC).');

export const snapshotDateColumn = (): ColumnDef =>
  required(
    'snapshot_date',
    'DATE',
    "The run's logical date (UTC): the day this state of the record was observed. Partitioning column.",
  );

const payloadColumn = (what: string): ColumnDef =>
  required(
    'payload',
    'JSON',
    `${what}, unchanged, including fields the typed columns do not cover. Read unknown or renamed fields from here.`,
  );

/** The columns every row ends with: provenance and the untouched source record. */
export function trailingColumns(payloadWhat: string): ColumnDef[] {
  return [runIdColumn(), extractedAtColumn(), payloadColumn(payloadWhat)];
}
