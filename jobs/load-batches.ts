// Load batches: the finished runs of many accounts loaded into one BigQuery dataset together, one
// load job per table per batch instead of per run. BigQuery allows 1,500 load jobs per table per
// day; one per run spends that at about 1,400 accounts a night in a shared dataset.
//
// A run's finish-run job (src/run/queued/finish.ts) curates, then registers the run here as ready
// for its warehouse (with the manifest it assembled, not yet recorded). A `load-batch` job CLAIMS ready runs in one script: the
// batch record and its members are written before anything is loaded, so a batch job retried or
// taken over loads exactly the same runs, and a run is never in two batches. Batches start every
// `load.batchMinutes` (one scheduler sweeping every warehouse with ready runs), at once when
// `load.batchRuns` runs are ready, and shortly after a run is ready when no other run is in flight
// (waiting would save no job, only delay the run).
//
// Keys share one hash tag (`{PREFIX-load-batches}`), so the scripts run on Redis Cluster too.
// Per warehouse (a hash of its project, dataset, location and endpoint: no secret):
//   pending:{w}  zset of ready run ids (score: ready time), gen:{w} the batch generation,
//   batch:{w}:{gen} the claimed batch (id, members, per-table results, recorded_at, done).
// Per run: run:{id} (account, warehouse, attempt, the gzipped record, batch once claimed, done).
// The job id of a batch is `lb.{w}.{gen}`: triggers that race add one job, and the job of
// generation G claims every run registered while the generation was G.
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { accountSettings, warehouseKey } from '../src/config/account-settings.js';
import type { Config, SinksConfig } from '../src/config/schema.js';
import type { BatchTableLoad } from '../src/records/batch-load.js';
import type { Manifest } from '../src/records/manifest.js';
import type { StoredPhase } from '../src/records/run-state.js';
import type { Queue } from './bullmq.js';
import { JOB } from './definitions.js';
import type { RunLedger } from './ledger.js';
import type { AccountQueues } from './queues.js';
import { type ScriptedRedis, scripted } from './redis-scripts.js';

export const SWEEP_SCHEDULER = 'load-batch-sweep';
/** How long a finished batch and its runs' marks stay (a retried job finds them done). */
const KEEP_SECONDS = 7 * 86_400;
/** An idle trigger waits this long, so runs finishing together share the batch. */
export const IDLE_SETTLE_MS = 1000;

export const LoadBatchJobSchema = z.union([
  z.object({ sweep: z.literal(true) }),
  z.object({ warehouse: z.string().regex(/^[0-9a-f]{16}$/), gen: z.number().int().min(0) }),
]);
export type LoadBatchJobData = z.infer<typeof LoadBatchJobSchema>;

/** What a batch needs to finish a run later: the assembled manifest (no secret in it). */
export interface PendingRun {
  account: string;
  /** Identifies this try of the run (its start): a run enqueued again is a new one. */
  attempt: string;
  /** Without its load entries for the deferred tables and its sync_runs part. */
  manifest: Manifest;
  /** Tables curated and still to load. */
  tables: string[];
}

export interface Claim {
  /** The batch key suffix `{warehouse}:{gen}`. */
  ref: string;
  id: string;
  members: string[];
  done: boolean;
  /** Ready runs of the warehouse left for a later batch. */
  remaining: number;
}

/** The warehouse id of sinks (undefined without BigQuery). */
export function warehouseId(sinks: SinksConfig): string | undefined {
  const key = warehouseKey(sinks);
  return key === undefined ? undefined : createHash('sha256').update(key).digest('hex').slice(0, 16);
}

export const batchJobId = (warehouse: string, gen: number) => `lb.${warehouse}.${gen}`;

export class LoadBatches {
  readonly #redis: ScriptedRedis;
  readonly #base: string;

  constructor(redis: Redis, prefix: string) {
    this.#redis = scripted(redis);
    this.#base = `${prefix}:{${prefix}-load-batches}`;
  }

