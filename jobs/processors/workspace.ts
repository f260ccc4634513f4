// The `workspace` job: every call of a few workspaces of a run, one workspace after another, each
// body landed as it arrives. Landed calls (and workspaces that failed for good) are written back
// into the job's data before it can run again (a retry, a budget delay) and every lockSeconds
// meanwhile, so a resumed job does not spend budget on them again (raw keys are per run and call,
// so a call repeated after a crash rewrites the same file). Each workspace ends on its own: one
// that fails for good is failed, the others of the job go on; a server error that may pass
// retries the job, which then makes only the calls that have not landed.
import type { Job } from 'bullmq';
import type { WorkspaceEndpoint } from '../../src/api/endpoints.js';
import { BudgetWaitTooLong, Reservation } from '../../src/api/rate-budget.js';
import { emptyStats } from '../../src/api/request-stats.js';
import { deadlinePassed, deadlineReason, runDeadline } from '../../src/api/run-deadline.js';
import {
  callId,
  callLimits,
  createAccountClient,
  extractWorkspace,
} from '../../src/extract/extract-account.js';
import { workspaceCalls } from '../../src/extract/plan.js';
import type { DriftEntry, WorkspaceResult } from '../../src/runs/manifest.js';
import { UnrecoverableError } from '../bullmq.js';
import { accountOf, type JobContext } from '../context.js';
import {
  jobPriority,
  kindOfPriority,
  type WorkspaceJobData,
  type WorkspaceJobResult,
  WorkspaceJobSchema,
} from '../definitions.js';
import { budgetDelayLimit, stepAsideForBudget } from './budget-delays.js';

/**
 * The longest wait for budget a workspace job sits out in its worker slot (or
 * jobs.maxBudgetWaitSeconds when shorter); past it the job steps aside. Slots are shared by every
 * account of a queue: a job waiting there for its account's budget would keep another account's
 * job out, and an account paced at a few requests a second would fill them all (measured: 100
 * accounts at 2 requests/s kept 32 slots waiting and used 42% of their budgets).
 */
const START_WAIT_MS = 1000;

/** Calls settled in one script, and reserved in one once the job's first reservation is used up
 *  (a job of 40 calls: four settles). */
const BATCH = 10;

