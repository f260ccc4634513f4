// The `load-batch` job (jobs/load-batches.ts): a sweep starts the batch of every warehouse with
// runs waiting; a batch claims its runs, loads each table once for all of them, records them
// (sync_runs rows in one job, then each manifest, last) and ends each run in the ledger.
import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import {
  type Claim,
  LoadBatchJobSchema,
  noRunInFlight,
  type PendingRun,
  setPhase,
  startBatch,
  warehouseGone,
} from '../../../jobs/load-batches.js';
import { SYNC_RUNS } from '../../catalogue/index.js';
import type { LoadResult, Manifest } from '../../records/manifest.js';
import { isFinishedStatus, loadingInBatch } from '../../records/run-state.js';
import type { ObjectStore } from '../../sinks/object-store.js';
import { errorMessage } from '../../util/errors.js';
import { endRun } from '../end.js';
import { loadBatchTables } from '../load-batch.js';
import { type BatchRecording, recordBatch, recordRun } from '../record-run.js';
import { loadStage } from '../stages.js';
import type { JobContext } from './context.js';
import { failedLoadsText, withLedgerAndReports } from './ledger-end.js';

interface Member {
  runId: string;
  pending: PendingRun;
  store: ObjectStore;
}

export async function processLoadBatch(job: Job, ctx: JobContext): Promise<Record<string, unknown>> {
  const data = LoadBatchJobSchema.parse(job.data);
  if ('sweep' in data) {
    const waiting = await ctx.loadBatches.waiting();
    for (const w of waiting) await startBatch(ctx.finishQueue, ctx.config, w.warehouse, w.gen);
    return { started: waiting.length };
  }
  const claim = await ctx.loadBatches.claim(data.warehouse, data.gen, ctx.config.load.batchRuns);
  // Generation past: its runs went to the batch that claimed it.
  if (!claim) return { skipped: 'claimed by another batch' };
  const log = ctx.logger.child({ load_batch: claim.id, job: job.id });
  if (!claim.done) {
    const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    try {
      await loadBatch(claim, data.warehouse, ctx, log);
    } catch (err) {
      if (!final) throw err;
      // No more tries: every run of the batch still ends, saying why and what to do.
      await failBatch(claim, ctx, log, errorMessage(err));
    }
    await ctx.loadBatches.batchDone(claim.ref);
  }
  // Runs left waiting: a batch of them now when they are enough, when nothing else will come, or
  // when this config no longer loads some of them here (no sweep or trigger may come for them).
  if (
    claim.remaining >= ctx.config.load.batchRuns ||
    (claim.remaining > 0 &&
      ((await noRunInFlight(ctx.queues, ctx.finishQueue)) || (await strandsRuns(ctx, data.warehouse))))
  )
    await startBatch(ctx.finishQueue, ctx.config, data.warehouse, data.gen + 1);
  return { batch: claim.id, runs: claim.members.length };
}

/** The batch's runs not recorded yet (a retried job skips those a first try finished). */
async function membersOf(claim: Claim, ctx: JobContext, log: Logger): Promise<Member[]> {
  const members: Member[] = [];
  for (const runId of claim.members) {
    const pending = await ctx.loadBatches.record(runId);
    if (pending === 'done') continue;
    if (!pending) {
      // Redis lost it (a restart without persistence); the run's curated parts are in the store.
      const error = `run not recorded: its record for load batch ${claim.id} is gone from Redis; enqueue the run again (same id) or visync replay --run ${runId}`;
      log.error({ run_id: runId }, error);
      const ledgerRun = await ctx.ledger.get(runId);
      if (ledgerRun && !isFinishedStatus(ledgerRun.status))
        await ctx.ledger.finish(ledgerRun, 'failed', { error });
      continue;
    }
    try {
      members.push({ runId, pending, store: await ctx.storeFor(pending.account) });
    } catch (err) {
      // An account removed from the config since: its run cannot be written any more.
      const ledgerRun = await ctx.ledger.get(runId);
      if (ledgerRun)
        await ctx.ledger.finish(ledgerRun, 'failed', { error: `run not recorded: ${errorMessage(err)}` });
      await ctx.loadBatches.runDone(runId);
    }
  }
  return members;
}

/** Whether some run waiting in the warehouse is one the config no longer loads there. */
async function strandsRuns(ctx: JobContext, warehouse: string): Promise<boolean> {
  const waiting = await ctx.loadBatches.waitingAccounts(warehouse);
  return [...waiting].some(([runId, account]) => warehouseGone(ctx.config, account, warehouse, runId));
}

