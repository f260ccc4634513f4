// A visync worker process: BullMQ workers on the run queue, the shared Redis budget, the ledger,
// and the nightly schedules of its config. Several such processes on several machines share the
// work; a process killed mid-job has its jobs taken over once their lock expires.
import { FlowProducer, type Job, Queue, Worker } from 'bullmq';
import type { Logger } from 'pino';
import { closeAllPools } from '../src/api/http-pools.js';
import type { Config } from '../src/config/schema.js';
import { createRunLoader } from '../src/pipeline/run-loader.js';
import { createObjectStore } from '../src/sinks/create-store.js';
import { sleep } from '../src/util/time.js';
import { connect, redisUrl } from './connection.js';
import type { JobContext } from './context.js';
import { JOB, QUEUE } from './definitions.js';
import { RunLedger } from './ledger.js';
import { processLoad } from './processors/load.js';
import { processRun } from './processors/run.js';
import { processWorkspace } from './processors/workspace.js';
import { RedisRateBudget } from './redis-rate-budget.js';
import { installSchedules } from './schedules.js';

export interface WorkerOptions {
  config: Config;
  logger: Logger;
  concurrency?: number;
}

export interface WorkerHandle {
  worker: Worker;
  context: JobContext;
  schedules: { installed: string[]; removed: string[] };
  /** Stops taking jobs, lets active ones finish within graceMs, then hands the rest back. */
  close(graceMs: number): Promise<{ forced: boolean }>;
}

export async function startWorker(o: WorkerOptions): Promise<WorkerHandle> {
  const url = redisUrl(o.config, 'visync worker');
  const prefix = o.config.redis.prefix;
  const redis = connect(url);
  const workerConnection = connect(url);
  const queue = new Queue(QUEUE, { connection: redis, prefix });
  const flow = new FlowProducer({ connection: redis, prefix });
  const context: JobContext = {
    config: o.config,
    store: createObjectStore(o.config.sinks),
    loader: createRunLoader(o.config.sinks),
    budget: new RedisRateBudget(redis, { prefix }),
    ledger: new RunLedger(redis, prefix),
    queue,
    flow,
    redis,
    logger: o.logger,
  };
  const schedules = await installSchedules(queue, o.config);
  if (schedules.removed.length)
    o.logger.info({ removed: schedules.removed }, 'removed schedules of accounts no longer configured');

  const lockMs = o.config.jobs.lockSeconds * 1000;
  const worker = new Worker(
    QUEUE,
    async (job: Job, token?: string) => {
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
    },
    {
      connection: workerConnection,
      prefix,
      concurrency: o.concurrency ?? 8,
      lockDuration: lockMs,
      // Check for stalled jobs (a worker died holding them) as often as a lock can expire.
      stalledInterval: lockMs,
      maxStalledCount: 3,
    },
  );
  worker.on('failed', (job, err) => {
    if (err.name === 'DelayedError') return;
    o.logger.warn(
      { job: job?.id, name: job?.name, attempts: job?.attemptsMade, err: err.message },
      'job failed',
    );
  });
  worker.on('error', (err) => o.logger.error({ err: err.message }, 'worker error'));
  await worker.waitUntilReady();

  return {
    worker,
    context,
    schedules,
    async close(graceMs) {
      let forced = false;
      const closing = worker.close();
      const inTime = await Promise.race([closing.then(() => true), sleep(graceMs).then(() => false)]);
      if (!inTime) {
        // Past the deadline: stop without waiting. The active jobs keep their data (and the calls
        // they landed); their locks lapse and another worker takes them over.
        forced = true;
        await worker.close(true);
      }
      await Promise.allSettled([queue.close(), flow.close()]);
      await Promise.allSettled([redis.quit(), workerConnection.quit()]);
      await closeAllPools();
      return { forced };
    },
  };
}