export async function processWorkspace(
  job: Job<WorkspaceJobData>,
  token: string | undefined,
  ctx: JobContext,
): Promise<WorkspaceJobResult> {
  const data = WorkspaceJobSchema.parse(job.data);
  const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
  const plan = {
    visibilityDays: data.plan.visibilityDays,
    buyerIntentDays: data.plan.buyerIntentDays,
    endpoints: data.plan.endpoints as WorkspaceEndpoint[] | undefined,
  };
  const calls = workspaceCalls('', plan).map(callId);
  const done = new Map(data.brandIds.map((b) => [b, new Set(data.done[b] ?? [])]));
  const failed = new Map(Object.entries(data.failed));
  const landedAll = (brandId: string) => calls.every((c) => done.get(brandId)?.has(c));
  /** Workspaces this attempt has still to work on: neither finished nor failed for good. */
  const open = () => data.brandIds.filter((b) => !failed.has(b) && !landedAll(b));
  const stats = emptyStats();
  const drift: DriftEntry[] = [];
  const progress = () => ({
    done: Object.fromEntries([...done].map(([b, ids]) => [b, [...ids]])),
    failed: Object.fromEntries(failed),
  });
  const outcomes = () =>
    data.brandIds
      .filter((b) => failed.has(b) || landedAll(b))
      .map((workspace) => ({ workspace, failed: failed.has(workspace) }));

  /**
   * The job is over: each workspace has its outcome (those still open fail with `message`). The
   * ledger gets them and the requests in one script. A job none of whose workspaces succeeded,
   * all for one reason, fails as a job (as a job of one workspace did); otherwise it returns
   * each workspace's result for the load job.
   */
  const end = async (message?: string): Promise<WorkspaceJobResult> => {
    if (message !== undefined) for (const b of open()) failed.set(b, message);
    await ctx.ledger.workspacesFinished(data.runId, outcomes(), stats);
    const workspaces: WorkspaceResult[] = data.brandIds.map((brand_id) => {
      const error = failed.get(brand_id);
      return error === undefined ? { brand_id, status: 'succeeded' } : { brand_id, status: 'failed', error };
    });
    const reasons = new Set(failed.values());
    if (failed.size === data.brandIds.length && reasons.size === 1)
      throw new UnrecoverableError([...reasons][0] as string);
    for (const [brand_id, error] of failed)
      ctx.logger.warn(
        { account: data.account, run_id: data.runId, brand_id, err: error },
        'workspace failed',
      );
    return { workspaces, drift };
  };

  const run = await ctx.ledger.progressOf(data.runId);
  if (run.stopped) return end(`not attempted: ${run.stopped}`);
  const account = accountOf(ctx, data.account);
  if (!account) return end(`account ${data.account} is not in this worker's config`);
  // Budget delays (a long Retry-After, a 429 on every call) end here at the latest.
  const startedAt = run.started_at ?? new Date(job.timestamp);
  const deadline = runDeadline(startedAt, ctx.config.jobs.maxRunHours);
  if (deadlinePassed(deadline)) return end(deadlineReason(deadline));

  const toCall = open().reduce((n, b) => n + calls.filter((c) => !done.get(b)?.has(c)).length, 0);
  // The job's calls are reserved at once (one script), so it starts only with budget in hand and
  // rarely has to step aside mid-way (src/api/rate-budget.ts, Reservation). They are settled a
  // few at a time, so the account's next window can use them as they free, and a job that runs
  // into its window's end takes its next calls' slots as they free.
  const budget = new Reservation(ctx.budget, toCall, data.limit.windowMs, BATCH);
  const maxWaitMs = Math.min(ctx.config.jobs.maxBudgetWaitSeconds * 1000, START_WAIT_MS);
  const log = ctx.logger.child({ account: data.account, run_id: data.runId });
  const client = createAccountClient({
    account,
    budget,
    logger: log,
    limit: data.limit,
    stats,
    limits: callLimits(ctx.config, startedAt),
    maxBudgetWaitMs: maxWaitMs,
  });
  // Comes back ahead of new work: its account's window has freed by then (kind order kept).
  const kind = kindOfPriority(job.opts.priority ?? 0);
  const resumed = kind ? jobPriority(kind, 'resumed') : undefined;
  const stepAside = async (err: BudgetWaitTooLong): Promise<WorkspaceJobResult> => {
    await budget.flush();
    // Workspaces finished so far count now; the rest when the job comes back.
    await ctx.ledger.workspacesFinished(data.runId, outcomes(), stats);
    const limit = budgetDelayLimit(ctx.config.jobs);
    const reason = await stepAsideForBudget(job, token, err, limit, progress(), resumed);
    stats.calls = stats.rate_limited = stats.retries = stats.waited_ms = 0;
    return end(reason);
  };
  // A job whose account has no budget now steps aside before its first call rather than hold a
  // worker slot waiting: slots are shared by every account of the queue. It comes back when the
  // budget should be free for it (after the jobs of its account refused before it).
  const startWait = toCall > 0 ? await budget.open(data.account, data.limit) : 0;
  if (startWait > maxWaitMs) return stepAside(new BudgetWaitTooLong(data.account, startWait));

  // Landed calls go into the job's data when the job may run again (a step aside, a retry) and at
  // most every lockSeconds meanwhile (a crash then repeats at most that much), not per call.
  let savedAt = Date.now();
  let unsaved = false;
  const saveProgress = async () => {
    savedAt = Date.now();
    if (!unsaved) return;
    unsaved = false;
    await job.updateData({ ...data, ...progress() });
  };
  const store = await ctx.storeFor(data.account);
  /** Workspaces whose failures may pass (server trouble): the job is retried for them. */
  const retry: string[] = [];
  for (const brandId of open()) {
    const landed = done.get(brandId) as Set<string>;
    let ws: Awaited<ReturnType<typeof extractWorkspace>>;
    try {
      ws = await extractWorkspace({
        client,
        run: { account: data.account, runId: data.runId, runDate: data.runDate },
        store,
        plan,
        brandId,
        skip: landed,
        onLanded: async (id) => {
          landed.add(id);
          unsaved = true;
          if (Date.now() - savedAt >= ctx.config.jobs.lockSeconds * 1000) await saveProgress();
        },
      });
    } catch (err) {
      // No budget soon (the account is paused or saturated): free this worker slot for other
      // accounts and come back later, without spending a retry attempt; a bounded number of times.
      if (err instanceof BudgetWaitTooLong) return stepAside(err);
      await budget.flush();
      if (final) return end(err instanceof Error ? err.message : String(err));
      await ctx.ledger.workspacesFinished(data.runId, outcomes(), stats);
      await saveProgress();
      throw err;
    }
    drift.push(...ws.drift);
    if (ws.stop) {
      await budget.flush();
      await ctx.ledger.stop(data.runId, ws.stop.message);
      failed.set(brandId, ws.stop.message);
      return end(`not attempted: ${ws.stop.message}`);
    }
    if (!ws.failures.length) continue;
    const message = ws.failures.map((e) => e.message).join('; ');
    // Server trouble may pass: the job is retried for the calls that failed (landed ones skipped).
    if (!final && ws.failures.every((e) => e.retryable)) retry.push(message);
    else {
      failed.set(brandId, message);
      unsaved = true;
    }
  }
  await budget.flush();
  if (retry.length) {
    await ctx.ledger.workspacesFinished(data.runId, outcomes(), stats);
    await saveProgress();
    throw new Error(retry.join('; '));
  }
  return end();
}
