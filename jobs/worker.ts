// A visync worker process: one BullMQ worker per queue shard (jobs/queues.ts), one for the load
// queue (finish and load-batch jobs, jobs/load-batches.ts) and one for the report queue (scheduled
// reports and digests, jobs/report-queue.ts), the shared Redis budget, the ledger,
// and the nightly schedules of its config. Its Redis connections are fixed: the main one (queues,
// budget, ledger), the workers' shared command connection, and one blocking connection per
// queue, whatever the number of accounts. Several such processes on several machines share the
// work; a process killed mid-job has its jobs taken over once their lock expires.
import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import { maxPauseMs } from '../src/api/pause-cap.js';
import type { Config } from '../src/config/schema.js';
import { RunLoaders } from '../src/run/warehouse.js';
import { ObjectStores } from '../src/sinks/create-store.js';
import { DelayedError, FlowProducer, type Queue, Worker } from './bullmq.js';
import { type Backoff, isConnectionError, type RedisLink } from './connection.js';
import type { JobContext } from './context.js';
import { JOB } from './definitions.js';
import { FINISH_QUEUE, finishQueue } from './finish-queue.js';
import { RunLedger } from './ledger.js';
import { LoadBatches, startBatch, strandedWarehouses } from './load-batches.js';
import { AccountQueues, QUEUE_SHARDS, shardQueueName } from './queues.js';
import { RedisRateBudget } from './redis-rate-budget.js';
import { REPORT_CONCURRENCY, REPORT_QUEUE, reportQueue } from './report-queue.js';
import { installLoadSweep, installSchedules, type KeepSchedulesOptions, keepSchedules } from './schedules.js';
import { type StaleWatchOptions, startStaleWatch } from './stale-watch.js';
import { CLOSE_MS, StartGuard, settlesWithin } from './start-guard.js';
import {
  type Connections,
  closeConnections,
  ignoreLostConnection,
  openConnections,
  warnAboutRedis,
} from './worker-connections.js';

export { WorkerStartAborted } from './start-guard.js';

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

export interface WorkerHandle {
  /** One BullMQ worker per queue shard, each with `concurrency` slots, then the finish queue's and the report queue's. */
  workers: Worker[];
  context: JobContext;
  schedules: { installed: string[]; removed: string[] };
  /** Not ready while Redis is unreachable (with the reason) or while stopping. */
  ready(): Readiness;
  /**
   * Puts a re-read config in force without a restart: later jobs use its accounts and settings,
   * and the nightly schedules are installed, updated and removed to match. The shard queues are
   * the same for any set of accounts, so no BullMQ worker starts or stops.
   */
  reconfigure(config: Config): Promise<{ installed: string[]; removed: string[] }>;
  /** Stops taking jobs, lets active ones finish within graceMs, then hands the rest back. */
  close(graceMs: number): Promise<{ forced: boolean }>;
}

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

/** What the jobs share, and the parts of it a stop closes. */
interface Shared {
  context: JobContext;
  budget: RedisRateBudget;
  queues: AccountQueues;
  flow: FlowProducer;
  finishes: Queue;
  reports: Queue;
  stores: ObjectStores;
}

function createShared(o: WorkerOptions, { main }: Connections): Shared {
  const redis = main.redis;
  const prefix = o.config.redis.prefix;
  const queues = new AccountQueues(redis, prefix, ignoreLostConnection(o.logger, 'queue'));
  const flow = new FlowProducer({ connection: redis, prefix });
  flow.on('error', ignoreLostConnection(o.logger, 'flow producer'));
  // The cap read at start: a reload that changes extract.maxPauseSeconds takes effect at the next start.
  const budget = new RedisRateBudget(redis, { prefix, maxPauseMs: maxPauseMs(o.config) });
  // One store per distinct prefix or folder, one loader per dataset, shared by the accounts using them.
  const stores = new ObjectStores();
  const loaders = new RunLoaders();
  const finishes = finishQueue(redis, prefix);
  finishes.on('error', ignoreLostConnection(o.logger, 'finish queue'));
  const reports = reportQueue(redis, prefix);
  reports.on('error', ignoreLostConnection(o.logger, 'report queue'));
  const context: JobContext = {
    config: o.config,
    storeFor: (account) => stores.forAccount(context.config, account),
    loaderFor: (account) => loaders.forAccount(context.config, account),
    budget,
    ledger: new RunLedger(redis, prefix),
    loadBatches: new LoadBatches(redis, prefix),
    finishQueue: finishes,
    reportQueue: reports,
    queues,
    flow,
    redis,
    logger: o.logger,
  };
  return { context, budget, queues, flow, finishes, reports, stores };
}

/** Listens for budget pauses and installs the schedules and the load sweep of the config. */
async function installAtStart(
  o: WorkerOptions,
  pauses: RedisLink,
  { budget, queues, finishes }: Shared,
  aborted: Promise<never>,
): Promise<WorkerHandle['schedules']> {
  await Promise.race([budget.listen(pauses.redis), aborted]);
  const schedules = await Promise.race([installSchedules(queues, o.config), aborted]);
  await Promise.race([installLoadSweep(finishes, o.config), aborted]);
  return schedules;
}

/** The watches that read the config at each check, so a reconfigure reaches them. */
interface Watches {
  keeping: KeepSchedulesOptions;
  staleWatching: StaleWatchOptions;
  stop(): void;
}

