// `visync run --once`: every stage inline in one process, one run (and manifest) per account.
import type { Logger } from 'pino';
import type { RetryPolicy } from '../api/client.js';
import type { WorkspaceEndpoint } from '../api/endpoints.js';
import { MemoryRateBudget, type RateBudget } from '../api/rate-budget.js';
import type { Config } from '../config/schema.js';
import { type ExtractProgress, extractAccount } from '../extract/extract-account.js';
import { assembleManifest, type Manifest, type RunStatus, writeManifest } from '../runs/manifest.js';
import { newRunId, type RunKind } from '../runs/run-id.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { utcDate } from '../util/time.js';
import { finishRun, type RunLoader } from './finish-run.js';

export interface InlineRunOptions {
  config: Config;
  store: ObjectStore;
  logger: Logger;
  kind?: RunKind;
  /** Only these accounts (CLI --account). */
  accounts?: readonly string[];
  brands?: readonly string[];
  endpoints?: readonly WorkspaceEndpoint[];
  /** Visibility window in days (CLI --days); default extract.visibilityDays. */
  days?: number;
  budget?: RateBudget;
  /** Loads curated tables (BigQuery); none: curated files only. */
  loader?: RunLoader;
  /** Rows per curated part file (tests use small parts). */
  partRows?: number;
  /** Retry policy override (tests use short backoffs). */
  retry?: Partial<RetryPolicy>;
  signal?: AbortSignal;
  onProgress?: (account: string, p: ExtractProgress) => void;
}

export interface InlineRunResult {
  manifests: Manifest[];
  status: RunStatus;
}

export async function runInline(o: InlineRunOptions): Promise<InlineRunResult> {
  const accounts = o.config.accounts.filter((a) => !o.accounts?.length || o.accounts.includes(a.name));
  const unknown = (o.accounts ?? []).filter((n) => !o.config.accounts.some((a) => a.name === n));
  if (unknown.length)
    throw new Error(
      `unknown account ${unknown.join(', ')}: the config has ${o.config.accounts.map((a) => a.name).join(', ')}`,
    );
  const budget = o.budget ?? new MemoryRateBudget();
  const kind = o.kind ?? 'sync';
  const visibilityDays = o.days ?? o.config.extract.visibilityDays;

  // Accounts have separate budgets, so they run side by side.
  const manifests = await Promise.all(
    accounts.map(async (account): Promise<Manifest> => {
      const started = new Date();
      const run = { account: account.name, runId: newRunId(kind, started), runDate: utcDate(started) };
      const log = o.logger.child({ account: account.name, run_id: run.runId });
      log.info({ kind }, 'run started');
      const extracted = await extractAccount({
        account,
        run,
        plan: {
          visibilityDays,
          buyerIntentDays: o.config.extract.buyerIntentDays,
          ...(o.endpoints ? { endpoints: o.endpoints } : {}),
        },
        ...(o.brands?.length ? { brandFilter: o.brands } : {}),
        concurrency: o.config.extract.concurrency,
        store: o.store,
        budget,
        logger: log,
        ...(o.signal ? { signal: o.signal } : {}),
        ...(o.retry ? { retry: o.retry } : {}),
        ...(o.onProgress ? { onProgress: (p: ExtractProgress) => o.onProgress?.(account.name, p) } : {}),
      });
      // Normalise and load whatever landed, also for a partial extraction; nothing landed, nothing to do.
      const finished =
        extracted.files.length > 0
          ? await finishRun({
              store: o.store,
              run,
              logger: log,
              ...(o.loader ? { loader: o.loader } : {}),
              ...(o.partRows ? { partRows: o.partRows } : {}),
            })
          : { rawFiles: [], files: [], drift: [], loads: [] };
      const manifest = assembleManifest({
        run,
        kind,
        startedAt: started.toISOString(),
        visibilityDays,
        buyerIntentDays: o.config.extract.buyerIntentDays,
        error: extracted.error,
        workspaces: extracted.workspaces,
        files: [...extracted.files, ...finished.files],
        loads: finished.loads,
        requests: extracted.requests,
        drift: [...extracted.drift, ...finished.drift],
      });
      await writeManifest(o.store, manifest);
      log.info({ status: manifest.status, requests: manifest.requests }, 'run finished');
      return manifest;
    }),
  );
  return { manifests, status: overallStatus(manifests.map((m) => m.status)) };
}

/** Several accounts: succeeded only if all did, failed only if all did. */
export function overallStatus(statuses: RunStatus[]): RunStatus {
  if (statuses.every((s) => s === 'succeeded')) return 'succeeded';
  if (statuses.every((s) => s === 'failed')) return 'failed';
  return 'partial';
}