  #run(runId: string) {
    return `${this.#base}:run:${runId}`;
  }
  #pending(w: string) {
    return `${this.#base}:pending:${w}`;
  }
  #gen(w: string) {
    return `${this.#base}:gen:${w}`;
  }
  #batch(ref: string) {
    return `${this.#base}:batch:${ref}`;
  }
  get #warehouses() {
    return `${this.#base}:warehouses`;
  }

  /** Whether this try of the run is in a batch already (its finish job retried): nothing to do. */
  async claimed(runId: string, attempt: string): Promise<boolean> {
    const [a, batch] = await this.#redis.hmget(this.#run(runId), 'attempt', 'batch');
    return a === attempt && batch !== null;
  }

  /** The run is ready for a batch of its warehouse; undefined when it is claimed already. */
  async register(
    warehouse: string,
    runId: string,
    run: PendingRun,
  ): Promise<{ gen: number; pending: number } | undefined> {
    const record = gzipSync(JSON.stringify(run));
    const [gen, pending] = (await this.#redis.visyncBatchRegister(
      this.#run(runId),
      this.#pending(warehouse),
      this.#warehouses,
      this.#gen(warehouse),
      runId,
      run.account,
      warehouse,
      run.attempt,
      record,
    )) as [number, number];
    return gen < 0 ? undefined : { gen, pending };
  }

  /** Claims up to `limit` ready runs into batch `gen` of the warehouse, or returns it as claimed. */
  async claim(warehouse: string, gen: number, limit: number, now = new Date()): Promise<Claim | undefined> {
    const ref = `${warehouse}:${gen}`;
    // Read only when this call claims; a retry finds the id stored with the batch.
    const id = `lb-${warehouse.slice(0, 8)}-${now.toISOString().replace(/[-:.]/g, '')}-${gen}`;
    const r = (await this.#redis.visyncBatchClaim(
      this.#batch(ref),
      this.#gen(warehouse),
      this.#pending(warehouse),
      this.#warehouses,
      gen,
      limit,
      `${this.#base}:run:`,
      ref,
      warehouse,
      id,
      KEEP_SECONDS,
    )) as [string, string, string, number] | null;
    if (!r) return undefined;
    return { ref, id: r[0], members: r[1] ? r[1].split(',') : [], done: r[2] === '1', remaining: r[3] };
  }

  /** What the batch needs of the run; `done` once a batch recorded it; undefined when Redis lost it. */
  async record(runId: string): Promise<PendingRun | 'done' | undefined> {
    const [record, done] = await Promise.all([
      this.#redis.hgetBuffer(this.#run(runId), 'record'),
      this.#redis.hget(this.#run(runId), 'done'),
    ]);
    if (done === '1') return 'done';
    return record ? (JSON.parse(gunzipSync(record).toString('utf8')) as PendingRun) : undefined;
  }

  async tableLoads(ref: string): Promise<Map<string, BatchTableLoad>> {
    const h = await this.#redis.hgetall(this.#batch(ref));
    const out = new Map<string, BatchTableLoad>();
    for (const [k, v] of Object.entries(h))
      if (k.startsWith('table:')) out.set(k.slice(6), JSON.parse(v) as BatchTableLoad);
    return out;
  }

  async saveTableLoad(ref: string, table: string, load: BatchTableLoad): Promise<void> {
    await this.#redis.hset(this.#batch(ref), `table:${table}`, JSON.stringify(load));
  }

  /** When the batch records its runs: the first try's, so a retry writes the same sync_runs rows. */
  async recordedAt(ref: string, now = new Date()): Promise<string> {
    await this.#redis.hsetnx(this.#batch(ref), 'recorded_at', now.toISOString());
    return (await this.#redis.hget(this.#batch(ref), 'recorded_at')) ?? now.toISOString();
  }

  /** The run is recorded (manifest and ledger): a retried batch job skips it. */
  async runDone(runId: string): Promise<void> {
    await this.#redis
      .multi()
      .hset(this.#run(runId), 'done', '1')
      .hdel(this.#run(runId), 'record')
      .expire(this.#run(runId), KEEP_SECONDS)
      .exec();
  }

  async batchDone(ref: string): Promise<void> {
    await this.#redis.hset(this.#batch(ref), 'done', '1');
  }

  /** Runs ready and not yet claimed by a batch, over every warehouse. */
  async waitingRuns(): Promise<number> {
    const ws = await this.#redis.smembers(this.#warehouses);
    const counts = await Promise.all(ws.map((w) => this.#redis.zcard(this.#pending(w))));
    return counts.reduce((sum, n) => sum + n, 0);
  }

  /** The accounts of the warehouse's ready runs, by run id. */
  async waitingAccounts(warehouse: string): Promise<Map<string, string>> {
    const runs = await this.#redis.zrange(this.#pending(warehouse), 0, -1);
    const accounts = await Promise.all(runs.map((r) => this.#redis.hget(this.#run(r), 'account')));
    return new Map(runs.flatMap((r, i) => (accounts[i] ? [[r, accounts[i]] as [string, string]] : [])));
  }

  /** Warehouses with ready runs, and the generation whose batch would take them. */
  async waiting(): Promise<{ warehouse: string; gen: number }[]> {
    const ws = await this.#redis.smembers(this.#warehouses);
    return Promise.all(
      ws.map(async (w) => ({ warehouse: w, gen: Number((await this.#redis.get(this.#gen(w))) ?? 0) })),
    );
  }
}

/**
 * Why the config no longer loads the run into the warehouse it waits in (BigQuery removed, the
 * account's dataset changed, the account removed), with what to do; undefined when it does.
 */
export function warehouseGone(
  config: Config,
  account: string,
  warehouse: string,
  runId: string,
): string | undefined {
  const a = config.accounts.find((x) => x.name === account);
  if (!a)
    return `account ${account} is no longer in the config, so its run is not loaded; put the account back, then visync replay --run ${runId}`;
  const sinks = accountSettings(config, a).sinks;
  if (warehouseId(sinks) === warehouse) return undefined;
  const bq = sinks.bigquery;
  if (!bq)
    return `BigQuery is no longer configured for account ${account}, so its run is not loaded; once it is configured again, visync replay --run ${runId} loads the run`;
  return `account ${account} now loads into ${bq.projectId}.${bq.dataset}, not the dataset its run was curated for, so the run is not loaded; visync replay --run ${runId} loads it into ${bq.projectId}.${bq.dataset}`;
}

/**
 * Warehouses whose waiting runs this config no longer loads there, all or some of them (BigQuery
 * removed, an account's dataset changed or the account removed): no sweep or trigger may come for
 * them, so their batch is started now and ends those runs (src/run/queued/load-batch.ts).
 */
export async function strandedWarehouses(
  batches: LoadBatches,
  config: Config,
): Promise<{ warehouse: string; gen: number }[]> {
  const out: { warehouse: string; gen: number }[] = [];
  for (const w of await batches.waiting()) {
    const accounts = await batches.waitingAccounts(w.warehouse);
    if ([...accounts].some(([runId, a]) => warehouseGone(config, a, w.warehouse, runId))) out.push(w);
  }
  return out;
}

/** Options of a batch job: retried like a run's jobs, kept like them. */
export function batchJobOptions(config: Config) {
  return {
    attempts: config.jobs.attempts,
    backoff: { type: 'exponential', delay: 2_000 },
    removeOnComplete: { age: 7 * 86_400, count: 10_000 },
    removeOnFail: { age: 30 * 86_400 },
  };
}

/**
 * Starts the batch that takes the warehouse's runs of generation `gen` (one job per generation,
 * however many triggers race). A job of that generation that ended without claiming (it failed
 * before its claim) would swallow every later trigger: it is removed first.
 */
export async function startBatch(
  queue: Queue,
  config: Config,
  warehouse: string,
  gen: number,
  delayMs = 0,
): Promise<void> {
  const jobId = batchJobId(warehouse, gen);
  const existing = await queue.getJob(jobId);
  if (existing) {
    const state = await existing.getState();
    if (state !== 'failed') return;
    await existing.remove();
  }
  await queue.add(JOB.loadBatch, { warehouse, gen } satisfies LoadBatchJobData, {
    ...batchJobOptions(config),
    jobId,
    ...(delayMs > 0 ? { delay: delayMs } : {}),
  });
}

/**
 * Whether no run is in flight anywhere: no run or workspace job waiting or running, no run's
 * workspaces-done parent waiting for its workspaces or to run, no finish job waiting in
 * `finishes` (the finish queue). Active workspaces-done and finish jobs (which register their runs and check in turn) and delayed jobs (nightly schedules, jobs
 * stepping aside for budget, jobs waiting to be retried) do not count.
 */
export async function noRunInFlight(queues: AccountQueues, finishes: Queue): Promise<boolean> {
  const shards = queues.all();
  const counts = await Promise.all([
    ...shards.map((q) => q.getJobCounts('waiting-children', 'waiting', 'prioritized')),
    // Finish jobs only: load-batch jobs wait in `waiting` (the finish queue, jobs/finish-queue.ts).
    finishes.getJobCounts('prioritized'),
  ]);
  if (counts.some((c) => Object.values(c).some((n) => n > 0))) return false;
  const active = (await Promise.all(shards.map((q) => q.getActive()))).flat();
  return !active.some((j) => j.name === JOB.run || j.name === JOB.workspace);
}

/** Marks the run's phase in the ledger (shown by `visync status`). */
export async function setPhase(ledger: RunLedger, runId: string, phase: StoredPhase): Promise<void> {
  await ledger.update(runId, { phase, phase_at: new Date().toISOString() });
}

/**
 * How long a run may wait for its batch before that is news: a sweep period, another for a batch
 * that was busy, and an hour for the batch's loads.
 */
export function expectedBatchWaitMs(config: Config): number {
  return (2 * config.load.batchMinutes + 60) * 60_000;
}
