import { accountSettings, groupBySinks, storeKey } from '../config/account-settings.js';
import type { AccountConfig, Config, SinksConfig } from '../config/schema.js';
import { FsObjectStore } from './fs-store.js';
import type { ObjectStore } from './object-store.js';

/**
 * The configured object store (raw, curated, manifests, latest). The S3 adapter, and with it the
 * AWS SDK, is loaded only when sinks.s3 is set: a command on the local disk never pays for it.
 */
export async function createObjectStore(sinks: SinksConfig): Promise<ObjectStore> {
  if (sinks.s3) {
    const { S3ObjectStore } = await import('./s3-store.js');
    return new S3ObjectStore(sinks.s3);
  }
  if (sinks.fs) return new FsObjectStore(sinks.fs.dir);
  throw new Error('no object store configured: set sinks.fs or sinks.s3');
}

/**
 * One object store per distinct store config (the account's fs.dir or s3.prefix applied), created
 * at first use and shared by every account that resolves to it. Also after a config reload: the
 * same settings give the same store.
 */
export class ObjectStores {
  readonly #stores = new Map<string, Promise<ObjectStore>>();
  readonly #wrap: (store: ObjectStore) => ObjectStore;

  /** `wrap` is applied once to each new store (run --once's crash-point test hook). */
  constructor(wrap: (store: ObjectStore) => ObjectStore = (s) => s) {
    this.#wrap = wrap;
  }

  /** The store of these (effective) sinks. */
  get(sinks: SinksConfig): Promise<ObjectStore> {
    const key = storeKey(sinks);
    let store = this.#stores.get(key);
    if (!store) {
      store = createObjectStore(sinks).then(this.#wrap);
      // A failed creation is not cached: the next call tries again.
      store.catch(() => this.#stores.delete(key));
      this.#stores.set(key, store);
    }
    return store;
  }

  /** The store of an account, with its own prefix or folder. */
  forAccount(config: Config, account: string | AccountConfig): Promise<ObjectStore> {
    return this.get(accountSettings(config, account).sinks);
  }

  /** The distinct stores of `accounts`, each with the accounts that write to it (config order). */
  async grouped(
    config: Config,
    accounts: readonly string[],
  ): Promise<{ store: ObjectStore; accounts: string[] }[]> {
    return Promise.all(
      groupBySinks(config, accounts, storeKey).map(async (names) => ({
        store: await this.forAccount(config, names[0] as string),
        accounts: names,
      })),
    );
  }

  async close(): Promise<void> {
    const stores = await Promise.allSettled(this.#stores.values());
    this.#stores.clear();
    for (const s of stores) if (s.status === 'fulfilled') s.value.close?.();
  }
}
