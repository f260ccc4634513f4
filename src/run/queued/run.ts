// The `run` job: settle the run's id and window, discover the account's workspaces (/me, /brands,
// landed), then add the run's flow: workspace jobs of a few workspaces each under a workspaces-done
// parent (JOB.workspacesDone) that runs when every child is done (a child that fails for good is ignored, not blocking).
import type { Job } from 'bullmq';
import { UnrecoverableError } from '../../../jobs/bullmq.js';
import {
  JOB,
  jobIds,
  jobOptions,
  jobPriority,
  type PlannedJob,
  planWorkspaceJobs,
  type RunJobData,
  RunJobSchema,
  type WorkspaceJobData,
  type WorkspacesDoneJobData,
  workspacesPerJob,
} from '../../../jobs/definitions.js';
import type { LedgerRun } from '../../../jobs/ledger.js';
import { queueName } from '../../../jobs/queues.js';
import { dueAt } from '../../../jobs/schedules.js';
import { accountOf } from '../../../jobs/worker-types.js';
import type { WorkspaceEndpoint } from '../../api/endpoints.js';
import { ApiError } from '../../api/errors.js';
import { BudgetWaitTooLong } from '../../api/rate-budget.js';
import { emptyStats, type RequestStats } from '../../api/request-stats.js';
import { deadlinePassed, deadlineReason, runDeadline } from '../../api/run-deadline.js';
import type { AccountConfig } from '../../config/schema.js';
import { callLimits, type Discovery, discoverWorkspaces } from '../../extract/extract-account.js';
import { workspaceCalls } from '../../extract/plan.js';
import { errorCode, storedMessage } from '../../records/error-code.js';
import { lastSucceededRun, RunHistory } from '../../records/history.js';
import { readManifest } from '../../records/manifest.js';
import type { RunCoordinates } from '../../records/run-coordinates.js';
import { logicalRunId, type RunKind } from '../../records/run-id.js';
import { runScope } from '../../records/run-scope.js';
import { isFinishedStatus } from '../../records/run-state.js';
import { runWindowDays } from '../../records/window.js';
import type { ObjectStore } from '../../sinks/object-store.js';
import type { RunErrorCode } from '../../util/errors.js';
import { addDays, utcDate } from '../../util/time.js';
import { type RunContext, type RunStep, runManifest } from '../context.js';
import { endRun } from '../end.js';
import { recordRun } from '../record-run.js';
import { NOTHING_TO_CURATE, ranStage } from '../stages.js';
import { budgetDelayLimit, stepAsideForBudget } from './budget-delays.js';
import type { JobContext } from './context.js';
import { withLedgerAndReports } from './ledger-end.js';

export interface RunJobResult {
  runId: string;
  workspaces: number;
  skipped?: string;
}

/**
 * Run date of the account's last success: the ledger's, or when Redis has none (lost in a restart
 * without persistence, or a new Redis) the sink's, which is then put back into the ledger.
 */
async function lastSuccessDate(ctx: JobContext, history: RunHistory): Promise<string | undefined> {
  const { account } = history;
  const inLedger = await ctx.ledger.lastSuccess(account);
  if (inLedger) return inLedger.run_date;
  const manifest = await lastSucceededRun(history.store, account, history);
  if (!manifest) return undefined;
  await ctx.ledger.restore(manifest);
  ctx.logger.info(
    { account, run_id: manifest.run_id, run_date: manifest.run_date },
    'last success rebuilt from the manifests in the sink (Redis had none)',
  );
  return manifest.run_date;
}

/** What the run job holds beside the run's context (src/run/context.ts). */
interface Queued {
  job: Job<RunJobData>;
  token: string | undefined;
  ctx: JobContext;
  data: RunJobData;
  account: AccountConfig;
  /** The run's counters of requests, shared by its discovery client. */
  stats: RequestStats;
}

