// The `run` job: settle the run's id and window, discover the account's workspaces (/me, /brands,
// landed), then add the run's flow: workspace jobs of a few workspaces each under a `load` parent
// that runs when every child is done (a child that fails for good is ignored, not blocking).
import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import type { WorkspaceEndpoint } from '../../src/api/endpoints.js';
import { ApiError } from '../../src/api/errors.js';
import { BudgetWaitTooLong } from '../../src/api/rate-budget.js';
import { emptyStats, type RequestStats } from '../../src/api/request-stats.js';
import { deadlinePassed, deadlineReason, runDeadline } from '../../src/api/run-deadline.js';
import type { AccountConfig } from '../../src/config/schema.js';
import { callLimits, type Discovery, discoverWorkspaces } from '../../src/extract/extract-account.js';
import { workspaceCalls } from '../../src/extract/plan.js';
import { runFinished } from '../../src/ops/run-finished.js';
import { recordRun } from '../../src/pipeline/record-run.js';
import { errorCode } from '../../src/runs/error-code.js';
import { lastSucceededRun } from '../../src/runs/history.js';
import { runScope } from '../../src/runs/last-success.js';
import { assembleManifest, readManifest } from '../../src/runs/manifest.js';
import type { RunCoordinates } from '../../src/runs/run-coordinates.js';
import { logicalRunId } from '../../src/runs/run-id.js';
import { isFinishedStatus } from '../../src/runs/run-status.js';
import { accountWindowDays, configuredWindowDays } from '../../src/runs/window.js';
import { manifestKey } from '../../src/sinks/layout.js';
import type { ObjectStore } from '../../src/sinks/object-store.js';
import { errorMessage, type RunErrorCode } from '../../src/util/errors.js';
import { addDays, utcDate } from '../../src/util/time.js';
import { UnrecoverableError } from '../bullmq.js';
import { accountOf, type JobContext } from '../context.js';
import {
  JOB,
  jobIds,
  jobOptions,
  jobPriority,
  type LoadJobData,
  type PlannedJob,
  planWorkspaceJobs,
  type RunJobData,
  RunJobSchema,
  type WorkspaceJobData,
  workspacesPerJob,
} from '../definitions.js';
import type { LedgerRun } from '../ledger.js';
import { queueName } from '../queues.js';
import { queueScheduledReports } from '../report-trigger.js';
import { dueAt } from '../schedules.js';
import { budgetDelayLimit, stepAsideForBudget } from './budget-delays.js';

export interface RunJobResult {
  runId: string;
  workspaces: number;
  skipped?: string;
}

/**
 * Run date of the account's last success: the ledger's, or when Redis has none (lost in a restart
 * without persistence, or a new Redis) the sink's, which is then put back into the ledger.
 */
async function lastSuccessDate(ctx: JobContext, account: string): Promise<string | undefined> {
  const inLedger = await ctx.ledger.lastSuccess(account);
  if (inLedger) return inLedger.run_date;
  const manifest = await lastSucceededRun(await ctx.storeFor(account), account);
  if (!manifest) return undefined;
  await ctx.ledger.restore(manifest);
  ctx.logger.info(
    { account, run_id: manifest.run_id, run_date: manifest.run_date },
    'last success rebuilt from the manifests in the sink (Redis had none)',
  );
  return manifest.run_date;
}

/** What the steps of one run job share. */
interface RunStep {
  job: Job<RunJobData>;
  token: string | undefined;
  ctx: JobContext;
  data: RunJobData;
  account: AccountConfig;
  run: RunCoordinates;
  store: ObjectStore;
  log: Logger;
  /** The run's counters of requests, shared by its discovery client. */
  stats: RequestStats;
}

/** What the run covers, settled when it starts (and kept by a run job that comes back). */
interface StartedRun {
  startedAt: string;
  days: number;
  scope: ReturnType<typeof runScope>;
}

