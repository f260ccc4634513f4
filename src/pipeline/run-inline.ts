// `run --once`: every stage inline in one process, one run (and manifest) per account.
import type { Logger } from 'pino';
import type { RetryPolicy } from '../api/client.js';
import { callId, type WorkspaceEndpoint } from '../api/endpoints.js';
import { maxPauseMs } from '../api/pause-cap.js';
import { MemoryRateBudget, type RateBudget } from '../api/rate-budget.js';
import { namesList, UnknownAccountError } from '../config/account-settings.js';
import type { AccountConfig, Config } from '../config/schema.js';
import type { KeyLock } from '../curate/key-lock.js';
import { callLimits, type ExtractProgress, extractAccount } from '../extract/extract-account.js';
import { type ExtractPlan, workspaceCalls } from '../extract/plan.js';
import { runFinished } from '../ops/run-finished.js';
import { errorCode } from '../runs/error-code.js';
import { runScope } from '../runs/last-success.js';
import { assembleManifest, type LoadResult, type Manifest, manifestLocation } from '../runs/manifest.js';
import { type PlannedRun, writePlannedRun } from '../runs/planned-run.js';
import type { RunRecorder } from '../runs/recorder.js';
import type { RunCoordinates } from '../runs/run-coordinates.js';
import { kindOfRunId, newRunId, type RunKind } from '../runs/run-id.js';
import { type LeaseSignal, takeRunLease } from '../runs/run-lease.js';
import { combineRunStatuses, type RunStatus } from '../runs/run-status.js';
import { accountWindowDays } from '../runs/window.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { errorMessage } from '../util/errors.js';
import { utcDate } from '../util/time.js';
import { finishRun, type RunLoader } from './finish-run.js';
import { lastInterruptedRun } from './interrupted.js';
import { type AccountPause, accountPause } from './paused-account.js';
import { recordRun } from './record-run.js';
import { replayRun } from './replay.js';

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
  /** Only these accounts (CLI --account). */
  accounts?: readonly string[];
  brands?: readonly string[];
  /** Workspaces per account (CLI --brand routed to the accounts that own them); wins over `brands`. */
  brandsByAccount?: ReadonlyMap<string, readonly string[]>;
  endpoints?: readonly WorkspaceEndpoint[];
  /**
   * Visibility window in days (CLI --days). Default: every day since the account's last succeeded
   * full run, plus extract.overlapDays, at least extract.visibilityDays (src/runs/window.ts), so
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
  /** The Redis side of each run's lease (src/runs/run-lease.ts), when Redis is configured. */
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

export function selectAccounts(config: Config, names?: readonly string[]): AccountConfig[] {
  const unknown = (names ?? []).filter((n) => !config.accounts.some((a) => a.name === n));
  if (unknown.length)
    throw new UnknownAccountError(
      `unknown account ${unknown.join(', ')}: the config has ${namesList(config)}`,
    );
  return config.accounts.filter((a) => !names?.length || names.includes(a.name));
}

export async function runInline(o: InlineRunOptions): Promise<InlineRunResult> {
  const names = o.brandsByAccount ? [...o.brandsByAccount.keys()] : o.accounts;
  const accounts = selectAccounts(o.config, names);
  const budget = o.budget ?? new MemoryRateBudget({ maxPauseMs: maxPauseMs(o.config) });
  const completed: Manifest[] = [];
  const unrecorded = new Set<string>();

  // Accounts have separate budgets, so they run side by side.
  const manifests = await Promise.all(
    accounts.map(async (account): Promise<Manifest> => {
      const own = { ...(await accountOptions(o, account)), unrecorded };
      const c = await completeInterrupted(own, account.name);
      if (c) completed.push(c);
      return runAccount(own, account, budget);
    }),
  );
  return {
    manifests,
    completed,
    unrecorded,
    status: combineRunStatuses(manifests.map((m) => m.status)),
  };
}

type AccountRunOptions = InlineRunOptions & { store: ObjectStore; unrecorded?: Set<string> };

