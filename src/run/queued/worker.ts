// A visync worker process: one BullMQ worker per queue shard (jobs/queues.ts), one for the load
// queue (finish and load-batch jobs, jobs/load-batches.ts) and one for the report queue (scheduled
// reports and digests, jobs/report-queue.ts), the shared Redis budget, the ledger,
// and the nightly schedules of its config. Its Redis connections are fixed: the main one (queues,
// budget, ledger), the workers' shared command connection, and one blocking connection per
// queue, whatever the number of accounts. Several such processes on several machines share the
// work; a process killed mid-job has its jobs taken over once their lock expires.
import type { Job } from 'bullmq';
import { startBullWorkers } from '../../../jobs/bull-workers.js';
import { FlowProducer, type Queue, type Worker } from '../../../jobs/bullmq.js';
import type { RedisLink } from '../../../jobs/connection.js';
import { JOB } from '../../../jobs/definitions.js';
import { finishQueue } from '../../../jobs/finish-queue.js';
import { RunLedger } from '../../../jobs/ledger.js';
import { LoadBatches, startBatch, strandedWarehouses } from '../../../jobs/load-batches.js';
import { AccountQueues } from '../../../jobs/queues.js';
import { RedisRateBudget } from '../../../jobs/redis-rate-budget.js';
import { reportQueue } from '../../../jobs/report-queue.js';
import {
  installLoadSweep,
  installSchedules,
  type KeepSchedulesOptions,
  keepSchedules,
} from '../../../jobs/schedules.js';
import { type StaleWatchOptions, startStaleWatch } from '../../../jobs/stale-watch.js';
import { CLOSE_MS, StartGuard, settlesWithin } from '../../../jobs/start-guard.js';
import {
  type Connections,
  closeConnections,
  ignoreLostConnection,
  openConnections,
  warnAboutRedis,
} from '../../../jobs/worker-connections.js';
import type { RunningWorker, WorkerOptions } from '../../../jobs/worker-types.js';
import { maxPauseMs } from '../../api/pause-cap.js';
import type { Config } from '../../config/schema.js';
import { ObjectStores } from '../../sinks/create-store.js';
import { RunLoaders } from '../warehouse.js';
import type { JobContext } from './context.js';

export interface WorkerHandle extends RunningWorker {
  /** One BullMQ worker per queue shard, each with `concurrency` slots, then the finish queue's and the report queue's. */
  workers: Worker[];
  context: JobContext;
  schedules: { installed: string[]; removed: string[] };
  /**
   * Puts a re-read config in force without a restart: later jobs use its accounts and settings,
   * and the nightly schedules are installed, updated and removed to match. The shard queues are
   * the same for any set of accounts, so no BullMQ worker starts or stops.
   */
  reconfigure(config: Config): Promise<{ installed: string[]; removed: string[] }>;
  /** Stops taking jobs, lets active ones finish within graceMs, then hands the rest back. */
  close(graceMs: number): Promise<{ forced: boolean }>;
}

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
        return (await import('./run.js')).processRun(job, token, context);
      case JOB.workspace:
        return (await import('./workspace.js')).processWorkspace(job, token, context);
      case JOB.workspacesDone:
        return (await import('./workspaces-done.js')).processWorkspacesDone(job, context);
      case JOB.finish:
        return (await import('./finish.js')).processFinish(job, context);
      case JOB.loadBatch:
        return (await import('./load-batch.js')).processLoadBatch(job, context);
      case JOB.report:
        return (await import('./report.js')).processReport(job, context);
      default:
        throw new Error(`unknown job name ${job.name}`);
    }
  };
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
  await (await import('../../api/http-pools.js')).closeAllPools();
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
  startBullWorkers(o, conns.blocking, jobProcessor(shared.context), workers);
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