function startWatches(o: WorkerOptions, { context, queues, finishes }: Shared): Watches {
  const redis = context.redis;
  // Redis may lose the schedules (a restart without persistence): put them back when it returns.
  const keeping = { redis, queues, finishQueue: finishes, config: o.config, logger: o.logger };
  const stopKeepingSchedules = keepSchedules(keeping);
  const staleWatching = { config: o.config, redis, ledger: context.ledger, logger: o.logger };
  const staleWatch = startStaleWatch(staleWatching);
  return {
    keeping,
    staleWatching,
    stop() {
      stopKeepingSchedules();
      staleWatch.stop();
    },
  };
}

/** The processors (and the API client and undici they use) load with the first job, not at start. */
function jobProcessor(context: JobContext) {
  return async (job: Job, token?: string) => {
    switch (job.name) {
      case JOB.run:
        return (await import('./processors/run.js')).processRun(job, token, context);
      case JOB.workspace:
        return (await import('./processors/workspace.js')).processWorkspace(job, token, context);
      case JOB.workspacesDone:
        return (await import('./processors/workspaces-done.js')).processWorkspacesDone(job, context);
      case JOB.finish:
        return (await import('./processors/finish.js')).processFinish(job, context);
      case JOB.loadBatch:
        return (await import('./processors/load-batch.js')).processLoadBatch(job, context);
      case JOB.report:
        return (await import('./processors/report.js')).processReport(job, context);
      default:
        throw new Error(`unknown job name ${job.name}`);
    }
  };
}

/** Starts one BullMQ worker per queue shard, then the finish queue's and the report queue's, into `workers`. */
function startBullWorkers(
  o: WorkerOptions,
  blocking: RedisLink,
  context: JobContext,
  workers: Worker[],
): void {
  const process = jobProcessor(context);
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

type Stranded = Awaited<ReturnType<typeof strandedWarehouses>>;

/** Starts the batch of each warehouse whose waiting runs `config` strands, which ends them. */
async function endStranded(found: Stranded, config: Config, { context, finishes }: Shared): Promise<void> {
  if (!found.length) return;
  context.logger.warn(
    { warehouses: found.map((w) => w.warehouse) },
    'runs wait for a load batch into a BigQuery dataset the config no longer loads them into: their batch ends them (not loaded; visync replay --run ID loads each once its warehouse is configured)',
  );
  for (const w of found) await startBatch(finishes, config, w.warehouse, w.gen);
}

/** Stops taking jobs, lets active ones finish within graceMs, then drops everything, each wait bounded. */
async function closeAll(
  graceMs: number,
  conns: Connections,
  shared: Shared,
  workers: Worker[],
): Promise<boolean> {
  const inTime = await settlesWithin(Promise.all(workers.map((w) => w.close())), graceMs);
  if (!inTime) {
    // Past the deadline: stop without waiting. The active jobs keep their data (and the calls
    // they landed); their locks lapse and another worker takes them over.
    await settlesWithin(Promise.all(workers.map((w) => w.close(true))), CLOSE_MS);
  }
  // Bounded: with Redis gone these would wait for it; the connections are dropped next anyway.
  await settlesWithin(
    Promise.allSettled([
      shared.queues.close(),
      shared.finishes.close(),
      shared.reports.close(),
      shared.flow.close(),
      shared.stores.close(),
    ]),
    CLOSE_MS,
  );
  await closeConnections(conns);
  await (await import('../src/api/http-pools.js')).closeAllPools();
  return inTime;
}

function workerHandle(
  conns: Connections,
  shared: Shared,
  workers: Worker[],
  schedules: WorkerHandle['schedules'],
  watches: Watches,
): WorkerHandle {
  const { context, queues, finishes } = shared;
  let closing = false;
  return {
    workers,
    context,
    schedules,
    ready() {
      if (closing) return { ok: false, reason: 'stopping' };
      const down = conns.main.unreachable() ?? conns.blocking.unreachable();
      if (down) return { ok: false, reason: down.message };
      if (!workers.every((w) => w.isRunning())) return { ok: false, reason: 'workers not running' };
      return { ok: true };
    },
    async reconfigure(config) {
      context.config = config;
      watches.keeping.config = config;
      watches.staleWatching.config = config;
      const found = await strandedWarehouses(context.loadBatches, config);
      await installLoadSweep(finishes, config);
      await endStranded(found, config, shared);
      return installSchedules(queues, config);
    },
    async close(graceMs) {
      closing = true;
      watches.stop();
      return { forced: !(await closeAll(graceMs, conns, shared, workers)) };
    },
  };
}

export async function startWorker(o: WorkerOptions): Promise<WorkerHandle> {
  const conns = openConnections(o);
  const shared = createShared(o, conns);
  const workers: Worker[] = [];
  const start = new StartGuard(o.signal, conns, workers);
  const schedules = await start.run(() => installAtStart(o, conns.pauses, shared, start.aborted));
  if (schedules.removed.length) {
    o.logger.info({ removed: schedules.removed }, 'removed schedules of accounts no longer configured');
  }
  await warnAboutRedis(o, conns);
  const watches = startWatches(o, shared);
  startBullWorkers(o, conns.blocking, shared.context, workers);
  // Runs waiting for a batch this config no longer loads them in (BigQuery removed, a dataset
  // changed): no sweep or trigger may come for them, so their batch is started now and ends them.
  let stranded: Stranded;
  try {
    stranded = await start.run(async () => {
      const found = await Promise.race([
        strandedWarehouses(shared.context.loadBatches, o.config),
        start.aborted,
      ]);
      await Promise.race([Promise.all(workers.map((w) => w.waitUntilReady())), start.aborted]);
      return found;
    });
  } finally {
    start.detach();
  }
  await endStranded(stranded, o.config, shared);
  return workerHandle(conns, shared, workers, schedules, watches);
}
