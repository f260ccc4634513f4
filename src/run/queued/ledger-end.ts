// What a queued run's end adds to the end of every run (src/run/end.ts, endRun, which the queued
// driver calls wherever its last stage ran: its run job that could not fan out, its finish job,
// its load batch): the ledger's terminal record in Redis (or the manifest put back when Redis lost
// the run), and then its scheduled reports queued. And, for a run that could not be recorded at
// all, the ledger saying so on the job's last attempt. `run --once` ends its runs through the same
// endRun, its ledger being its RunRecorder (jobs/ledger-recorder.ts).
import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import { UnrecoverableError } from '../../../jobs/bullmq.js';
import type { LedgerRun } from '../../../jobs/ledger.js';
import { storedCode } from '../../records/error-code.js';
import type { Manifest } from '../../records/manifest.js';
import { manifestKey } from '../../sinks/layout.js';
import type { ObjectStore } from '../../sinks/object-store.js';
import { errorMessage, type RunErrorCode } from '../../util/errors.js';
import type { RunEnd } from '../end.js';
import type { JobContext } from './context.js';
import { queueScheduledReports } from './report-trigger.js';

/** The failed loads of a run, as the ledger's error names them. */
export function failedLoadsText(m: Manifest): string | undefined {
  const failed = m.loads.filter((l) => l.status === 'failed').map((l) => `${l.table}: ${l.error}`);
  return failed.length ? failed.join('; ') : undefined;
}

export interface LedgerEnd {
  /** The ledger's error; default the manifest's, else its failed loads. */
  error?: string | undefined;
  /** The code of `error` when it is given (else the manifest's, or load_failed for its failed loads). */
  errorCode?: RunErrorCode | undefined;
  /** More ledger fields (the phase a load batch leaves). */
  fields?: Partial<LedgerRun>;
  /** The run's store: with it, its brand events are alerted. */
  store?: ObjectStore | undefined;
  /** Whether the ledger counts the manifest's workspace outcomes (the run's jobs did not). */
  workspaces?: boolean;
}

/**
 * The recorded run's end as a worker ends it (for src/run/end.ts's endRun): the ledger's terminal
 * record, the alert not awaited (it never holds a worker slot), then its scheduled reports queued.
 */
export function withLedgerAndReports(ctx: JobContext, m: Manifest, log: Logger, o: LedgerEnd = {}): RunEnd {
  return {
    config: ctx.config,
    log,
    manifest: m,
    store: o.store,
    ledger: () => finishInLedger(ctx, m, o),
    awaitAlert: false,
    afterwards: () => queueScheduledReports(ctx, m, log),
  };
}

/** The ledger's terminal record of the run; a run Redis lost is put back, as its manifest records it. */
async function finishInLedger(ctx: JobContext, m: Manifest, o: LedgerEnd): Promise<void> {
  const ledgerRun = await ctx.ledger.get(m.run_id);
  if (!ledgerRun) return ctx.ledger.restore(m);
  const error = o.error ?? m.error ?? failedLoadsText(m);
  const code: RunErrorCode | undefined =
    o.error !== undefined && o.errorCode !== undefined
      ? o.errorCode
      : m.error
        ? storedCode(m)
        : error
          ? 'load_failed'
          : undefined;
  await ctx.ledger.finish(
    ledgerRun,
    m.status,
    {
      manifest_key: manifestKey(m.account, m.run_id),
      // The ledger writes no undefined field (its hash keeps any error from before).
      ...(error ? { error } : {}),
      ...(code ? { error_code: code } : {}),
      ...o.fields,
    },
    o.workspaces === false ? undefined : m.workspaces,
  );
}

/** The run could not be recorded at all: the ledger ends it failed, saying so (nobody waits for it forever). */
export async function unrecordedInLedger(ctx: JobContext, runId: string, error: string): Promise<void> {
  const ledgerRun = await ctx.ledger.get(runId);
  if (ledgerRun) await ctx.ledger.finish(ledgerRun, 'failed', { error, error_code: 'not_recorded' });
}

/**
 * Runs `work`, the part of a job that records the run. What throws stops the run from being
 * recorded at all (faults of the sink and the warehouse end in a partial manifest instead): on the
 * job's last attempt the ledger says so, so nobody waits forever and the run can be enqueued again.
 */
export async function unrecordedOnLastAttempt<T>(
  job: Job,
  ctx: JobContext,
  runId: string,
  log: Logger,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const message = errorMessage(err);
    if (final) {
      await unrecordedInLedger(ctx, runId, `run not recorded: ${message}`);
      log.error({ err: message }, 'run failed: not recorded');
      throw new UnrecoverableError(message);
    }
    throw err;
  }
}