type QueuedStep = RunStep<Queued>;

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

  const existing = await ledgerRecord(ctx, data.kind, run, store);
  if (existing && isFinishedStatus(existing.status)) {
    // The same logical run again (a schedule firing twice, a re-added job): it ran already.
    log.info({ status: existing.status }, 'run already finished; not running it again');
    return {
      runId: run.runId,
      workspaces: existing.workspaces_total ?? 0,
      skipped: `already ${existing.status}`,
    };
  }
  const c = await startRun({ run, kind: data.kind, store, log, budget: ctx.budget }, ctx, data, existing);
  const s: QueuedStep = { ...c, driver: { job, token, ctx, data, account, stats: emptyStats() } };
  // A run job back from budget delays past its deadline calls nothing.
  const deadline = runDeadline(s.startedAt, ctx.config.jobs.maxRunHours);
  if (deadlinePassed(deadline)) return failRun(s, deadlineReason(deadline), 'deadline_passed');
  const discovery = await discover(s);
  await fanOut(s, discovery);
  await job.updateProgress({ workspaces: discovery.brandIds.length });
  log.info({ workspaces: discovery.brandIds.length, days: s.window.days }, 'run fanned out');
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
async function ledgerRecord(
  ctx: JobContext,
  kind: RunKind,
  run: RunCoordinates,
  store: ObjectStore,
): Promise<LedgerRun | undefined> {
  await ctx.ledger.create({
    run_id: run.runId,
    account: run.account,
    kind,
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

/**
 * Settles the run's context (its start and window kept from an earlier try) and marks it running:
 * the window by the one rule (src/records/window.ts), the same as `run --once`.
 */
async function startRun(
  c: Pick<RunContext, 'run' | 'kind' | 'store' | 'log' | 'budget'>,
  ctx: JobContext,
  data: RunJobData,
  existing: LedgerRun | undefined,
): Promise<RunContext> {
  const { run } = c;
  const history = new RunHistory(c.store, run.account);
  const days = await runWindowDays({
    kind: data.kind,
    days: data.days,
    store: c.store,
    account: run.account,
    runDate: run.runDate,
    extract: ctx.config.extract,
    lastSuccessRunDate: () => lastSuccessDate(ctx, history),
  });
  const started: RunContext = {
    ...c,
    history,
    startedAt: existing?.started_at ?? new Date().toISOString(),
    window: { days, buyerIntentDays: ctx.config.extract.buyerIntentDays },
    scope: runScope(data.brands, data.endpoints),
  };
  await ctx.ledger.update(run.runId, {
    status: 'running',
    started_at: started.startedAt,
    visibility_days: days,
    window_from: addDays(run.runDate, 1 - days),
    window_to: run.runDate,
    scope: started.scope,
  });
  return started;
}

/** The account's workspaces and its limit, counted in the ledger; a failure that will not pass ends the run. */
async function discover(s: QueuedStep): Promise<Discovery> {
  const { ctx, account, data, stats } = s.driver;
  const { run } = s;
  let discovery: Discovery;
  try {
    discovery = await discoverWorkspaces({
      client: {
        account,
        budget: ctx.budget,
        logger: s.log,
        stats,
        limits: callLimits(ctx.config, s.startedAt),
        maxBudgetWaitMs: ctx.config.jobs.maxBudgetWaitSeconds * 1000,
      },
      run,
      store: s.store,
      // An empty filter means every workspace, as no filter does.
      brandFilter: data.brands,
    });
  } catch (err) {
    await ctx.ledger.addRequests(run.runId, stats);
    return failRun(s, await discoveryFailure(s.driver, err), errorCode(err));
  }
  await ctx.ledger.addRequests(run.runId, stats);
  await ctx.ledger.update(run.runId, { workspaces_total: discovery.brandIds.length });
  return discovery;
}

/**
 * Why a failed discovery ends the run. Throws instead when the run job comes back: stepped aside
 * for budget (DelayedError), or retried by BullMQ for a failure that may pass.
 */
async function discoveryFailure({ job, token, ctx, data }: Queued, err: unknown): Promise<string> {
  if (err instanceof BudgetWaitTooLong) {
    // Its account has started: it comes back ahead of the runs that have not.
    const priority = jobPriority(data.kind, 'resumed');
    return stepAsideForBudget(job, token, err, budgetDelayLimit(ctx.config.jobs), {}, priority);
  }
  const final =
    (err instanceof ApiError && !err.retryable) || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
  if (!final) throw err;
  return storedMessage(err);
}

/** The run fails before its flow (deadline passed, discovery failed): recorded with why, and ended. */
async function failRun(s: QueuedStep, message: string, code: RunErrorCode): Promise<never> {
  const { ctx } = s.driver;
  const { run, store, log } = s;
  const extract = ranStage('failed', s.startedAt, message);
  const manifest = runManifest(s, {
    error: message,
    errorCode: code,
    requests: s.driver.stats,
    stages: { extract, ...NOTHING_TO_CURATE },
  });
  // Recorded like every finished run: its sync_runs row says why the whole account stopped.
  const loader = await ctx.loaderFor(run.account);
  const recorded = await recordRun({ store, manifest, logger: log, loader });
  log.error({ err: message }, 'run failed');
  await endRun(
    withLedgerAndReports(ctx, recorded, log, { error: message, errorCode: code, workspaces: false, store }),
  );
  throw new UnrecoverableError(message);
}

/**
 * The run's flow: its workspaces-done job, whose children are workspace jobs of a few workspaces each.
 * The run's first job is served before the other jobs of started runs, and those before the runs
 * not yet started (definitions.ts, STAGE): each account's calls come in a short burst. A job
 * whose first call falls in a later window of the account's budget waits (delayed) until that
 * window opens, and then goes first: started at once it would only be refused, told to come
 * back after slots that the jobs before it have not settled yet, which is later than needed.
 */
async function fanOut(s: QueuedStep, discovery: Discovery): Promise<void> {
  const { ctx, data, stats } = s.driver;
  const { run } = s;
  const { brandIds, limit } = discovery;
  const plan = {
    visibilityDays: s.window.days,
    buyerIntentDays: [...s.window.buyerIntentDays],
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
    callsBefore: stats.calls,
  });
  const stage = (job: PlannedJob, i: number) => (i === 0 ? 'opened' : job.window > 0 ? 'resumed' : 'started');
  const queue = queueName(run.account);
  await ctx.flow.add({
    name: JOB.workspacesDone,
    queueName: queue,
    data: workspacesDoneJobData(s, discovery, per, jobs),
    opts: { ...jobOptions(ctx.config, data.kind, 'finish'), jobId: jobIds.workspacesDone(run.runId) },
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

/** The workspaces-done job's data: what the run covers, for its manifest. */
function workspacesDoneJobData(
  s: QueuedStep,
  discovery: Discovery,
  per: number,
  jobs: readonly PlannedJob[],
): WorkspacesDoneJobData {
  return {
    ...s.run,
    kind: s.kind,
    brandIds: discovery.brandIds,
    visibilityDays: s.window.days,
    buyerIntentDays: [...s.window.buyerIntentDays],
    startedAt: s.startedAt,
    workspacesPerJob: per,
    jobSizes: jobs.map((j) => j.brandIds.length),
    scope: s.scope,
    drift: discovery.drift,
  };
}