export async function processRun(
  job: Job<RunJobData>,
  token: string | undefined,
  ctx: JobContext,
): Promise<RunJobResult> {
  const data = RunJobSchema.parse(job.data);
  const account = accountOf(ctx, data.account);
  if (!account) throw new UnrecoverableError(`account ${data.account} is not in this worker's config`);
  const run = runCoordinatesOf(job, data, account.name);
  const log = ctx.logger.child({ account: account.name, run_id: run.runId, job: job.id });
  const store = await ctx.storeFor(account.name);
  const s: RunStep = { job, token, ctx, data, account, run, store, log, stats: emptyStats() };

  const existing = await ledgerRecord(s);
  if (existing && isFinishedStatus(existing.status)) {
    // The same logical run again (a schedule firing twice, a re-added job): it ran already.
    log.info({ status: existing.status }, 'run already finished; not running it again');
    return {
      runId: run.runId,
      workspaces: existing.workspaces_total ?? 0,
      skipped: `already ${existing.status}`,
    };
  }
  const window = await startRun(s, existing);
  // A run job back from budget delays past its deadline calls nothing.
  const deadline = runDeadline(window.startedAt, ctx.config.jobs.maxRunHours);
  if (deadlinePassed(deadline)) return endRun(s, window, deadlineReason(deadline), 'deadline_passed');
  const discovery = await discover(s, window);
  await fanOut(s, window, discovery);
  await job.updateProgress({ workspaces: discovery.brandIds.length });
  log.info({ workspaces: discovery.brandIds.length, days: window.days }, 'run fanned out');
  return { runId: run.runId, workspaces: discovery.brandIds.length };
}

/**
 * The run's date and id. A scheduled nightly job carries neither: its logical date is the UTC day
 * it was due, not the day BullMQ created the job (when the previous one fired, or when a worker
 * restarted).
 */
function runCoordinatesOf(job: Job<RunJobData>, data: RunJobData, account: string): RunCoordinates {
  const runDate = data.runDate ?? utcDate(new Date(dueAt(job)));
  return { account, runId: data.runId ?? logicalRunId(data.kind, account, runDate), runDate };
}

/** The run's ledger record, created if new; a run Redis lost is restored from its manifest. */
async function ledgerRecord({ ctx, data, run, store }: RunStep): Promise<LedgerRun | undefined> {
  await ctx.ledger.create({
    run_id: run.runId,
    account: run.account,
    kind: data.kind,
    run_date: run.runDate,
  });
  const existing = await ctx.ledger.get(run.runId);
  if (isFinishedStatus(existing?.status)) return existing;
  // Redis may have lost the run (a restart without persistence): its manifest is the record.
  const manifest = await readManifest(store, run.account, run.runId);
  if (manifest?.status !== 'succeeded') return existing;
  await ctx.ledger.restore(manifest);
  return ctx.ledger.get(run.runId);
}

/** Settles the run's window (kept from an earlier try) and marks it running. */
async function startRun(s: RunStep, existing: LedgerRun | undefined): Promise<StartedRun> {
  const { ctx, data, run } = s;
  const days =
    data.days ??
    configuredWindowDays(data.kind, ctx.config.extract) ??
    (await accountWindowDays({
      store: s.store,
      account: run.account,
      runDate: run.runDate,
      extract: ctx.config.extract,
      lastSuccessRunDate: () => lastSuccessDate(ctx, run.account),
    }));
  const window: StartedRun = {
    startedAt: existing?.started_at ?? new Date().toISOString(),
    days,
    scope: runScope(data.brands, data.endpoints),
  };
  await ctx.ledger.update(run.runId, {
    status: 'running',
    started_at: window.startedAt,
    visibility_days: days,
    window_from: addDays(run.runDate, 1 - days),
    window_to: run.runDate,
    scope: window.scope,
  });
  return window;
}

/** The account's workspaces and its limit, counted in the ledger; a failure that will not pass ends the run. */
async function discover(s: RunStep, window: StartedRun): Promise<Discovery> {
  const { ctx, account, run } = s;
  let discovery: Discovery;
  try {
    discovery = await discoverWorkspaces({
      client: {
        account,
        budget: ctx.budget,
        logger: s.log,
        stats: s.stats,
        limits: callLimits(ctx.config, window.startedAt),
        maxBudgetWaitMs: ctx.config.jobs.maxBudgetWaitSeconds * 1000,
      },
      run,
      store: s.store,
      // An empty filter means every workspace, as no filter does.
      brandFilter: s.data.brands,
    });
  } catch (err) {
    await ctx.ledger.addRequests(run.runId, s.stats);
    return endRun(s, window, await discoveryFailure(s, err), errorCode(err));
  }
  await ctx.ledger.addRequests(run.runId, s.stats);
  await ctx.ledger.update(run.runId, { workspaces_total: discovery.brandIds.length });
  return discovery;
}

/**
 * Why a failed discovery ends the run. Throws instead when the run job comes back: stepped aside
 * for budget (DelayedError), or retried by BullMQ for a failure that may pass.
 */
