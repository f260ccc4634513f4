// One nightly job scheduler per configured account (cron + time zone). Accounts no longer in the
// config lose theirs. Installing or updating a schedule never starts a run by itself: the first
// job is due at the next cron time.
import type { Job } from 'bullmq';
import type { Config } from '../src/config/schema.js';
import { JOB, jobOptions, type RunJobData } from './definitions.js';
import type { AccountQueues } from './queues.js';

const PREFIX = 'nightly-';

export const schedulerId = (account: string) => `${PREFIX}${account}`;

/**
 * When a job was due (ms): for a scheduler's job, the fire time its scheduler meant, not when the
 * job was created (BullMQ creates the next one when the previous fires, or when a worker restarts
 * and re-installs the schedule). BullMQ names each iteration `repeat:<scheduler>:<fire millis>`
 * and keeps the same millis in opts.prevMillis; a job added with a delay was due at creation plus
 * delay.
 */
export function dueAt(job: Pick<Job, 'id' | 'repeatJobKey' | 'opts' | 'timestamp' | 'delay'>): number {
  if (job.repeatJobKey && job.id?.startsWith(`repeat:${job.repeatJobKey}:`)) {
    const millis = Number(job.id.slice(`repeat:${job.repeatJobKey}:`.length));
    if (Number.isSafeInteger(millis) && millis > 0) return millis;
  }
  const prev = job.opts.prevMillis;
  if (job.repeatJobKey && typeof prev === 'number' && prev > 0) return prev;
  return job.timestamp + (job.delay || 0);
}

export async function installSchedules(
  queues: AccountQueues,
  config: Config,
): Promise<{ installed: string[]; removed: string[] }> {
  const { cron, tz } = config.schedule.nightly;
  const installed: string[] = [];
  for (const account of config.accounts) {
    const data: RunJobData = { account: account.name, kind: 'nightly' };
    await queues.register(account.name);
    await queues.for(account.name).upsertJobScheduler(
      schedulerId(account.name),
      { pattern: cron, tz },
      {
        name: JOB.run,
        data,
        opts: jobOptions(config, 'nightly'),
      },
    );
    installed.push(account.name);
  }
  const removed: string[] = [];
  const configured = new Set(config.accounts.map((a) => a.name));
  for (const account of await queues.registered()) {
    if (configured.has(account)) continue;
    const queue = queues.for(account);
    for (const s of await queue.getJobSchedulers(0, -1)) {
      const id = s.key ?? s.id;
      if (id?.startsWith(PREFIX)) await queue.removeJobScheduler(id);
    }
    await queues.unregister(account);
    removed.push(account);
  }
  return { installed, removed };
}
