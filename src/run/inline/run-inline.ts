// `run --once`: the inline driver. Every stage of a run (src/run/) in this one process, one run
// (and manifest) per account, the accounts side by side: extract, curate and load (finishRun),
// record (src/run/record.ts). An interrupted earlier run of the account is completed first
// (./interrupted.ts).
import { callId } from '../../api/endpoints.js';
import { maxPauseMs } from '../../api/pause-cap.js';
import { MemoryRateBudget, type RateBudget } from '../../api/rate-budget.js';
import type { AccountConfig, Config } from '../../config/schema.js';
import { callLimits, type ExtractProgress, extractAccount } from '../../extract/extract-account.js';
import { type ExtractPlan, workspaceCalls } from '../../extract/plan.js';
import { errorCode, storedMessage } from '../../records/error-code.js';
import { RunHistory } from '../../records/history.js';
import type { Manifest } from '../../records/manifest.js';
import type { PlannedRun } from '../../records/planned-run.js';
import { newRunId } from '../../records/run-id.js';
import { takeRunLease } from '../../records/run-lease.js';
import { runScope } from '../../records/run-scope.js';
import type { StageRecord } from '../../records/run-state.js';
import { combineRunStatuses } from '../../records/run-state.js';
import { runWindowDays } from '../../records/window.js';
import { errorMessage } from '../../util/errors.js';
import { utcDate } from '../../util/time.js';
import { type RunContext, type RunStep, runManifest } from '../context.js';
import { endRun } from '../end.js';
import { recordManifest, secondRecord, startedRun, writePlan } from '../record.js';
import { curateAndLoad, extractStage, NOTHING_TO_CURATE, ranStage, SKIPPED } from '../stages.js';
import { completeInterrupted } from './interrupted.js';
import {
  type AccountRunOptions,
  accountOptions,
  type InlineRunOptions,
  type InlineRunResult,
  leaseTtlMs,
} from './options.js';
import { type AccountPause, accountPause } from './paused-account.js';

export type { InlineRunOptions, InlineRunResult, RunSinks } from './options.js';

/** The configured accounts among `names` (all without any): the names were checked by the command
 *  that took them (src/cli/accounts.ts, the one check of an unknown --account). */
export function selectAccounts(config: Config, names?: readonly string[]): AccountConfig[] {
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
      // The account's history is listed once, for the interrupted run and every stage of the new one.
      const history = new RunHistory(own.store, account.name);
      const c = await completeInterrupted(own, account.name, history);
      if (c) {
        completed.push(c);
        history.recorded(c.run_id);
      }
      return runAccount(own, account, budget, history);
    }),
  );
  return {
    manifests,
    completed,
    unrecorded,
    status: combineRunStatuses(manifests.map((m) => m.status)),
  };
}

/** What the inline driver holds beside the run's context. */
interface Inline {
  o: AccountRunOptions;
  account: AccountConfig;
  brands: readonly string[] | undefined;
}

type InlineStep = RunStep<Inline>;

async function runAccount(
  o: AccountRunOptions,
  account: AccountConfig,
  budget: RateBudget,
  history: RunHistory,
): Promise<Manifest> {
  const kind = o.kind ?? 'sync';
  const started = new Date();
  const runDate = o.runDate ?? utcDate(started);
  const run = { account: account.name, runId: newRunId(kind, started, runDate), runDate };
  const log = o.logger.child({ account: account.name, run_id: run.runId });
  const brands = o.brandsByAccount?.get(account.name) ?? o.brands;
  const c: RunContext = {
    run,
    kind,
    startedAt: started.toISOString(),
    window: { days: 0, buyerIntentDays: o.config.extract.buyerIntentDays },
    scope: runScope(brands, o.endpoints),
    store: o.store,
    history,
    log,
    budget,
  };
  c.window.days = await windowDays(c, o);
  const s: InlineStep = { ...c, driver: { o, account, brands } };
  let manifest: Manifest;
  try {
    manifest = await leasedRun(s);
  } catch (err) {
    // Nothing landed yet: a run no one could see working must not start, and it says so.
    manifest = runManifest(c, {
      error: `run not started: its lease could not be taken: ${errorMessage(err)}`,
      errorCode: 'not_started',
    });
    o.unrecorded?.add(run.runId);
  }
  await endRun({
    config: o.config,
    log,
    manifest,
    store: o.store,
    ledger: () => secondRecord(log, 'end', () => o.recorder?.finished(manifest)),
    awaitAlert: true,
  });
  return manifest;
}

/**
 * The run under its lease: taken first (throws when it cannot be), released once the manifest is
 * written, or marked ended with the reason it could not be.
 */
