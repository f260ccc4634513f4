// TableDef -> BigQuery table metadata. The same field list is the schema of every load job, so a
// column added to the catalogue reaches the table through ALLOW_FIELD_ADDITION on the next load.
import { SYNC_RUNS } from '../catalogue/sync-runs.js';
import type { TableDef } from '../catalogue/types.js';

export interface BigQueryField {
  name: string;
  type: string;
  mode: 'NULLABLE' | 'REQUIRED' | 'REPEATED';
  description: string;
}

export interface BigQueryTableMetadata {
  description: string;
  schema: { fields: BigQueryField[] };
  /** expirationMs: an int64 as a decimal string, as the REST API writes it. */
  timePartitioning: { type: 'DAY'; field: string; expirationMs?: string };
  clustering?: { fields: string[] };
  requirePartitionFilter?: boolean;
}

/**
 * The cost settings of sinks.bigquery (docs/production.md, "Costs and retention"). A key left out
 * is not managed: new tables get BigQuery's default, existing tables keep what they have.
 */
export interface PartitionSettings {
  partitionExpirationDays?: number | undefined;
  requirePartitionFilter?: boolean | undefined;
}

const DAY_MS = 86_400_000;

/**
 * sync_runs never requires a partition filter: every view (src/catalogue/views.ts) and the run
 * checks in docs/production.md read all of it, and it holds one small row per run.
 */
function requiresPartitionFilter(table: TableDef, settings: PartitionSettings): boolean | undefined {
  if (settings.requirePartitionFilter === undefined) return undefined;
  return table.name === SYNC_RUNS.name ? false : settings.requirePartitionFilter;
}

// BigQuery limits, checked here so a catalogue mistake fails in tests, not in a nightly load.
const MAX_CLUSTERING_FIELDS = 4;
const MAX_DESCRIPTION = 1024;

export function tableFields(table: TableDef): BigQueryField[] {
  return table.columns.map((c) => ({
    name: c.name,
    type: c.type,
    mode: c.mode,
    description: c.description.slice(0, MAX_DESCRIPTION),
  }));
}

export function tableMetadata(table: TableDef, settings: PartitionSettings = {}): BigQueryTableMetadata {
  const byName = new Map(table.columns.map((c) => [c.name, c]));
  const partition = byName.get(table.partitionField);
  if (partition?.type !== 'DATE' || partition.mode === 'REPEATED') {
    throw new Error(`table ${table.name}: partition field ${table.partitionField} must be a DATE column`);
  }
  if (table.clustering.length > MAX_CLUSTERING_FIELDS) {
    throw new Error(
      `table ${table.name}: BigQuery allows at most ${MAX_CLUSTERING_FIELDS} clustering fields`,
    );
  }
  for (const name of table.clustering) {
    const col = byName.get(name);
    if (!col || col.mode === 'REPEATED' || col.type === 'JSON' || col.type === 'FLOAT64') {
      throw new Error(
        `table ${table.name}: clustering field ${name} is missing or of a type BigQuery cannot cluster`,
      );
    }
  }
  return {
    description: table.description.slice(0, MAX_DESCRIPTION),
    schema: { fields: tableFields(table) },
    timePartitioning: {
      type: 'DAY',
      field: table.partitionField,
      ...(settings.partitionExpirationDays !== undefined && {
        expirationMs: String(settings.partitionExpirationDays * DAY_MS),
      }),
    },
    ...(table.clustering.length > 0 && { clustering: { fields: [...table.clustering] } }),
    ...(requiresPartitionFilter(table, settings) !== undefined && {
      requirePartitionFilter: requiresPartitionFilter(table, settings),
    }),
  };
}
