// The `workspace` job: every call of one workspace, each body landed as it arrives. Landed calls
// are written back into the job's data before it can run again (a retry, a budget delay) and every
// lockSeconds meanwhile, so a resumed job does not spend budget on them again (raw keys are per
// run and call, so a call repeated after a crash rewrites the same file).
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
import { UnrecoverableError } from '../bullmq.js';
import { accountOf, type JobContext } from '../context.js';
import { type WorkspaceJobData, type WorkspaceJobResult, WorkspaceJobSchema } from '../definitions.js';
import { budgetDelayLimit, stepAsideForBudget } from './budget-delays.js';

/**
 * The longest wait for budget a workspace job sits out in its worker slot (or
 * jobs.maxBudgetWaitSeconds when shorter); past it the job steps aside. Slots are shared by every
 * account of a queue: a job waiting there for its account's budget would keep another account's
 * job out, and an account paced at a few requests a second would fill them all (measured: 100
 * accounts at 2 requests/s kept 32 slots waiting and used 42% of their budgets).
 */
const START_WAIT_MS = 1000;

export async function processWorkspace(
  job: Job<WorkspaceJobData>,
  token: string | undefined,
  ctx: JobContext,
): Promise<WorkspaceJobResult> {
  const data = WorkspaceJobSchema.parse(job.data);
  const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
  const fail = async (message: string): Promise<never> => {
    await ctx.ledger.workspaceFinished(data.runId, data.brandId, true);
    throw new UnrecoverableError(message);
  };

  const run = await ctx.ledger.progressOf(data.runId);
  if (run.stopped) return fail(`not attempted: ${run.stopped}`);
  const account = accountOf(ctx, data.account);
  if (!account) return fail(`account ${data.account} is not in this worker's config`);
  // Budget delays (a long Retry-After, a 429 on every call) end here at the latest.
  const startedAt = run.started_at ?? new Date(job.timestamp);
  const deadline = runDeadline(startedAt, ctx.config.jobs.maxRunHours);
  if (deadlinePassed(deadline)) return fail(deadlineReason(deadline));

  const plan = {
    visibilityDays: data.plan.visibilityDays,
    buyerIntentDays: data.plan.buyerIntentDays,
    ...(data.plan.endpoints ? { endpoints: data.plan.endpoints as WorkspaceEndpoint[] } : {}),
  };
  const done = new Set(data.done);
  const toCall = workspaceCalls(data.brandId, plan).filter((c) => !done.has(callId(c))).length;
  // The job's calls are reserved at once (one script), so it starts only with budget in hand and
  // rarely has to step aside mid-way (src/api/rate-budget.ts, Reservation).
  const budget = new Reservation(ctx.budget, toCall, data.limit.windowMs);
  const maxWaitMs = Math.min(ctx.config.jobs.maxBudgetWaitSeconds * 1000, START_WAIT_MS);
  const stats = emptyStats();
  const client = createAccountClient({
    account,
    budget,
    logger: ctx.logger.child({ account: data.account, run_id: data.runId, brand_id: data.brandId }),
    limit: data.limit,
    stats,
    limits: callLimits(ctx.config, startedAt),
    maxBudgetWaitMs: maxWaitMs,
  });
  // A job whose account has no budget now steps aside before its first call rather than hold a
  // worker slot waiting: slots are shared by every account of the queue. It comes back when the
  // budget should be free for it (after the jobs of its account refused before it).
  const startWait = toCall > 0 ? await budget.open(data.account, data.limit) : 0;
  if (startWait > maxWaitMs) {
    const err = new BudgetWaitTooLong(data.account, startWait);
    return fail(await stepAsideForBudget(job, token, err, budgetDelayLimit(ctx.config.jobs)));
  }
  // Landed calls go into the job's data when the job may run again (a step aside, a retry) and at
  // most every lockSeconds meanwhile (a crash then repeats at most that much), not per call.
  let savedAt = Date.now();
  const saveProgress = async () => {
    savedAt = Date.now();
    if (done.size > data.done.length) await job.updateData({ ...data, done: [...done] });
  };
  let ws: Awaited<ReturnType<typeof extractWorkspace>>;
  try {
    ws = await extractWorkspace({
      client,
      run: { account: data.account, runId: data.runId, runDate: data.runDate },
      store: await ctx.storeFor(data.account),
      plan,
      brandId: data.brandId,
      skip: done,
      onLanded: async (id) => {
        done.add(id);
        if (Date.now() - savedAt >= ctx.config.jobs.lockSeconds * 1000) await saveProgress();
      },
    });
  } catch (err) {
    await budget.flush();
    await ctx.ledger.addRequests(data.runId, stats);
    if (err instanceof BudgetWaitTooLong) {
      // No budget soon (the account is paused or saturated): free this worker slot for other
      // accounts and come back later, without spending a retry attempt; a bounded number of times.
      const reason = await stepAsideForBudget(job, token, err, budgetDelayLimit(ctx.config.jobs), {
        done: [...done],
      });
      return fail(reason);
    }
    if (final) await ctx.ledger.workspaceFinished(data.runId, data.brandId, true);
    else await saveProgress();
    throw err;
  }
  await budget.flush();

  if (ws.stop) {
    await ctx.ledger.addRequests(data.runId, stats);
    await ctx.ledger.stop(data.runId, ws.stop.message);
    return fail(ws.stop.message);
  }
  if (ws.failures.length) {
    await ctx.ledger.addRequests(data.runId, stats);
    const message = ws.failures.map((e) => e.message).join('; ');
    // Server trouble may pass: retry the calls that failed (the landed ones are skipped).
    if (!final && ws.failures.every((e) => e.retryable)) {
      await saveProgress();
      throw new Error(message);
    }
    return fail(message);
  }
  // Its requests and its place in the run's progress in one script.
  await ctx.ledger.workspaceFinished(data.runId, data.brandId, false, stats);
  return { brand_id: data.brandId, status: 'succeeded', drift: ws.drift };
}
