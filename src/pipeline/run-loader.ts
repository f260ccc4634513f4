// The configured warehouse as the load stage sees it: BigQuery when sinks.bigquery is set.
import { TABLES, VIEWS } from '../catalogue/index.js';
import type { SinksConfig } from '../config/schema.js';
import { type BigQueryClientOptions, createBigQuery, Warehouse } from '../warehouse/index.js';
import type { RunLoader } from './finish-run.js';

export function createRunLoader(
  sinks: SinksConfig,
  client: BigQueryClientOptions = {},
): RunLoader | undefined {
  if (!sinks.bigquery) return undefined;
  const cfg = sinks.bigquery;
  const warehouse = new Warehouse(cfg, { bigquery: createBigQuery(cfg, client) });
  return {
    describe: () => `BigQuery dataset ${cfg.projectId}:${cfg.dataset}`,
    prepare: async () => {
      await warehouse.prepare(TABLES, VIEWS);
    },
    load: (p) => warehouse.load(p),
  };
}
