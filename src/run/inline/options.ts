// The options of `run --once` (src/run/inline/run-inline.ts), and how one account sees them: its own
// store and loader (src/config/account-settings.ts).
import type { Logger } from 'pino';
import type { RetryPolicy } from '../../api/client.js';
import type { WorkspaceEndpoint } from '../../api/endpoints.js';
import type { RateBudget } from '../../api/rate-budget.js';
import type { AccountConfig, Config } from '../../config/schema.js';
import type { ExtractProgress } from '../../extract/extract-account.js';
import type { LoadResult, Manifest } from '../../records/manifest.js';
import type { RunRecorder } from '../../records/recorder.js';
import type { RunKind } from '../../records/run-id.js';
import type { LeaseSignal } from '../../records/run-lease.js';
import type { RunStatus } from '../../records/run-state.js';
import type { KeyLock } from '../../sinks/key-lock.js';
import type { ObjectStore } from '../../sinks/object-store.js';
import type { RunLoader } from '../finish-run.js';

/** The object store and warehouse loader of one account (its own prefix, folder or dataset). */
export interface RunSinks {
  store: ObjectStore;
  loader?: RunLoader | undefined;
}

export interface InlineRunOptions {
  config: Config;
  /** Every account's store, unless `sinksFor` is given. */
  store?: ObjectStore;
  /** Per account store and loader (src/config/account-settings.ts); wins over `store` and `loader`. */
  sinksFor?: (account: AccountConfig) => Promise<RunSinks>;
  logger: Logger;
  kind?: RunKind;
  /** Only these accounts (CLI --account, checked there: src/cli/accounts.ts). */
  accounts?: readonly string[];
  brands?: readonly string[];
  /** Workspaces per account (CLI --brand routed to the accounts that own them); wins over `brands`. */
  brandsByAccount?: ReadonlyMap<string, readonly string[]>;
  endpoints?: readonly WorkspaceEndpoint[];
  /**
   * Visibility window in days (CLI --days). Default: every day since the account's last succeeded
   * full run, plus extract.overlapDays, at least extract.visibilityDays (src/records/window.ts), so
   * nights a cron-driven `run --once` missed are fetched by the next one.
   */
  days?: number;
  /** The runs' logical date (tests play several nights in a row); default: today (UTC) at start. */
  runDate?: string;
  budget?: RateBudget;
  /** Loads curated tables (BigQuery); none: curated files only. */
  loader?: RunLoader;
  /** Serialises latest/ writers with other processes (Redis); default: this process only. */
  latestLock?: KeyLock;
  /** Rows per curated part file (tests use small parts). */
  partRows?: number;
  /** Retry policy override (tests use short backoffs). */
  retry?: Partial<RetryPolicy>;
  signal?: AbortSignal;
  onProgress?: (account: string, p: ExtractProgress) => void;
  /** Also records each run's start and end elsewhere (the Redis ledger, when configured). */
  recorder?: RunRecorder;
  /** After each table's load (the crash-point test hook). */
  onLoaded?: (load: LoadResult) => void;
  /** The Redis side of each run's lease (src/records/run-lease.ts), when Redis is configured. */
  leaseSignal?: LeaseSignal;
  /** How long a run's lease lasts unrenewed; default jobs.lockSeconds. */
  leaseTtlMs?: number;
}

export interface InlineRunResult {
  manifests: Manifest[];
  /** Runs of earlier processes that stopped before their manifest, completed before the new runs. */
  completed: Manifest[];
  /** Ids of the runs above whose manifest could not be written (the next run --once completes them). */
  unrecorded: Set<string>;
  status: RunStatus;
}

export type AccountRunOptions = InlineRunOptions & { store: ObjectStore; unrecorded?: Set<string> };

export const leaseTtlMs = (o: InlineRunOptions) => o.leaseTtlMs ?? o.config.jobs.lockSeconds * 1000;

/** The options as one account sees them: its own store and loader. */
export async function accountOptions(
  o: InlineRunOptions,
  account: AccountConfig,
): Promise<AccountRunOptions> {
  if (o.sinksFor) {
    const { store, loader } = await o.sinksFor(account);
    const { loader: _shared, ...rest } = o;
    return { ...rest, store, loader };
  }
  if (!o.store) throw new Error('runInline needs store or sinksFor');
  return { ...o, store: o.store };
}
