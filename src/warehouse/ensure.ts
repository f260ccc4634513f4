// Creates the dataset, tables and views on first use. Several workers may race to create the same
// object: a 409 from the loser means the object is there, which is all we wanted. Existing tables
// are left alone, but for nullable columns the catalogue added since they were created: a view
// that reads such a column (sync_runs.workspace_list_incomplete) could not be created before the
// next load added it through ALLOW_FIELD_ADDITION, and without its views no load would start.
import type { BigQuery } from '@google-cloud/bigquery';
import type { TableDef, ViewDef } from '../catalogue/types.js';
import { mapSettled } from '../util/pool.js';
import { isAlreadyExists, isNotFound } from './errors.js';
import { type BigQueryField, tableMetadata } from './schema.js';

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
): Promise<EnsureResult[]> {
  const ds = bq.dataset(dataset);
  return settleAll(
    await mapSettled(tables, CONCURRENCY, async (def): Promise<EnsureResult> => {
      const metadata = tableMetadata(def);
      const table = ds.table(def.name);
      try {
        const [current] = await table.getMetadata();
        const fields: BigQueryField[] = current?.schema?.fields ?? [];
        const have = new Set(fields.map((f) => f.name));
        const added = metadata.schema.fields.filter((f) => !have.has(f.name) && f.mode !== 'REQUIRED');
        if (!added.length) return { name: def.name, action: 'exists' };
        await table.setMetadata({ schema: { fields: [...fields, ...added] } });
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
