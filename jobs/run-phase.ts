// The phase of a run the ledger shows while it is neither extracting nor finished: its workspaces
// done, waiting for a worker to curate it (its finish job, in a queue worked a few jobs at a time
// per process) or curating, then waiting for, or in, a load batch (jobs/load-batches.ts). Kept
// apart from the batches' module, which loads BullMQ: `visync status` reads it at every start.
import { isFinishedStatus } from '../src/records/run-status.js';
import type { LedgerRun } from './ledger.js';

/** The ledger phase of a run whose workspaces are done, until a worker takes its finish job. */
export const AWAITING_CURATE = 'awaiting curate';

/** The ledger phase of a run being curated (and, without load batches, loaded and recorded). */
export const CURATING = 'curating';

/** The ledger phase of a run between its curate and its batch. */
export const AWAITING_LOAD_BATCH = 'awaiting load batch';

const LOADING_IN_BATCH = 'loading in batch ';

/** The ledger phase of a run its batch has claimed and is loading. */
export const loadingInBatch = (batchId: string) => `${LOADING_IN_BATCH}${batchId}`;

/**
 * What the run is waiting for now, if anything: the phase of a running run, set since it started
 * (a run enqueued again starts anew and leaves the phase of its earlier try behind).
 */
export function currentPhase(run: LedgerRun): { phase: string; since: string } | undefined {
  const { phase, phase_at } = run;
  if (!phase || !phase_at || isFinishedStatus(run.status)) return undefined;
  if (run.started_at && Date.parse(phase_at) < Date.parse(run.started_at)) return undefined;
  return { phase, since: phase_at };
}

/**
 * The run as `visync status` shows it: a phase only while it is current. The ledger keeps the last
 * phase a run had (`curating`) after it ends; a succeeded run has none.
 */
export function withCurrentPhase<R extends LedgerRun>(run: R): R {
  if (currentPhase(run)) return run;
  const { phase: _phase, phase_at: _phaseAt, ...rest } = run;
  return rest as R;
}

/**
 * Why the run must not be replayed now, or undefined: it waits for its load batch or is in one, and
 * the batch loads its tables (a replay would load its rows a second time, with jobs of its own).
 */
export function replayRefusal(run: LedgerRun): string | undefined {
  const current = currentPhase(run);
  if (!current) return undefined;
  const after = `if it ends partial or failed, visync replay --run ${run.run_id} then loads what the batch did not`;
  if (current.phase === AWAITING_LOAD_BATCH)
    return `run ${run.run_id} is awaiting its load batch (since ${current.since}), which will load it: replaying it now would load its rows twice. Wait until visync status no longer lists it as running; ${after}`;
  if (current.phase.startsWith(LOADING_IN_BATCH))
    return `run ${run.run_id} is being loaded by load batch ${current.phase.slice(LOADING_IN_BATCH.length)} (since ${current.since}): replaying it now would load its rows twice. Wait until visync status no longer lists it as running; ${after}`;
  return undefined;
}
