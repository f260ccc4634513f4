// One nightly job scheduler per configured account, with its effective cron and time zone (the
// account's own or schedule.nightly: src/config/account-settings.ts). Accounts no longer in the
// config lose theirs. Installing or updating a schedule never starts a run by itself: the first
// job is due at the next cron time.
import type { Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { effectiveSchedule } from '../src/config/account-settings.js';
import type { Config } from '../src/config/schema.js';
import { errorMessage } from '../src/util/errors.js';
import { JOB, jobOptions, type RunJobData } from './definitions.js';
import { batchJobOptions, type LoadBatchJobData, SWEEP_SCHEDULER } from './load-batches.js';
import type { AccountQueues } from './queues.js';

const PREFIX = 'nightly-';
const INSTALL_CONCURRENCY = 16;

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
  // Side by side, a few at a time: an agency's thousand accounts install in a fraction of the
  // time one after another takes, without a burst of thousands of Redis commands at once.
  await eachUntilError(config.accounts, INSTALL_CONCURRENCY, async (account) => {
    // The account's own cron or time zone when it has one (clients live in different zones).
    const { cron, tz } = effectiveSchedule(config, account);
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
  });
  const installed = config.accounts.map((a) => a.name);
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

/**
 * The sweep of load batches every `load.batchMinutes`, when BigQuery is configured (queued runs
 * wait for a batch of their dataset: jobs/load-batches.ts); removed when it is not.
 */
export async function installLoadSweep(queue: Queue, config: Config): Promise<void> {
  if (!config.sinks.bigquery) {
    await queue.removeJobScheduler(SWEEP_SCHEDULER);
    return;
  }
  const { removeOnComplete, removeOnFail } = batchJobOptions(config);
  await queue.upsertJobScheduler(
    SWEEP_SCHEDULER,
    { every: config.load.batchMinutes * 60_000 },
    {
      name: JOB.loadBatch,
      data: { sweep: true } satisfies LoadBatchJobData,
      opts: { removeOnComplete, removeOnFail },
    },
  );
}

/** Configured accounts whose nightly scheduler is not in Redis. */
export async function missingSchedules(queues: AccountQueues, config: Config): Promise<string[]> {
  const missing = new Set<string>();
  await eachUntilError(config.accounts, INSTALL_CONCURRENCY, async (account) => {
    if (!(await queues.for(account.name).getJobScheduler(schedulerId(account.name))))
      missing.add(account.name);
  });
  return config.accounts.map((a) => a.name).filter((n) => missing.has(n));
}

/**
 * `fn` over `items`, at most `concurrency` at once; the first failure stops taking new items and
 * is thrown once those in flight have settled (a Redis that is down fails the first, not all).
 */
async function eachUntilError<T>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { err: unknown } | undefined;
  const lane = async () => {
    while (!failure && next < items.length) {
      const item = items[next++] as T;
      try {
        await fn(item);
      } catch (err) {
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
  if (failure) throw failure.err;
}

export interface KeepSchedulesOptions {
  redis: Redis;
  queues: AccountQueues;
  /** The load-batch queue, whose sweep is put back too. */
  finishQueue?: Queue;
  config: Config;
  logger: Logger;
  /** Also checks this often, for a Redis flushed without dropping the connection (default 60 s). */
  checkEveryMs?: number;
}

/**
 * Puts the schedules back when Redis has lost them (a restart without persistence, a flush):
 * checked each time the connection is ready again and every `checkEveryMs`. Re-installing starts
 * no run. Returns the function that stops watching.
 */
export function keepSchedules(o: KeepSchedulesOptions): () => void {
  let busy = false;
  const check = async () => {
    if (busy) return;
    busy = true;
    try {
      if (o.finishQueue && o.config.sinks.bigquery && !(await o.finishQueue.getJobScheduler(SWEEP_SCHEDULER)))
        await installLoadSweep(o.finishQueue, o.config);
      const missing = await missingSchedules(o.queues, o.config);
      if (!missing.length) return;
      await installSchedules(o.queues, o.config);
      o.logger.warn(
        { accounts: missing },
        'Redis lost the nightly schedules (a restart without persistence?): re-installed them; runs that were in flight are lost and their days are covered by the next nightly window',
      );
    } catch (err) {
      // Redis went away again: the next 'ready' checks again.
      o.logger.debug({ err: errorMessage(err) }, 'schedule check failed');
    } finally {
      busy = false;
    }
  };
  o.redis.on('ready', check);
  const timer = setInterval(check, o.checkEveryMs ?? 60_000);
  timer.unref();
  return () => {
    o.redis.off('ready', check);
    clearInterval(timer);
  };
}
