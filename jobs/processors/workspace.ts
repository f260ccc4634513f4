// The `workspace` job: every call of one workspace, each body landed as it arrives. Landed calls
// are written back into the job's data, so a job resumed after a crash, a retry or a budget delay
// does not spend budget on them again (it rewrites nothing it already has).
import type { Job } from 'bullmq';
import type { WorkspaceEndpoint } from '../../src/api/endpoints.js';
import { BudgetWaitTooLong } from '../../src/api/rate-budget.js';
import { emptyStats } from '../../src/api/request-stats.js';
import { deadlinePassed, deadlineReason, runDeadline } from '../../src/api/run-deadline.js';
import { callLimits, createAccountClient, extractWorkspace } from '../../src/extract/extract-account.js';
import { UnrecoverableError } from '../bullmq.js';
import { accountOf, type JobContext } from '../context.js';
import { type WorkspaceJobData, type WorkspaceJobResult, WorkspaceJobSchema } from '../definitions.js';
import { budgetDelayLimit, stepAsideForBudget } from './budget-delays.js';

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

  const ledgerRun = await ctx.ledger.get(data.runId);
  if (ledgerRun?.stopped) return fail(`not attempted: ${ledgerRun.stopped}`);
  const account = accountOf(ctx, data.account);
  if (!account) return fail(`account ${data.account} is not in this worker's config`);
  // Budget delays (a long Retry-After, a 429 on every call) end here at the latest.
  const startedAt = ledgerRun?.started_at ?? new Date(job.timestamp);
  const deadline = runDeadline(startedAt, ctx.config.jobs.maxRunHours);
  if (deadlinePassed(deadline)) return fail(deadlineReason(deadline));

  const stats = emptyStats();
  const client = createAccountClient({
    account,
    budget: ctx.budget,
    logger: ctx.logger.child({ account: data.account, run_id: data.runId, brand_id: data.brandId }),
    limit: data.limit,
    stats,
    limits: callLimits(ctx.config, startedAt),
    maxBudgetWaitMs: ctx.config.jobs.maxBudgetWaitSeconds * 1000,
  });
  const done = new Set(data.done);
  let ws: Awaited<ReturnType<typeof extractWorkspace>>;
  try {
    ws = await extractWorkspace({
      client,
      run: { account: data.account, runId: data.runId, runDate: data.runDate },
      store: ctx.store,
      plan: {
        visibilityDays: data.plan.visibilityDays,
        buyerIntentDays: data.plan.buyerIntentDays,
        ...(data.plan.endpoints ? { endpoints: data.plan.endpoints as WorkspaceEndpoint[] } : {}),
      },
      brandId: data.brandId,
      skip: done,
      onLanded: async (id) => {
        done.add(id);
        await job.updateData({ ...data, done: [...done] });
      },
    });
  } catch (err) {
    await ctx.ledger.addRequests(data.runId, stats);
    if (err instanceof BudgetWaitTooLong) {
      // No budget soon (the account is paused or saturated): free this worker slot for other
      // accounts and come back later, without spending a retry attempt; a bounded number of times.
      return fail(await stepAsideForBudget(job, token, err, budgetDelayLimit(ctx.config.jobs)));
    }
    if (final) await ctx.ledger.workspaceFinished(data.runId, data.brandId, true);
    throw err;
  }
  await ctx.ledger.addRequests(data.runId, stats);

  if (ws.stop) {
    await ctx.ledger.stop(data.runId, ws.stop.message);
    return fail(ws.stop.message);
  }
  if (ws.failures.length) {
    const message = ws.failures.map((e) => e.message).join('; ');
    // Server trouble may pass: retry the calls that failed (the landed ones are skipped).
    if (!final && ws.failures.every((e) => e.retryable)) throw new Error(message);
    return fail(message);
  }
  await ctx.ledger.workspaceFinished(data.runId, data.brandId, false);
  return { brand_id: data.brandId, status: 'succeeded', drift: ws.drift };
}