async function discoveryFailure({ job, token, ctx, data }: RunStep, err: unknown): Promise<string> {
  if (err instanceof BudgetWaitTooLong) {
    // Its account has started: it comes back ahead of the runs that have not.
    const priority = jobPriority(data.kind, 'resumed');
    return stepAsideForBudget(job, token, err, budgetDelayLimit(ctx.config.jobs), {}, priority);
  }
  const final =
    (err instanceof ApiError && !err.retryable) || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
  if (!final) throw err;
  return errorMessage(err);
}

/** Nothing more will happen for this run: record why, in the manifest and the ledger. */
async function endRun(s: RunStep, window: StartedRun, message: string, code: RunErrorCode): Promise<never> {
  const { ctx, data, run, store, log } = s;
  const manifest = assembleManifest({
    run,
    kind: data.kind,
    startedAt: window.startedAt,
    visibilityDays: window.days,
    buyerIntentDays: ctx.config.extract.buyerIntentDays,
    scope: window.scope,
    error: message,
    errorCode: code,
    workspaces: [],
    files: [],
    loads: [],
    requests: s.stats,
    drift: [],
  });
  // Recorded like every finished run: its sync_runs row says why the whole account stopped.
  const loader = await ctx.loaderFor(run.account);
  const recorded = await recordRun({ store, manifest, logger: log, loader });
  const ledgerRun = (await ctx.ledger.get(run.runId))!;
  await ctx.ledger.finish(ledgerRun, 'failed', {
    error: message,
    error_code: code,
    manifest_key: manifestKey(run.account, run.runId),
  });
  log.error({ err: message }, 'run failed');
  void runFinished({ config: ctx.config, logger: log, manifest: recorded });
  await queueScheduledReports(ctx, recorded, log);
  throw new UnrecoverableError(message);
}

/**
 * The run's flow: its load job, whose children are workspace jobs of a few workspaces each.
 * The run's first job is served before the other jobs of started runs, and those before the runs
 * not yet started (definitions.ts, STAGE): each account's calls come in a short burst. A job
 * whose first call falls in a later window of the account's budget waits (delayed) until that
 * window opens, and then goes first: started at once it would only be refused, told to come
 * back after slots that the jobs before it have not settled yet, which is later than needed.
 */
async function fanOut(s: RunStep, window: StartedRun, discovery: Discovery): Promise<void> {
  const { ctx, data, run } = s;
  const { brandIds, limit } = discovery;
  const plan = {
    visibilityDays: window.days,
    buyerIntentDays: [...ctx.config.extract.buyerIntentDays],
    // Job data is JSON: no endpoints (every one) is an absent key, never an empty list.
    endpoints: data.endpoints?.length ? data.endpoints : undefined,
  };
  const callsPerWorkspace = workspaceCalls('', {
    ...plan,
    endpoints: plan.endpoints as WorkspaceEndpoint[],
  }).length;
  const per = workspacesPerJob(limit, callsPerWorkspace);
  const jobs = planWorkspaceJobs(brandIds, {
    per,
    callsPerWorkspace,
    requests: limit.requests,
    callsBefore: s.stats.calls,
  });
  const stage = (job: PlannedJob, i: number) => (i === 0 ? 'opened' : job.window > 0 ? 'resumed' : 'started');
  const queue = queueName(run.account);
  await ctx.flow.add({
    name: JOB.load,
    queueName: queue,
    data: loadJobData(s, window, discovery, per, jobs),
    opts: { ...jobOptions(ctx.config, data.kind, 'finish'), jobId: jobIds.load(run.runId) },
    children: jobs.map((job, i) => ({
      name: JOB.workspace,
      queueName: queue,
      data: { ...run, brandIds: job.brandIds, plan, limit, done: {}, failed: {} } satisfies WorkspaceJobData,
      opts: {
        ...jobOptions(ctx.config, data.kind, stage(job, i)),
        // Options go to BullMQ's scripts packed with msgpack, where an undefined key is not absent.
        ...(job.window > 0 ? { delay: job.window * limit.windowMs } : {}),
        jobId: jobIds.workspace(run.runId, i),
        ignoreDependencyOnFailure: true,
      },
    })),
  });
}

/** The load job's data: what the run covers, for its manifest. */
function loadJobData(
  { ctx, data, run }: RunStep,
  window: StartedRun,
  discovery: Discovery,
  per: number,
  jobs: readonly PlannedJob[],
): LoadJobData {
  return {
    ...run,
    kind: data.kind,
    brandIds: discovery.brandIds,
    visibilityDays: window.days,
    buyerIntentDays: [...ctx.config.extract.buyerIntentDays],
    startedAt: window.startedAt,
    workspacesPerJob: per,
    jobSizes: jobs.map((j) => j.brandIds.length),
    scope: window.scope,
    drift: discovery.drift,
  };
}
