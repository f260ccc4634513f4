// The `run` job: settle the run's id and window, discover the account's workspaces (/me, /brands,
// landed), then add the run's flow: workspace jobs of a few workspaces each under a `load` parent
// that runs when every child is done (a child that fails for good is ignored, not blocking).
import type { Job } from 'bullmq';
import type { WorkspaceEndpoint } from '../../src/api/endpoints.js';
import { ApiError } from '../../src/api/errors.js';
import { BudgetWaitTooLong } from '../../src/api/rate-budget.js';
import { emptyStats } from '../../src/api/request-stats.js';
import { deadlinePassed, deadlineReason, runDeadline } from '../../src/api/run-deadline.js';
import { callLimits, createAccountClient, discoverWorkspaces } from '../../src/extract/extract-account.js';
import { workspaceCalls } from '../../src/extract/plan.js';
import { runFinished } from '../../src/ops/run-finished.js';
import { recordRun } from '../../src/pipeline/record-run.js';
import { lastSucceededRun } from '../../src/runs/history.js';
import { runScope } from '../../src/runs/last-success.js';
import { assembleManifest, readManifest } from '../../src/runs/manifest.js';
import { logicalRunId } from '../../src/runs/run-id.js';
import { accountWindowDays } from '../../src/runs/window.js';
import { manifestKey } from '../../src/sinks/layout.js';
import { addDays, utcDate } from '../../src/util/time.js';
import { UnrecoverableError } from '../bullmq.js';
import { accountOf, type JobContext } from '../context.js';
import {
  JOB,
  jobIds,
  jobOptions,
  jobPriority,
  type LoadJobData,
  type RunJobData,
  RunJobSchema,
  type WorkspaceJobData,
  workspacesPerJob,
} from '../definitions.js';
import type { LedgerRun } from '../ledger.js';
import { queueName } from '../queues.js';
import { dueAt } from '../schedules.js';
import { budgetDelayLimit, stepAsideForBudget } from './budget-delays.js';

export interface RunJobResult {
  runId: string;
  workspaces: number;
  skipped?: string;
}

const isFinished = (r: LedgerRun | undefined) =>
  r !== undefined && ['succeeded', 'partial', 'failed'].includes(r.status);

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