async function leasedRun(s: InlineStep): Promise<Manifest> {
  const { o } = s.driver;
  const lease = await takeRunLease({
    store: s.store,
    run: s.run,
    kind: s.kind,
    startedAt: s.startedAt,
    ttlMs: leaseTtlMs(o),
    signal: o.leaseSignal,
    logger: s.log,
  });
  // A fresh id is nobody's: a lease already there means two runs were given one id.
  if (!lease) throw new Error(`run id ${s.run.runId} is leased already`);
  await secondRecord(s.log, 'start', () => o.recorder?.started(runManifest(s)));
  s.log.info({ kind: s.kind }, 'run started');
  const plan = startedRun(runManifest(s));
  await writePlan(s.store, s.log, plan);
  const manifest = await recordManifest(
    { store: s.store, manifest: await extractAndFinish(s, plan), logger: s.log, loader: o.loader },
    (runId) => o.unrecorded?.add(runId),
  );
  await lease.release(
    o.unrecorded?.has(s.run.runId) ? { recorded: false, error: manifest.error ?? '' } : { recorded: true },
  );
  return manifest;
}

/** Extracts the account, then curates and loads whatever landed: the run's manifest, not yet written. */
async function extractAndFinish(s: InlineStep, plan: PlannedRun): Promise<Manifest> {
  const paused = await pauseOf(s);
  if (paused) {
    s.log.warn({ err: paused.error }, 'the account is paused: no call made');
    const extract = ranStage('failed', s.startedAt, paused.error);
    return runManifest(s, {
      error: paused.error,
      pausedUntil: paused.until,
      stages: { extract, ...NOTHING_TO_CURATE },
    });
  }
  let extracted: StageRecord | undefined;
  try {
    const result = await extract(s, plan);
    extracted = extractStage(s.startedAt, result);
    // Curate and load whatever landed, also for a partial extraction; nothing landed, nothing to do.
    const finished = result.files.length > 0 ? await curateStages(s) : undefined;
    return runManifest(s, {
      error: result.error,
      errorCode: result.error_code,
      pausedUntil: result.pausedUntil,
      workspaces: result.workspaces,
      files: [...result.files, ...(finished?.files ?? [])],
      loads: finished?.loads ?? [],
      requests: result.requests,
      drift: [...result.drift, ...(finished?.drift ?? [])],
      stages: { extract: extracted, ...(finished?.stages ?? NOTHING_TO_CURATE) },
    });
  } catch (err) {
    // Not a fault of the API (those are in the manifest): the run stops here, and says why.
    const stages = extracted
      ? {
          extract: extracted,
          curate: ranStage('failed', extracted.finished_at ?? s.startedAt, err),
          load: SKIPPED,
        }
      : { extract: ranStage('failed', s.startedAt, err), ...NOTHING_TO_CURATE };
    return runManifest(s, { error: storedMessage(err), errorCode: errorCode(err), stages });
  }
}

/** The extract stage: every workspace of the account, its plan rewritten once /brands names them. */
function extract(s: InlineStep, plan: PlannedRun) {
  const { o, account, brands } = s.driver;
  const extractPlan: ExtractPlan = {
    visibilityDays: s.window.days,
    buyerIntentDays: s.window.buyerIntentDays,
    endpoints: o.endpoints,
  };
  return extractAccount({
    account,
    run: s.run,
    plan: extractPlan,
    brandFilter: brands,
    concurrency: o.config.extract.concurrency,
    limits: callLimits(o.config, s.startedAt),
    store: s.store,
    budget: s.budget,
    logger: s.log,
    signal: o.signal,
    retry: o.retry,
    onProgress: o.onProgress && ((p: ExtractProgress) => o.onProgress?.(account.name, p)),
    onDiscovered: (brandIds) =>
      writePlan(s.store, s.log, {
        ...plan,
        workspaces: [...brandIds],
        workspace_calls: workspaceCalls('_', extractPlan).map(callId),
      }),
  });
}

/** The curate and load stages, here in the run's own process. */
function curateStages(s: InlineStep) {
  const { o } = s.driver;
  return curateAndLoad(s, {
    loader: o.loader,
    partRows: o.partRows,
    latestLock: o.latestLock,
    onLoaded: o.onLoaded,
  });
}

/** The pause an earlier run of the account stopped on, while it lasts; none when the sink cannot say. */
async function pauseOf(s: InlineStep): Promise<AccountPause | undefined> {
  try {
    return await accountPause(s.store, s.run.account, Date.now(), s.history);
  } catch (err) {
    s.log.warn({ err: errorMessage(err) }, 'could not read the last run from the manifests');
    return undefined;
  }
}

/** The run's window by the one rule (src/records/window.ts); the configured one when the sink cannot say. */
async function windowDays(c: RunContext, o: AccountRunOptions): Promise<number> {
  try {
    return await runWindowDays({
      kind: c.kind,
      days: o.days,
      store: c.store,
      account: c.run.account,
      runDate: c.run.runDate,
      extract: o.config.extract,
      history: c.history,
    });
  } catch (err) {
    // Safe: the mark moves only for a run whose window reaches back to it (src/records/last-success.ts).
    c.log.warn(
      { err: errorMessage(err) },
      'could not read the last success from the manifests; using extract.visibilityDays',
    );
    return o.config.extract.visibilityDays;
  }
}