const leaseTtlMs = (o: InlineRunOptions) => o.leaseTtlMs ?? o.config.jobs.lockSeconds * 1000;

/** The options as one account sees them: its own store and loader. */
async function accountOptions(o: InlineRunOptions, account: AccountConfig): Promise<AccountRunOptions> {
  if (o.sinksFor) {
    const { store, loader } = await o.sinksFor(account);
    const { loader: _shared, ...rest } = o;
    return { ...rest, store, loader };
  }
  if (!o.store) throw new Error('runInline needs store or sinksFor');
  return { ...o, store: o.store };
}

/** A crashed earlier run of the account, completed from its raw landing (its failure is logged, not fatal). */
async function completeInterrupted(o: AccountRunOptions, account: string): Promise<Manifest | undefined> {
  const log = o.logger.child({ account });
  let run: Awaited<ReturnType<typeof lastInterruptedRun>>;
  try {
    run = await lastInterruptedRun(o.store, account, { signal: o.leaseSignal, ttlMs: leaseTtlMs(o) });
  } catch (err) {
    // Not a run that failed to complete: the store did not answer. The new run then says why it stopped.
    log.warn({ err: errorMessage(err) }, 'could not look for an interrupted run; the next run looks again');
    return undefined;
  }
  if (!run) return undefined;
  try {
    // The completing process becomes the run's owner: a second one completing it at once backs off.
    const lease = await takeRunLease({
      store: o.store,
      run,
      kind: run.lease?.kind ?? kindOfRunId(run.runId),
      startedAt: run.lease?.started_at ?? new Date().toISOString(),
      ttlMs: leaseTtlMs(o),
      signal: o.leaseSignal,
      logger: log,
      takeover: { previous: run.lease },
    });
    if (!lease) {
      log.info({ run_id: run.runId }, 'another process is completing the interrupted run');
      return undefined;
    }
    log.warn({ run_id: run.runId }, 'completing a run that stopped before its manifest');
    let manifest: Manifest;
    try {
      manifest = await replayRun({
        store: o.store,
        runId: run.runId,
        account,
        logger: log.child({ run_id: run.runId }),
        loader: o.loader,
        // 0 is no part size: it means the default, so it is left out (finishRun does the same).
        ...(o.partRows ? { partRows: o.partRows } : {}),
        latestLock: o.latestLock,
        onLoaded: o.onLoaded,
        // The lease is this process's now: the stopped owner's word comes from the lease it left.
        cause: run.lease?.ended?.error ?? (await recordedError(o, log, run.runId)),
        leaseTaken: true,
      });
    } catch (err) {
      await lease.release({ recorded: false, error: errorMessage(err) });
      throw err;
    }
    await lease.release({ recorded: true });
    // The ledger entry its process left `running` (with Redis) ends with the completed manifest.
    await record(log, 'end', () => o.recorder?.finished(manifest));
    return manifest;
  } catch (err) {
    log.error(
      { err: errorMessage(err), run_id: run.runId },
      `could not complete the interrupted run; \`visync replay --run ${run.runId}\` can`,
    );
    return undefined;
  }
}

