// What every processor needs, built once per worker process.
import type { FlowProducer, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ReservableBudget } from '../src/api/rate-budget.js';
import type { AccountConfig, Config } from '../src/config/schema.js';
import type { RunLoader } from '../src/run/finish-run.js';
import type { ObjectStore } from '../src/sinks/object-store.js';
import type { RunLedger } from './ledger.js';
import type { LoadBatches } from './load-batches.js';
import type { AccountQueues } from './queues.js';

export interface JobContext {
  config: Config;
  /** The account's object store: its own s3 prefix or fs folder, else the configured one. */
  storeFor(account: string): Promise<ObjectStore>;
  /** The account's warehouse (its own BigQuery dataset, else the configured one); none without BigQuery. */
  loaderFor(account: string): Promise<RunLoader | undefined>;
  budget: ReservableBudget;
  ledger: RunLedger;
  /** Runs curated and waiting for a load batch of their warehouse, and the batches. */
  loadBatches: LoadBatches;
  /** The finish queue (jobs/finish-queue.ts): runs' finish jobs and load-batch jobs, apart from the shard queues. */
  finishQueue: Queue;
  /** Where scheduled report jobs go (jobs/report-queue.ts): never behind or ahead of a run's finish. */
  reportQueue: Queue;
  queues: AccountQueues;
  flow: FlowProducer;
  redis: Redis;
  logger: Logger;
}

/** The account of a job, from this worker's config (which holds the key; Redis never does). */
export function accountOf(ctx: JobContext, name: string): AccountConfig | undefined {
  return ctx.config.accounts.find((a) => a.name === name);
}
