// What a worker process and its jobs share, apart from the worker's composition (the processors
// and the warehouse, src/run/queued/worker.ts): its options, its readiness, and the Redis, queues
// and stores every job is given. Its own module so the worker's connections (worker-connections.ts),
// its start (start-guard.ts) and its HTTP endpoint (ops-server.ts) import no part of the worker.
import type { FlowProducer, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ReservableBudget } from '../src/api/rate-budget.js';
import type { AccountConfig, Config } from '../src/config/schema.js';
import type { ObjectStore } from '../src/sinks/object-store.js';
import type { Backoff } from './connection.js';
import type { RunLedger } from './ledger.js';
import type { LoadBatches } from './load-batches.js';
import type { AccountQueues } from './queues.js';

export interface WorkerOptions {
  config: Config;
  logger: Logger;
  concurrency?: number;
  /** Waits between attempts to reach Redis (default from 1 s, doubling up to 30 s). */
  redisBackoff?: Backoff;
  /** Aborting it while the worker waits for Redis to start makes startWorker reject with WorkerStartAborted. */
  signal?: AbortSignal;
}

/** Whether a worker takes jobs now; `reason` says why not. */
export interface Readiness {
  ok: boolean;
  reason?: string;
}

/** The Redis, queues and stores of a worker process, built once and shared by its jobs. */
export interface WorkerContext {
  config: Config;
  /** The account's object store: its own s3 prefix or fs folder, else the configured one. */
  storeFor(account: string): Promise<ObjectStore>;
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

/** A running worker as its HTTP endpoint (jobs/ops-server.ts) reads it. */
export interface RunningWorker {
  context: WorkerContext;
  /** Not ready while Redis is unreachable (with the reason) or while stopping. */
  ready(): Readiness;
}

/** The account of a job, from this worker's config (which holds the key; Redis never does). */
export function accountOf(ctx: { config: Config }, name: string): AccountConfig | undefined {
  return ctx.config.accounts.find((a) => a.name === name);
}
