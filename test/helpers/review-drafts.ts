// The review tests' first step (test/review-actions.test.ts, test/review-hold-race.test.ts): a worker
// in this process takes the report job of account acme's night of 1 November 2026 and makes its two
// drafts, which the report index then lists (the order comes from the index, never a sleep).
import { Redis } from 'ioredis';
import { inject } from 'vitest';
import { JOB, jobIds } from '../../jobs/definitions.js';
import { readOpenReports } from '../../jobs/report-index.js';
import { reportQueue } from '../../jobs/report-queue.js';
import type { Config } from '../../src/config/schema.js';
import { until, worker } from './jobs.js';

/** The drafts made; `closers` get the Redis client, the queue and the worker to close. */
export async function draftsByWorker(config: Config, closers: (() => Promise<unknown>)[]) {
  const redis = new Redis(inject('redisUrl') as string);
  closers.push(() => redis.quit());
  const queue = reportQueue(redis, config.redis.prefix);
  closers.push(() => queue.close());
  const w = await worker(config);
  await queue.add(
    JOB.report,
    { account: 'acme', runDate: '2026-11-01' },
    { jobId: jobIds.report('acme', '2026-11-01') },
  );
  await until(
    'two drafts in the index',
    async () => (await readOpenReports(redis, config.redis.prefix, 'acme')).length === 2,
  );
  return { redis, worker: w };
}
