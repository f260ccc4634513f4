// A visync worker process: BullMQ workers on the run queue, the shared Redis budget, the ledger,
// and the nightly schedules of its config. Several such processes on several machines share the
// work; a process killed mid-job has its jobs taken over once their lock expires.
import { FlowProducer, type Job, Worker } from 'bullmq';
import type { Logger } from 'pino';
import { closeAllPools } from '../src/api/http-pools.js';
import type { Config } from '../src/config/schema.js';
import { createRunLoader } from '../src/pipeline/run-loader.js';
import { createObjectStore } from '../src/sinks/create-store.js';
import { sleep } from '../src/util/time.js';
import { connect, redisUrl } from './connection.js';
import type { JobContext } from './context.js';
import { JOB } from './definitions.js';
import { RunLedger } from './ledger.js';
import { processLoad } from './processors/load.js';
import { processRun } from './processors/run.js';
import { processWorkspace } from './processors/workspace.js';
import { AccountQueues, queueName } from './queues.js';
import { RedisRateBudget } from './redis-rate-budget.js';
import { installSchedules } from './schedules.js';

export interface WorkerOptions {
  config: Config;
  logger: Logger;
  concurrency?: number;
}

export interface WorkerHandle {
  /** One BullMQ worker per configured account (each account has its own queue). */
  workers: Worker[];
  context: JobContext;
  schedules: { installed: string[]; removed: string[] };
  /** Stops taking jobs, lets active ones finish within graceMs, then hands the rest back. */
  close(graceMs: number): Promise<{ forced: boolean }>;
}

export async function startWorker(o: WorkerOptions): Promise<WorkerHandle> {
  const url = redisUrl(o.config, 'visync worker');
  const prefix = o.config.redis.prefix;
  const redis = connect(url);
  // BullMQ duplicates this connection for each worker's blocking reads.
  const workerConnection = connect(url);
  const queues = new AccountQueues(redis, prefix);
  const flow = new FlowProducer({ connection: redis, prefix });
  const context: JobContext = {
    config: o.config,
    store: createObjectStore(o.config.sinks),
    loader: createRunLoader(o.config.sinks),
    budget: new RedisRateBudget(redis, { prefix }),
    ledger: new RunLedger(redis, prefix),
    queues,
    flow,
    redis,
    logger: o.logger,
  };
  const schedules = await installSchedules(queues, o.config);
  if (schedules.removed.length) {
    o.logger.info({ removed: schedules.removed }, 'removed schedules of accounts no longer configured');
  }

  const process = async (job: Job, token?: string) => {
    switch (job.name) {
      case JOB.run:
        return processRun(job, token, context);
      case JOB.workspace:
        return processWorkspace(job, token, context);
      case JOB.load:
        return processLoad(job, context);
      default:
        throw new Error(`unknown job name ${job.name}`);
    }
  };
  const lockMs = o.config.jobs.lockSeconds * 1000;
  const workers = o.config.accounts.map((account) => {
    const worker = new Worker(queueName(account.name), process, {
      connection: workerConnection,
      prefix,
      concurrency: o.concurrency ?? 8,
      lockDuration: lockMs,
      // Check for stalled jobs (a worker died holding them) as often as a lock can expire.
      stalledInterval: lockMs,
      maxStalledCount: 3,
    });
    worker.on('failed', (job, err) => {
      if (err.name === 'DelayedError') return;
      o.logger.warn(
        {
          account: account.name,
          job: job?.id,
          name: job?.name,
          attempts: job?.attemptsMade,
          err: err.message,
        },
        'job failed',
      );
    });
    worker.on('error', (err) => o.logger.error({ account: account.name, err: err.message }, 'worker error'));
    return worker;
  });
  await Promise.all(workers.map((w) => w.waitUntilReady()));

  return {
    workers,
    context,
    schedules,
    async close(graceMs) {
      const closing = Promise.all(workers.map((w) => w.close()));
      const inTime = await Promise.race([closing.then(() => true), sleep(graceMs).then(() => false)]);
      if (!inTime) {
        // Past the deadline: stop without waiting. The active jobs keep their data (and the calls
        // they landed); their locks lapse and another worker takes them over.
        await Promise.all(workers.map((w) => w.close(true)));
      }
      await Promise.allSettled([queues.close(), flow.close()]);
      await Promise.allSettled([redis.quit(), workerConnection.quit()]);
      await closeAllPools();
      return { forced: !inTime };
    },
  };
}