async function loadBatch(claim: Claim, warehouse: string, ctx: JobContext, log: Logger): Promise<void> {
  const members: Member[] = [];
  for (const m of await membersOf(claim, ctx, log)) {
    // Curated for a warehouse this config no longer loads it into: ended, not loaded elsewhere.
    const gone = warehouseGone(ctx.config, m.pending.account, warehouse, m.runId);
    if (!gone) members.push(m);
    else {
      const why = `load batch ${claim.id}: ${gone}`;
      log.error({ run_id: m.runId, account: m.pending.account }, why);
      await endNotLoaded(ctx, claim.id, m, { notLoaded: why, why }, log);
    }
  }
  if (!members.length) return;
  log.info({ runs: members.length }, 'load batch started');
  for (const m of members) await setPhase(ctx.ledger, m.runId, loadingInBatch(claim.id));
  // Every run of a batch loads into one dataset: any member's loader is the batch's.
  const loader = await ctx.loaderFor(members[0]!.pending.account);
  if (!loader) throw new Error('BigQuery is no longer configured for the accounts of this batch');
  const loadStartedAt = new Date().toISOString();
  const perRun = await loadBatchTables({
    batchId: claim.id,
    runs: members.map((m) => ({
      account: m.pending.account,
      runId: m.runId,
      store: m.store,
      files: m.pending.manifest.files,
      tables: m.pending.tables,
    })),
    loader,
    logger: log,
    done: await ctx.loadBatches.tableLoads(claim.ref),
    onLoaded: (table, load) => ctx.loadBatches.saveTableLoad(claim.ref, table, load),
  });
  const recordedAt = await ctx.loadBatches.recordedAt(claim.ref);
  const runs: BatchRecording[] = members.map((m) => ({
    store: m.store,
    manifest: finishedManifest(m.pending, perRun.get(m.runId) ?? [], recordedAt, loadStartedAt),
  }));
  const recorded = await recordBatch({
    runs,
    batchId: claim.id,
    loader,
    logger: log,
    recordedAt,
    done: (await ctx.loadBatches.tableLoads(claim.ref)).get(SYNC_RUNS.name),
    onLoaded: (load) => ctx.loadBatches.saveTableLoad(claim.ref, SYNC_RUNS.name, load),
  });
  const unrecorded: string[] = [];
  for (const [i, m] of members.entries()) {
    const r = recorded[i]!;
    if (r instanceof Error) unrecorded.push(`${m.runId}: ${r.message}`);
    else await endMember(ctx, m.runId, r, log, claim.id);
  }
  // A manifest that could not be written: the job is tried again (what is done stays done).
  if (unrecorded.length) throw new Error(`run not recorded: ${unrecorded.join('; ')}`);
}

/** The manifest the run's finish job assembled, with its batch's loads (its load stage), finished `at`. */
function finishedManifest(p: PendingRun, loads: LoadResult[], at: string, loadStartedAt = at): Manifest {
  return {
    ...p.manifest,
    finished_at: at,
    loads: [...p.manifest.loads, ...loads],
    stages: { ...p.manifest.stages, load: loadStage(loadStartedAt, loads) },
  };
}

const replayHint = (runId: string) => `visync replay --run ${runId} loads the run's failed tables`;

/** A run of the batch ends (src/run/end.ts), and is marked done in the batch (a retry skips it). */
async function endMember(
  ctx: JobContext,
  runId: string,
  m: Manifest,
  log: Logger,
  batchId: string,
  batchError?: string,
): Promise<void> {
  const failedLoads = failedLoadsText(m);
  const end = withLedgerAndReports(ctx, m, log.child({ account: m.account, run_id: runId }), {
    error: m.error ?? batchError ?? (failedLoads && `${failedLoads}; ${replayHint(runId)}`),
    fields: { phase: `loaded in batch ${batchId}`, phase_at: new Date().toISOString() },
    store: await ctx.storeFor(m.account),
  });
  await endRun(end);
  await ctx.loadBatches.runDone(runId);
}

/** The batch failed for good: each run is recorded with its tables not loaded, and why. */
async function failBatch(claim: Claim, ctx: JobContext, log: Logger, reason: string): Promise<void> {
  const why = `load batch ${claim.id} failed: ${reason}`;
  log.error({ err: reason }, 'load batch failed for good');
  for (const m of await membersOf(claim, ctx, log))
    await endNotLoaded(ctx, claim.id, m, { notLoaded: `${why}; ${replayHint(m.runId)}`, why }, log);
}

/**
 * The run is recorded with its tables not loaded (`notLoaded`, with what to do, on each) and ends;
 * when not even its manifest can be written it ends failed with `why`.
 */
async function endNotLoaded(
  ctx: JobContext,
  batchId: string,
  m: Member,
  reason: { notLoaded: string; why: string },
  log: Logger,
): Promise<void> {
  const loads: LoadResult[] = m.pending.tables.map((table) => ({
    table,
    job_id: '',
    status: 'failed',
    rows: 0,
    error: reason.notLoaded,
    load_batch_id: batchId,
  }));
  try {
    const manifest = await recordRun({
      store: m.store,
      manifest: finishedManifest(m.pending, loads, new Date().toISOString()),
      logger: log,
      notLoaded: reason.notLoaded,
    });
    await endMember(ctx, m.runId, manifest, log, batchId, reason.notLoaded);
  } catch (err) {
    const ledgerRun = await ctx.ledger.get(m.runId);
    if (ledgerRun)
      await ctx.ledger.finish(ledgerRun, 'failed', {
        error: `run not recorded: ${reason.why}; ${errorMessage(err)}`,
      });
    await ctx.loadBatches.runDone(m.runId);
  }
}
