// The configured warehouse as the load stage sees it: BigQuery when sinks.bigquery is set. The
// BigQuery client is loaded only then, so runs without a warehouse never load it.
import { VIEWS, WAREHOUSE_TABLES } from '../catalogue/index.js';
import type { SinksConfig } from '../config/schema.js';
import type { BigQueryClientOptions } from '../warehouse/index.js';
import type { RunLoader } from './finish-run.js';

export async function createRunLoader(
  sinks: SinksConfig,
  client: BigQueryClientOptions = {},
): Promise<RunLoader | undefined> {
  if (!sinks.bigquery) return undefined;
  const cfg = sinks.bigquery;
  const { createBigQuery, Warehouse } = await import('../warehouse/index.js');
  const warehouse = new Warehouse(cfg, { bigquery: createBigQuery(cfg, client) });
  return {
    describe: () => `BigQuery dataset ${cfg.projectId}:${cfg.dataset}`,
    prepare: async () => {
      await warehouse.prepare(WAREHOUSE_TABLES, VIEWS);
    },
    load: (p) => warehouse.load(p),
  };
}