export async function processRun(
  job: Job<RunJobData>,
  token: string | undefined,
  ctx: JobContext,
): Promise<RunJobResult> {
  const data = RunJobSchema.parse(job.data);
  const account = accountOf(ctx, data.account);
  if (!account) throw new UnrecoverableError(`account ${data.account} is not in this worker's config`);
  // A scheduled nightly job carries no id: its logical date is the UTC day it was due, not the
  // day BullMQ created the job (when the previous one fired, or when a worker restarted).
  const runDate = data.runDate ?? utcDate(new Date(dueAt(job)));
  const runId = data.runId ?? logicalRunId(data.kind, account.name, runDate);
  const log = ctx.logger.child({ account: account.name, run_id: runId, job: job.id });

  const store = await ctx.storeFor(account.name);
  await ctx.ledger.create({ run_id: runId, account: account.name, kind: data.kind, run_date: runDate });
  let existing = await ctx.ledger.get(runId);
  if (!isFinished(existing)) {
    // Redis may have lost the run (a restart without persistence): its manifest is the record.
    const manifest = await readManifest(store, account.name, runId);
    if (manifest?.status === 'succeeded') {
      await ctx.ledger.restore(manifest);
      existing = await ctx.ledger.get(runId);
    }
  }
  if (existing && isFinished(existing)) {
    // The same logical run again (a schedule firing twice, a re-added job): it ran already.
    log.info({ status: existing.status }, 'run already finished; not running it again');
    return { runId, workspaces: existing.workspaces_total ?? 0, skipped: `already ${existing.status}` };
  }

  const days =
    data.days ??
    (data.kind === 'nightly'
      ? await accountWindowDays({
          store,
          account: account.name,
          runDate,
          extract: ctx.config.extract,
          lastSuccessRunDate: () => lastSuccessDate(ctx, account.name),
        })
      : data.kind === 'backfill'
        ? ctx.config.extract.backfillDays
        : ctx.config.extract.visibilityDays);
  const startedAt = existing?.started_at ?? new Date().toISOString();
  const scope = runScope(data.brands, data.endpoints);
  await ctx.ledger.update(runId, {
    status: 'running',
    started_at: startedAt,
    visibility_days: days,
    window_from: addDays(runDate, 1 - days),
    window_to: runDate,
    scope,
  });

  const stats = emptyStats();
  const client = createAccountClient({
    account,
    budget: ctx.budget,
    logger: log,
    stats,
    limits: callLimits(ctx.config, startedAt),
    maxBudgetWaitMs: ctx.config.jobs.maxBudgetWaitSeconds * 1000,
  });
  const run = { account: account.name, runId, runDate };
  /** Nothing more will happen for this run: record why, in the manifest and the ledger. */
  const endRun = async (message: string): Promise<never> => {
    const manifest = assembleManifest({
      run,
      kind: data.kind,
      startedAt,
      visibilityDays: days,
      buyerIntentDays: ctx.config.extract.buyerIntentDays,
      scope,
      error: message,
      workspaces: [],
      files: [],
      loads: [],
      requests: stats,
      drift: [],
    });
    // Recorded like every finished run: its sync_runs row says why the whole account stopped.
    const loader = await ctx.loaderFor(account.name);
    const recorded = await recordRun({ store, manifest, logger: log, loader });
    const ledgerRun = (await ctx.ledger.get(runId))!;
    await ctx.ledger.finish(ledgerRun, 'failed', {
      error: message,
      manifest_key: manifestKey(account.name, runId),
    });
    log.error({ err: message }, 'run failed');
    void runFinished({ config: ctx.config, logger: log, manifest: recorded });
    throw new UnrecoverableError(message);
  };
  // A run job back from budget delays past its deadline calls nothing.
  const deadline = runDeadline(startedAt, ctx.config.jobs.maxRunHours);
  if (deadlinePassed(deadline)) return endRun(deadlineReason(deadline));

  let discovery: Awaited<ReturnType<typeof discoverWorkspaces>>;
  try {
    discovery = await discoverWorkspaces({
      client,
      account,
      run,
      store,
      ...(data.brands?.length ? { brandFilter: data.brands } : {}),
    });
  } catch (err) {
    await ctx.ledger.addRequests(runId, stats);
    if (err instanceof BudgetWaitTooLong)
      return endRun(
        await stepAsideForBudget(
          job,
          token,
          err,
          budgetDelayLimit(ctx.config.jobs),
          {},
          // Its account has started: it comes back ahead of the runs that have not.
          jobPriority(data.kind, 'resumed'),
        ),
      );
    const final =
      (err instanceof ApiError && !err.retryable) || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    if (!final) throw err;
    return endRun(err instanceof Error ? err.message : String(err));
  }
  await ctx.ledger.addRequests(runId, stats);
  await ctx.ledger.update(runId, { workspaces_total: discovery.brandIds.length });

  const plan = {
    visibilityDays: days,
    buyerIntentDays: [...ctx.config.extract.buyerIntentDays],
    ...(data.endpoints?.length ? { endpoints: data.endpoints } : {}),
  };
  const callsPerWorkspace = workspaceCalls('', {
    visibilityDays: days,
    buyerIntentDays: plan.buyerIntentDays,
    ...(data.endpoints?.length ? { endpoints: data.endpoints as WorkspaceEndpoint[] } : {}),
  }).length;
  const per = workspacesPerJob(discovery.limit, callsPerWorkspace);
  const load: LoadJobData = {
    account: account.name,
    runId,
    runDate,
    kind: data.kind,
    brandIds: discovery.brandIds,
    visibilityDays: days,
    buyerIntentDays: plan.buyerIntentDays,
    startedAt,
    workspacesPerJob: per,
    scope,
    drift: discovery.drift,
  };
  const batches: string[][] = [];
  for (let i = 0; i < discovery.brandIds.length; i += per) batches.push(discovery.brandIds.slice(i, i + per));
  // The run's first job is served before the other jobs of started runs, and those before the runs
  // not yet started (definitions.ts, STAGE): each account's calls come in a short burst. A job
  // whose first call falls in a later window of the account's budget waits (delayed) until that
  // window opens, and then goes first: started at once it would only be refused, told to come
  // back after slots that the jobs before it have not settled yet, which is later than needed.
  const windowOf = (i: number) =>
    Math.floor((stats.calls + i * per * callsPerWorkspace) / discovery.limit.requests);
  await ctx.flow.add({
    name: JOB.load,
    queueName: queueName(account.name),
    data: load,
    opts: { ...jobOptions(ctx.config, data.kind, 'finish'), jobId: jobIds.load(runId) },
    children: batches.map((brandIds, i) => ({
      name: JOB.workspace,
      queueName: queueName(account.name),
      data: {
        account: account.name,
        runId,
        runDate,
        brandIds,
        plan,
        limit: discovery.limit,
        done: {},
        failed: {},
      } satisfies WorkspaceJobData,
      opts: {
        ...jobOptions(ctx.config, data.kind, i === 0 ? 'opened' : windowOf(i) > 0 ? 'resumed' : 'started'),
        ...(windowOf(i) > 0 ? { delay: windowOf(i) * discovery.limit.windowMs } : {}),
        jobId: jobIds.workspace(runId, i),
        ignoreDependencyOnFailure: true,
      },
    })),
  });
  await job.updateProgress({ workspaces: discovery.brandIds.length });
  log.info({ workspaces: discovery.brandIds.length, days }, 'run fanned out');
  return { runId, workspaces: discovery.brandIds.length };
}