async function runAccount(
  o: AccountRunOptions,
  account: AccountConfig,
  budget: RateBudget,
): Promise<Manifest> {
  const kind = o.kind ?? 'sync';
  const started = new Date();
  const runDate = o.runDate ?? utcDate(started);
  const run = { account: account.name, runId: newRunId(kind, started, runDate), runDate };
  const log = o.logger.child({ account: account.name, run_id: run.runId });
  const visibilityDays = o.days ?? (await windowDays(o, run.account, run.runDate, log));
  const brands = o.brandsByAccount?.get(account.name) ?? o.brands;
  const assemble: Assemble = (p) =>
    assembleManifest({
      run,
      kind,
      startedAt: started.toISOString(),
      visibilityDays,
      buyerIntentDays: o.config.extract.buyerIntentDays,
      scope: runScope(brands, o.endpoints),
      workspaces: [],
      files: [],
      loads: [],
      requests: { calls: 0, rate_limited: 0, retries: 0, waited_ms: 0 },
      drift: [],
      ...p,
    });
  let manifest: Manifest;
  try {
    manifest = await leasedRun({
      o,
      kind,
      account,
      run,
      log,
      started,
      visibilityDays,
      brands,
      budget,
      assemble,
    });
  } catch (err) {
    // Nothing landed yet: a run no one could see working must not start, and it says so.
    manifest = assemble({
      error: `run not started: its lease could not be taken: ${errorMessage(err)}`,
      errorCode: 'not_started',
    });
    o.unrecorded?.add(run.runId);
  }
  log.info({ status: manifest.status, requests: manifest.requests }, 'run finished');
  await record(log, 'end', () => o.recorder?.finished(manifest));
  await runFinished({ config: o.config, logger: log, manifest, store: o.store });
  return manifest;
}

/**
 * The run under its lease: taken first (throws when it cannot be), released once the manifest is
 * written, or marked ended with the reason it could not be.
 */
async function leasedRun(s: RunStep): Promise<Manifest> {
  const { o, run } = s;
  const lease = await takeRunLease({
    store: o.store,
    run,
    kind: s.kind,
    startedAt: s.started.toISOString(),
    ttlMs: leaseTtlMs(o),
    signal: o.leaseSignal,
    logger: s.log,
  });
  // A fresh id is nobody's: a lease already there means two runs were given one id.
  if (!lease) throw new Error(`run id ${run.runId} is leased already`);
  await record(s.log, 'start', () => o.recorder?.started(s.assemble({})));
  s.log.info({ kind: s.kind }, 'run started');
  const plan = startedRun(s.assemble({}));
  await writePlan(s, plan);
  const manifest = await recordManifest(s, await extractAndFinish(s, plan));
  await lease.release(
    o.unrecorded?.has(run.runId) ? { recorded: false, error: manifest.error ?? '' } : { recorded: true },
  );
  return manifest;
}

/** The run's manifest from its parts; status and finished_at follow from them. */
type Assemble = (p: Partial<Parameters<typeof assembleManifest>[0]>) => Manifest;

/** What the steps of one account's run share. */
interface RunStep {
  o: AccountRunOptions;
  kind: RunKind;
  account: AccountConfig;
  run: RunCoordinates;
  log: Logger;
  started: Date;
  visibilityDays: number;
  brands: readonly string[] | undefined;
  budget: RateBudget;
  assemble: Assemble;
}

/** Extracts the account, then normalises and loads whatever landed: the run's manifest, not yet written. */
async function extractAndFinish(s: RunStep, plan: PlannedRun): Promise<Manifest> {
  const { o, account, run, log } = s;
  const paused = await pauseOf(s);
  if (paused) {
    log.warn({ err: paused.error }, 'the account is paused: no call made');
    return s.assemble({ error: paused.error, pausedUntil: paused.until });
  }
  const extractPlan: ExtractPlan = {
    visibilityDays: s.visibilityDays,
    buyerIntentDays: o.config.extract.buyerIntentDays,
    endpoints: o.endpoints,
  };
  try {
    const extracted = await extractAccount({
      account,
      run,
      plan: extractPlan,
      brandFilter: s.brands,
      concurrency: o.config.extract.concurrency,
      limits: callLimits(o.config, s.started),
      store: o.store,
      budget: s.budget,
      logger: log,
      signal: o.signal,
      retry: o.retry,
      onProgress: o.onProgress && ((p: ExtractProgress) => o.onProgress?.(account.name, p)),
      onDiscovered: (brandIds) =>
        writePlan(s, {
          ...plan,
          workspaces: [...brandIds],
          workspace_calls: workspaceCalls('_', extractPlan).map(callId),
        }),
    });
    // Normalise and load whatever landed, also for a partial extraction; nothing landed, nothing to do.
    const finished =
      extracted.files.length > 0
        ? await finishRun({
            store: o.store,
            run,
            logger: log,
            loader: o.loader,
            partRows: o.partRows,
            latestLock: o.latestLock,
            onLoaded: o.onLoaded,
            startedAt: s.started.toISOString(),
          })
        : { rawFiles: [], files: [], drift: [], loads: [] };
    return s.assemble({
      error: extracted.error,
      errorCode: extracted.error_code,
      pausedUntil: extracted.pausedUntil,
      workspaces: extracted.workspaces,
      files: [...extracted.files, ...finished.files],
      loads: finished.loads,
      requests: extracted.requests,
      drift: [...extracted.drift, ...finished.drift],
    });
  } catch (err) {
    // Not a fault of the API (those are in the manifest): the run stops here, and says why.
    return s.assemble({ error: errorMessage(err), errorCode: errorCode(err) });
  }
}

