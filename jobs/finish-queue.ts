// The finish queue: the heavy end of runs, apart from the shards. It holds each run's `finish-run`
// job (curate: normalise, gzip, record; src/run/queued/finish.ts) and the `load-batch` jobs that load
// finished runs into BigQuery (load-batches.ts), and still runs `report` jobs queued there by
// versions before the report queue (report-queue.ts). Every worker works it a few jobs at a time
// (FINISH_CONCURRENCY in worker.ts), so the runs that end together do not all curate at once in one
// process. Finish jobs carry a priority and wait in its `prioritized` set; load-batch jobs carry
// none and wait in its `wait` list, which BullMQ serves first: a batch, which ends runs, is not
// held back behind the finishes of a busy night.
import type { Redis } from 'ioredis';
import { Queue } from './bullmq.js';

/**
 * The finish queue's name in Redis. It says `loads` because the queue once held only load jobs;
 * the wire name stays so that jobs queued by an earlier version, in flight across an upgrade,
 * are still taken. This is the one place that spells it.
 */
export const FINISH_QUEUE = '{visync-loads}';

/** The finish queue (on the main connection: it holds no connection of its own). */
export function finishQueue(redis: Redis, prefix: string): Queue {
  return new Queue(FINISH_QUEUE, { connection: redis, prefix });
}
