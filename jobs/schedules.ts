// One nightly job scheduler per configured account (cron + time zone). Accounts no longer in the
// config lose theirs. Installing or updating a schedule never starts a run by itself: the first
// job is due at the next cron time.
import type { Queue } from 'bullmq';
import type { Config } from '../src/config/schema.js';
import { JOB, PRIORITY, type RunJobData } from './definitions.js';

const PREFIX = 'nightly-';

export const schedulerId = (account: string) => `${PREFIX}${account}`;

export async function installSchedules(
  queue: Queue,
  config: Config,
): Promise<{ installed: string[]; removed: string[] }> {
  const { cron, tz } = config.schedule.nightly;
  const installed: string[] = [];
  for (const account of config.accounts) {
    const data: RunJobData = { account: account.name, kind: 'nightly' };
    await queue.upsertJobScheduler(
      schedulerId(account.name),
      { pattern: cron, tz },
      {
        name: JOB.run,
        data,
        opts: {
          priority: PRIORITY.nightly,
          attempts: config.jobs.attempts,
          backoff: { type: 'exponential', delay: 2_000 },
        },
      },
    );
    installed.push(account.name);
  }
  const removed: string[] = [];
  const wanted = new Set(config.accounts.map((a) => schedulerId(a.name)));
  for (const s of await queue.getJobSchedulers(0, -1)) {
    const id = s.key ?? s.id;
    if (id?.startsWith(PREFIX) && !wanted.has(id)) {
      await queue.removeJobScheduler(id);
      removed.push(id.slice(PREFIX.length));
    }
  }
  return { installed, removed };
}
