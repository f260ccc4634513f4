// The configured warehouse as the load stage sees it: BigQuery when sinks.bigquery is set.
import { TABLES, VIEWS } from '../catalogue/index.js';
import type { SinksConfig } from '../config/schema.js';
import { Warehouse } from '../warehouse/index.js';
import type { RunLoader } from './finish-run.js';

export function createRunLoader(sinks: SinksConfig): RunLoader | undefined {
  if (!sinks.bigquery) return undefined;
  const warehouse = new Warehouse(sinks.bigquery);
  return {
    prepare: async () => {
      await warehouse.prepare(TABLES, VIEWS);
    },
    load: (p) => warehouse.load(p),
  };
}
