// The warehouse a run loads into, as the load stage sees it: BigQuery when sinks.bigquery is set.
// The BigQuery client is loaded only then, so runs without a warehouse never load it.
import { VIEWS, WAREHOUSE_TABLES } from '../catalogue/index.js';
import { accountSettings, warehouseKey } from '../config/account-settings.js';
import type { AccountConfig, Config, SinksConfig } from '../config/schema.js';
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
    loadBatch: (p) => warehouse.loadBatch(p),
  };
}

/**
 * One loader per distinct warehouse (an account's bigquery.dataset applied), created at first use
 * and shared by the accounts that load into it; undefined for sinks without BigQuery.
 */
export class RunLoaders {
  readonly #loaders = new Map<string, Promise<RunLoader | undefined>>();
  readonly #client: BigQueryClientOptions;

  constructor(client: BigQueryClientOptions = {}) {
    this.#client = client;
  }

  get(sinks: SinksConfig): Promise<RunLoader | undefined> {
    const key = warehouseKey(sinks);
    if (key === undefined) return Promise.resolve(undefined);
    let loader = this.#loaders.get(key);
    if (!loader) {
      loader = createRunLoader(sinks, this.#client);
      loader.catch(() => this.#loaders.delete(key));
      this.#loaders.set(key, loader);
    }
    return loader;
  }

  /** The loader of an account, into its own dataset when it has one. */
  forAccount(config: Config, account: string | AccountConfig): Promise<RunLoader | undefined> {
    return this.get(accountSettings(config, account).sinks);
  }
}
