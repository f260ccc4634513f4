// One nightly job scheduler per configured account (cron + time zone). Accounts no longer in the
// config lose theirs. Installing or updating a schedule never starts a run by itself: the first
// job is due at the next cron time.
import type { Config } from '../src/config/schema.js';
import { JOB, jobOptions, type RunJobData } from './definitions.js';
import type { AccountQueues } from './queues.js';

const PREFIX = 'nightly-';

export const schedulerId = (account: string) => `${PREFIX}${account}`;

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
