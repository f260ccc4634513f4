// Creates the dataset, tables and views on first use. Several workers may race to create the same
// object: a 409 from the loser means the object is there, which is all we wanted. Existing tables
// are left alone, but for nullable columns the catalogue added since they were created: a view
// that reads such a column (sync_runs.workspace_list_incomplete) could not be created before the
// next load added it through ALLOW_FIELD_ADDITION, and without its views no load would start; and
// for the cost settings of sinks.bigquery (partition expiration, required partition filter), which
// are patched to what the config says so that changing them there takes effect on the next run
// instead of only on tables created afterwards (BigQuery allows both on an existing table).
import type { BigQuery } from '@google-cloud/bigquery';
import type { TableDef, ViewDef } from '../catalogue/types.js';
import { mapSettled } from '../util/pool.js';
import { isAlreadyExists, isNotFound } from './errors.js';
import {
  type BigQueryField,
  type BigQueryTableMetadata,
  type PartitionSettings,
  tableMetadata,
} from './schema.js';

export type EnsureAction = 'created' | 'exists' | 'updated';

export interface EnsureResult {
  name: string;
  action: EnsureAction;
}

// Table metadata operations are rate limited per dataset; a few at a time is plenty.
const CONCURRENCY = 4;

export async function ensureDataset(bq: BigQuery, dataset: string, location: string): Promise<EnsureAction> {
  const ds = bq.dataset(dataset, { location });
  try {
    const [meta] = await ds.getMetadata();
    const actual = String(meta.location ?? '');
    // Jobs run where the dataset is; a mismatch would fail every load with a confusing "not found".
    if (actual && actual.toLowerCase() !== location.toLowerCase()) {
      throw new Error(
        `BigQuery dataset ${bq.projectId}:${dataset} is in location ${actual}, but sinks.bigquery.location is ${location}`,
      );
    }
    return 'exists';
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  try {
    await bq.createDataset(dataset, { location });
    return 'created';
  } catch (err) {
    if (isAlreadyExists(err)) return 'exists';
    throw err;
  }
}

export async function ensureTables(
  bq: BigQuery,
  dataset: string,
  tables: readonly TableDef[],
  settings: PartitionSettings = {},
): Promise<EnsureResult[]> {
  const ds = bq.dataset(dataset);
  return settleAll(
    await mapSettled(tables, CONCURRENCY, async (def): Promise<EnsureResult> => {
      const metadata = tableMetadata(def, settings);
      const table = ds.table(def.name);
      try {
        const [current] = await table.getMetadata();
        const fields: BigQueryField[] = current?.schema?.fields ?? [];
        const have = new Set(fields.map((f) => f.name));
        const added = metadata.schema.fields.filter((f) => !have.has(f.name) && f.mode !== 'REQUIRED');
        const patch = {
          ...(added.length > 0 && { schema: { fields: [...fields, ...added] } }),
          ...partitionPatch(current, metadata),
        };
        if (Object.keys(patch).length === 0) return { name: def.name, action: 'exists' };
        await table.setMetadata(patch);
        return { name: def.name, action: 'updated' };
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      try {
        await ds.createTable(def.name, metadata);
        return { name: def.name, action: 'created' };
      } catch (err) {
        if (isAlreadyExists(err)) return { name: def.name, action: 'exists' };
        throw err;
      }
    }),
  );
}

interface CurrentPartitioning {
  timePartitioning?: { type?: string; field?: string; expirationMs?: string | null } | null;
  requirePartitionFilter?: boolean | null;
}

/** What of the config's partition settings an existing table lacks (settings left out are not compared). */
function partitionPatch(
  current: CurrentPartitioning,
  want: BigQueryTableMetadata,
): Partial<BigQueryTableMetadata> {
  const patch: Partial<BigQueryTableMetadata> = {};
  const expiration = want.timePartitioning.expirationMs;
  if (expiration !== undefined && String(current.timePartitioning?.expirationMs ?? '') !== expiration) {
    // Type and field as the table has them: BigQuery refuses to change those, only the expiration.
    patch.timePartitioning = { ...want.timePartitioning };
  }
  const filter = want.requirePartitionFilter;
  if (filter !== undefined && (current.requirePartitionFilter ?? false) !== filter) {
    patch.requirePartitionFilter = filter;
  }
  return patch;
}

export interface EnsureViewsOptions {
  /**
   * What `ViewDef.sql(dataset)` gets to name tables with. Default `project.dataset`: a view then
   * reads the same tables whichever project queries it.
   */
  datasetRef?: string;
}

export async function ensureViews(
  bq: BigQuery,
  dataset: string,
  views: readonly ViewDef[],
  opts: EnsureViewsOptions = {},
): Promise<EnsureResult[]> {
  const ds = bq.dataset(dataset);
  const ref = opts.datasetRef ?? `${bq.projectId}.${dataset}`;
  return settleAll(
    await mapSettled(views, CONCURRENCY, async (def): Promise<EnsureResult> => {
      const query = def.sql(ref);
      const view = ds.table(def.name);
      let current: {
        type?: string | null;
        view?: { query?: string | null; useLegacySql?: boolean | null } | null;
      };
      try {
        [current] = await view.getMetadata();
      } catch (err) {
        if (!isNotFound(err)) throw err;
        try {
          await ds.createTable(def.name, {
            description: def.description,
            view: { query, useLegacySql: false },
          });
          return { name: def.name, action: 'created' };
        } catch (createErr) {
          // Another worker created it; it holds this same catalogue's SQL (or the next prepare fixes it).
          if (isAlreadyExists(createErr)) return { name: def.name, action: 'exists' };
          throw createErr;
        }
      }
      if (current.type !== 'VIEW') {
        throw new Error(`${bq.projectId}:${dataset}.${def.name} exists but is a ${current.type}, not a view`);
      }
      if (current.view?.query === query && current.view?.useLegacySql === false) {
        return { name: def.name, action: 'exists' };
      }
      await view.setMetadata({ description: def.description, view: { query, useLegacySql: false } });
      return { name: def.name, action: 'updated' };
    }),
  );
}

/** Every object is attempted; the first failure is thrown after all have settled. */
function settleAll(results: PromiseSettledResult<EnsureResult>[]): EnsureResult[] {
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<EnsureResult>).value);
}
