// The queue of scheduled report jobs (src/run/queued/report-trigger.ts, src/run/queued/report.ts), apart from the
// finish queue (jobs/finish-queue.ts). A report job waits on mail servers and webhooks, which may take minutes to give up
// (an SMTP server that never greets, a webhook that never answers); on the finish queue it held one
// of its two slots, and two such jobs held back every account's finish. Here it holds only a slot
// of its own queue: a stuck delivery delays other reports, never a run.
import type { Redis } from 'ioredis';
import { Queue } from './bullmq.js';

export const REPORT_QUEUE = '{visync-reports}';

/**
 * Report jobs one process works at once. Two: a job may open Chromium for its PDFs (CPU and about
 * 150 MB each), and its sends wait on the network, so a second keeps that time busy while one is
 * stuck on a server.
 */
export const REPORT_CONCURRENCY = 2;

/** The queue of report jobs (on the main connection: it holds no connection of its own). */
export function reportQueue(redis: Redis, prefix: string): Queue {
  return new Queue(REPORT_QUEUE, { connection: redis, prefix });
}