/** The pause an earlier run of the account stopped on, while it lasts; none when the sink cannot say. */
async function pauseOf({ o, run, log }: RunStep): Promise<AccountPause | undefined> {
  try {
    return await accountPause(o.store, run.account);
  } catch (err) {
    log.warn({ err: errorMessage(err) }, 'could not read the last run from the manifests');
    return undefined;
  }
}

/** Writes the manifest (and loads sync_runs); a run that cannot be recorded failed. */
async function recordManifest(s: RunStep, manifest: Manifest): Promise<Manifest> {
  try {
    return await recordRun({ store: s.o.store, manifest, logger: s.log, loader: s.o.loader });
  } catch (err) {
    // Nothing more can be written: the run failed, and the error names the path it could not write.
    s.o.unrecorded?.add(manifest.run_id);
    return {
      ...manifest,
      status: 'failed',
      error: `run not recorded: manifest ${manifestLocation(s.o.store, manifest.account, manifest.run_id)} not written: ${errorMessage(err)}`,
      error_code: 'not_recorded',
    };
  }
}

/** What the run sets out to do, for its completion should it stop before its manifest. */
function startedRun(m: Manifest): PlannedRun {
  return {
    run_id: m.run_id,
    account: m.account,
    kind: m.kind,
    run_date: m.run_date,
    started_at: m.started_at,
    window: m.window,
    scope: m.scope,
  };
}

/** A plan that cannot be written costs the completion its measure, not the run: logged, not fatal. */
async function writePlan(s: RunStep, plan: PlannedRun): Promise<void> {
  try {
    await writePlannedRun(s.o.store, plan);
  } catch (err) {
    s.log.warn(
      { err: errorMessage(err) },
      "could not write the run's plan; a completion would judge by its landing",
    );
  }
}

/** The window since the account's last success; the configured one when the sink cannot say. */
async function windowDays(
  o: AccountRunOptions,
  account: string,
  runDate: string,
  log: Logger,
): Promise<number> {
  try {
    return await accountWindowDays({ store: o.store, account, runDate, extract: o.config.extract });
  } catch (err) {
    // Safe: the mark moves only for a run whose window reaches back to it (src/runs/last-success.ts).
    log.warn(
      { err: errorMessage(err) },
      'could not read the last success from the manifests; using extract.visibilityDays',
    );
    return o.config.extract.visibilityDays;
  }
}

/** Why the run stopped, as the ledger has it (a full disk keeps it from the lease); none is no cause. */
async function recordedError(o: AccountRunOptions, log: Logger, runId: string): Promise<string | undefined> {
  try {
    return await o.recorder?.recordedError?.(runId);
  } catch (err) {
    log.warn({ err: errorMessage(err) }, "could not read the interrupted run's error from the ledger");
    return undefined;
  }
}

/** The ledger is a second record (the manifest is the first): losing it must not fail the run. */
async function record(log: Logger, what: string, write: () => Promise<void> | undefined): Promise<void> {
  try {
    await write();
  } catch (err) {
    log.warn(
      { err: errorMessage(err) },
      `could not record the run's ${what} in the ledger; the manifest has it`,
    );
  }
}
