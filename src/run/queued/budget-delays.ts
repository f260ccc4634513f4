// A job that finds no request budget steps aside (delayed) without spending a retry attempt. The
// run deadline ends such waits; the count kept in the job's data ends them even when the deadline
// cannot (a clock jump, a run whose start the ledger lost), so no job is delayed forever.
import type { Job } from 'bullmq';
import { DelayedError } from '../../../jobs/bullmq.js';
import type { BudgetWaitTooLong } from '../../api/rate-budget.js';
import { delayFor } from './delay.js';

/**
 * A delay mid-job lasts longer than jobs.maxBudgetWaitSeconds (shorter waits are waited out in the
 * job), so a run that keeps to jobs.maxRunHours rarely needs more delays than fit in it. A job that
 * steps aside before its first call (src/run/queued/workspace.ts) is told to come back after the jobs
 * of its account refused before it, so it is seldom refused twice.
 */
export function budgetDelayLimit(jobs: { maxRunHours: number; maxBudgetWaitSeconds: number }): number {
  return Math.ceil((jobs.maxRunHours * 3600) / jobs.maxBudgetWaitSeconds) + 1;
}

/** BullMQ's move to the delayed set, which also writes job fields in the same script. */
interface DelayingBackend {
  moveToDelayed(
    jobId: string,
    timestamp: number,
    delay: number,
    token: string,
    opts: { skipAttempt: boolean; fieldsToUpdate: Record<string, string | number> },
  ): Promise<unknown>;
}

/**
 * Counts the delay in the job's data and moves the job to the delayed set (throws DelayedError,
 * which BullMQ expects). Past `limit` delays it does not: it returns the reason the job fails with.
 * `priority`: what the job comes back with (BullMQ keeps a job's priority in its hash and reads it
 * when the delay ends), so its account's freed window is served before new work.
 */
export async function stepAsideForBudget(
  job: Job<{ budgetDelays?: number | undefined }>,
  token: string | undefined,
  err: BudgetWaitTooLong,
  limit: number,
  /** What the job did so far (landed calls), kept with the count in the same write. */
  progress: object = {},
  priority?: number,
): Promise<string> {
  const delays = job.data.budgetDelays ?? 0;
  if (delays >= limit)
    return `gave up after ${delays} waits for request budget (each longer than jobs.maxBudgetWaitSeconds)`;
  const data = { ...job.data, ...progress, budgetDelays: delays + 1 };
  const now = Date.now();
  const delay = Math.max(0, delayFor(err));
  const backend = (job as unknown as { backend?: Partial<DelayingBackend> }).backend;
  if (job.id && typeof backend?.moveToDelayed === 'function') {
    // Data, priority and the move in one script (the public calls are one script each).
    await backend.moveToDelayed(job.id, now, delay, token ?? '0', {
      skipAttempt: true,
      fieldsToUpdate: { data: JSON.stringify(data), ...(priority ? { priority } : {}) },
    });
    job.data = data;
  } else {
    await job.updateData(data);
    if (priority) await job.changePriority({ priority });
    await job.moveToDelayed(now + delay, token);
  }
  throw new DelayedError();
}
