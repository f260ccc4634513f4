// The BullMQ workers of a worker process: one per queue shard (jobs/queues.ts), one for the finish
// queue and one for the report queue, each given the same processor, the table of the queued
// driver's jobs (src/run/queued/worker.ts), and their failures logged.
import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import { DelayedError, Worker } from './bullmq.js';
import { isConnectionError, type RedisLink } from './connection.js';
import { FINISH_QUEUE } from './finish-queue.js';
import { QUEUE_SHARDS, shardQueueName } from './queues.js';
import { REPORT_CONCURRENCY, REPORT_QUEUE } from './report-queue.js';
import type { WorkerOptions } from './worker-types.js';

/** Runs one job of any queue by its name. */
export type JobProcessor = (job: Job, token?: string) => Promise<unknown>;

/**
 * Jobs of the finish queue (jobs/finish-queue.ts) one process works at once: finish jobs (normalise, gzip, record) and
 * load batches. The event loop is one thread, and the calls of the accounts still extracting
 * share it: with every run that ends together curating at once (up to 32, as many as the shard
 * slots) their calls slowed to 60-100 ms for 5-7 s and the accounts missed their windows. Two,
 * not one: a finish waits on the store (reads, writes, gzip on libuv's pool) as much as it
 * computes, and a second keeps that time busy; a load batch (waiting on BigQuery) then leaves
 * one for finishes. A fleet finishes more runs at once by having more processes, each taking two.
 */
const FINISH_CONCURRENCY = 2;

/** Starts one BullMQ worker per queue shard, then the finish queue's and the report queue's, into `workers`. */
export function startBullWorkers(
  o: WorkerOptions,
  blocking: RedisLink,
  process: JobProcessor,
  workers: Worker[],
): void {
  const lockMs = o.config.jobs.lockSeconds * 1000;
  const work = (name: string, concurrency: number) => {
    const worker = new Worker(name, process, {
      connection: blocking.redis,
      prefix: o.config.redis.prefix,
      concurrency,
      lockDuration: lockMs,
      // Check for stalled jobs (a worker died holding them) as often as a lock can expire.
      stalledInterval: lockMs,
      maxStalledCount: 3,
    });
    logWorkerTrouble(worker, name, o.logger);
    workers.push(worker);
  };
  for (let shard = 0; shard < QUEUE_SHARDS; shard++) work(shardQueueName(shard), o.concurrency ?? 2);
  // The finish queue's worker still takes `report` jobs queued there by earlier versions.
  work(FINISH_QUEUE, FINISH_CONCURRENCY);
  work(REPORT_QUEUE, REPORT_CONCURRENCY);
}

function logWorkerTrouble(worker: Worker, queue: string, logger: Logger): void {
  worker.on('failed', (job, err) => {
    if (err instanceof DelayedError) return;
    logger.warn(
      {
        account: (job?.data as { account?: string } | undefined)?.account,
        job: job?.id,
        name: job?.name,
        attempts: job?.attemptsMade,
        err: err.message,
      },
      'job failed',
    );
  });
  // A lost connection is reported once per attempt by the main connection, not by every worker.
  worker.on('error', (err) => {
    if (!isConnectionError(err)) logger.error({ queue, err: err.message }, 'worker error');
  });
}
