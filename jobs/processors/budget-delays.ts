// A job that finds no request budget steps aside (delayed) without spending a retry attempt. The
// run deadline ends such waits; the count kept in the job's data ends them even when the deadline
// cannot (a clock jump, a run whose start the ledger lost), so no job is delayed forever.
import type { Job } from 'bullmq';
import type { BudgetWaitTooLong } from '../../src/api/rate-budget.js';
import { DelayedError } from '../bullmq.js';
import { delayFor } from './delay.js';

/**
 * A delay mid-job lasts longer than jobs.maxBudgetWaitSeconds (shorter waits are waited out in the
 * job), so a run that keeps to jobs.maxRunHours rarely needs more delays than fit in it. A job that
 * steps aside before its first call (processors/workspace.ts) is told to come back after the jobs
 * of its account refused before it, so it is seldom refused twice.
 */
export function budgetDelayLimit(jobs: { maxRunHours: number; maxBudgetWaitSeconds: number }): number {
  return Math.ceil((jobs.maxRunHours * 3600) / jobs.maxBudgetWaitSeconds) + 1;
}

/**
 * Counts the delay in the job's data and moves the job to the delayed set (throws DelayedError,
 * which BullMQ expects). Past `limit` delays it does not: it returns the reason the job fails with.
 */
export async function stepAsideForBudget(
  job: Job<{ budgetDelays?: number | undefined }>,
  token: string | undefined,
  err: BudgetWaitTooLong,
  limit: number,
  /** What the job did so far (landed calls), kept with the count in the same write. */
  progress: object = {},
): Promise<string> {
  const delays = job.data.budgetDelays ?? 0;
  if (delays >= limit)
    return `gave up after ${delays} waits for request budget (each longer than jobs.maxBudgetWaitSeconds)`;
  await job.updateData({ ...job.data, ...progress, budgetDelays: delays + 1 });
  await job.moveToDelayed(Date.now() + delayFor(err), token);
  throw new DelayedError();
}
