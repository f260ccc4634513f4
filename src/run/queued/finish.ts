// The `finish-run` job, in the finish queue (jobs/finish-queue.ts): a run's workspaces-done job
// (src/run/queued/workspaces-done.ts) hands it the run once every workspace job is done (or failed for
// good). It curates the raw landing (normalise, gzip), loads each table into BigQuery once when the
// account's warehouse takes runs one at a time, and records the run (its sync_runs row, then the
// manifest, last); it ends through src/run/end.ts. With load batches it loads nothing itself: the
// run waits, curated, for a load batch of its warehouse (jobs/load-batches.ts), which loads and
// records it with other runs.
import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import { type FinishJobData, FinishJobSchema } from '../../../jobs/definitions.js';
import { stoppedFailure } from '../../../jobs/ledger.js';
import {
  IDLE_SETTLE_MS,
  noRunInFlight,
  setPhase,
  startBatch,
  warehouseId,
} from '../../../jobs/load-batches.js';
import { RedisKeyLock } from '../../../jobs/redis-key-lock.js';
import { accountSettings } from '../../config/account-settings.js';
import { RunHistory } from '../../records/history.js';
import { type Manifest, readManifest, requestsFromLanding } from '../../records/manifest.js';
import { runScope } from '../../records/run-scope.js';
import { AWAITING_LOAD_BATCH, CURATING } from '../../records/run-state.js';
import { type RunContext, runManifest } from '../context.js';
import { endRun } from '../end.js';
import { recordRun } from '../record-run.js';
import { curateAndLoad, extractStage } from '../stages.js';
import type { JobContext } from './context.js';
import { unrecordedOnLastAttempt, withLedgerAndReports } from './ledger-end.js';

export async function processFinish(job: Job<FinishJobData>, ctx: JobContext): Promise<{ status: string }> {
  const data = FinishJobSchema.parse(job.data);
  const log = ctx.logger.child({ account: data.account, run_id: data.runId, job: job.id });
  return unrecordedOnLastAttempt(job, ctx, data.runId, log, () => finishRun(data, ctx, log));
}

async function finishRun(data: FinishJobData, ctx: JobContext, log: Logger): Promise<{ status: string }> {
  const { workspaces, drift } = data;

  const run = { account: data.account, runId: data.runId, runDate: data.runDate };
  // A finish retried after a crash: BigQuery loads recorded by a manifest already written are not
  // redone; the others are found by their job ids (409) rather than appended twice.
  const store = await ctx.storeFor(data.account);
  const loader = await ctx.loaderFor(data.account);
  const batched = loader?.loadBatch !== undefined;
  // This try of the run is in a batch already: the finish job ran before and was retried.
  if (batched && (await ctx.loadBatches.claimed(data.runId, data.startedAt)))
    return { status: AWAITING_LOAD_BATCH };
  await setPhase(ctx.ledger, data.runId, CURATING);
  const c: RunContext = {
    run,
    kind: data.kind,
    startedAt: data.startedAt,
    window: { days: data.visibilityDays, buyerIntentDays: data.buyerIntentDays },
    // Jobs of versions before scopes carry none: every workspace and endpoint, as manifests read it.
    scope: data.scope ?? runScope(),
    store,
    // The finish job's own listing: runs that ended since the run job started are compared with.
    history: new RunHistory(store, data.account),
    log,
    budget: ctx.budget,
  };
  const previous = await readManifest(store, data.account, data.runId);
  const finished = await curateAndLoad(c, {
    loader: batched ? undefined : loader,
    deferLoads: batched,
    previousLoads: previous?.loads,
    // Workers on other machines, and run --once, may write the same latest/ bundles.
    latestLock: new RedisKeyLock(ctx.redis, ctx.config.redis.prefix),
  });
  const ledgerRun = await ctx.ledger.get(data.runId);
  // Redis lost the run (its data gone mid-run): its counters with it; what landed is counted instead.
  const requests = ledgerRun
    ? {
        requests: {
          calls: ledgerRun.calls,
          rate_limited: ledgerRun.rate_limited,
          retries: ledgerRun.retries,
          waited_ms: ledgerRun.waited_ms,
        },
      }
    : requestsFromLanding(finished.rawFiles);
  // The account's stop (a revoked key mid-run), with its code: the run records why, as inline.
  const stop = ledgerRun?.stopped ? stoppedFailure({ ...ledgerRun, stopped: ledgerRun.stopped }) : undefined;
  const extract = extractStage(data.startedAt, { error: stop?.error, workspaces }, data.extractedAt);
  const assembled = runManifest(c, {
    error: stop?.error,
    errorCode: stop?.error_code,
    workspaces,
    files: [...finished.rawFiles, ...finished.files],
    loads: finished.loads,
    requests: requests.requests,
    drift: [...drift, ...finished.drift],
    stages: { extract, ...finished.stages },
  });
  const finishedRun: Manifest = { ...assembled, ...requests };
  if (batched) {
    await awaitBatch(ctx, data, { manifest: finishedRun, tables: finished.deferred ?? [] }, log);
    return { status: AWAITING_LOAD_BATCH };
  }
  const manifest = await recordRun({ store, manifest: finishedRun, logger: log, loader });
  await endRun(withLedgerAndReports(ctx, manifest, log, { store }));
  return { status: manifest.status };
}

/**
 * The run, curated, waits for a load batch of its warehouse; the batch starts now when enough runs
 * wait, or shortly when no other run is in flight (waiting longer would save no load job).
 */
async function awaitBatch(
  ctx: JobContext,
  data: FinishJobData,
  pending: { manifest: Manifest; tables: string[] },
  log: Logger,
): Promise<void> {
  const warehouse = warehouseId(accountSettings(ctx.config, data.account).sinks);
  if (!warehouse) throw new Error(`account ${data.account} has no BigQuery dataset to batch into`);
  // Before the run can be claimed: a batch that takes it at once then marks it loading, not waiting.
  await setPhase(ctx.ledger, data.runId, AWAITING_LOAD_BATCH);
  const registered = await ctx.loadBatches.register(warehouse, data.runId, {
    account: data.account,
    attempt: data.startedAt,
    ...pending,
  });
  if (!registered) return;
  log.info(
    { warehouse, waiting: registered.pending, tables: pending.tables.length },
    'run awaits a load batch',
  );
  if (registered.pending >= ctx.config.load.batchRuns) {
    await startBatch(ctx.finishQueue, ctx.config, warehouse, registered.gen);
  } else if (await noRunInFlight(ctx.queues, ctx.finishQueue)) {
    // Every warehouse with waiting runs: a run of another dataset may have finished just before.
    for (const w of await ctx.loadBatches.waiting())
      await startBatch(ctx.finishQueue, ctx.config, w.warehouse, w.gen, IDLE_SETTLE_MS);
  }
}
