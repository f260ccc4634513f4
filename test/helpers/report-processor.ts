// The report job a worker runs after a nightly run (src/run/queued/report.ts), called in this process
// with a real Redis connection for its claims and status index: the scheduled delivery of `runDate`.
import type { Job } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, inject } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import type { JobContext } from '../../src/run/queued/context.js';
import { processReport } from '../../src/run/queued/report.js';
import { FsObjectStore } from '../../src/sinks/fs-store.js';
import * as h from './harness.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

/** The account's report job after its nightly run of `runDate`, over the fs store in `dir`. */
export async function reportJob(config: Config, dir: string, runDate: string, account = 'acme') {
  const redis = new Redis(inject('redisUrl'));
  closers.push(() => redis.quit());
  const log = h.memoryLogger('debug');
  const ctx = {
    config,
    redis,
    logger: log.logger,
    storeFor: async () => new FsObjectStore(dir),
  } as unknown as JobContext;
  const result = await processReport(
    { id: `report.${account}.${runDate}`, data: { account, runDate } } as Job,
    ctx,
  );
  return { result, logs: log.lines.join('') };
}
