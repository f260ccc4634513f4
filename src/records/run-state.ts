// A run's state, as manifests, the ledger and exit codes name it: its status (and how several runs'
// statuses make one: `run --once` and `enqueue --wait` both end with it, so they exit alike), the
// stages it went through (the manifest's `stages`) and the phase the ledger shows while it is
// neither extracting nor finished. The types live here, below every stage that records them; the
// lifecycle that moves a run through them is in src/run.
import { z } from 'zod';

export type RunStatus = 'succeeded' | 'partial' | 'failed';

/** A run as the ledger holds it: `queued` and `running` before it ends with a RunStatus. */
export type LedgerStatus = 'queued' | 'running' | RunStatus;

/** The statuses a run ends with; the ledger also has `queued` and `running` before that. */
export const FINISHED_RUN_STATUSES: readonly RunStatus[] = ['succeeded', 'partial', 'failed'];

/** Whether a run (a manifest's or the ledger's status) has ended. */
export function isFinishedStatus(status: string | undefined): status is RunStatus {
  return (FINISHED_RUN_STATUSES as readonly (string | undefined)[]).includes(status);
}

/**
 * Several runs (one per account) as one: succeeded only if all did, failed only if all did, else
 * partial, since some accounts' data landed. No runs: succeeded (nothing was asked that failed).
 */
export function combineRunStatuses(statuses: readonly RunStatus[]): RunStatus {
  if (statuses.every((s) => s === 'succeeded')) return 'succeeded';
  if (statuses.every((s) => s === 'failed')) return 'failed';
  return 'partial';
}

/** 0 succeeded, 2 partial, 1 failed: what `run --once`, `replay` and `enqueue --wait` exit with. */
export function exitCodeFor(status: RunStatus): number {
  return status === 'succeeded' ? 0 : status === 'partial' ? 2 : 1;
}

// The manifest's `stages`: how each stage of the run (extract, curate, load, record) ended, and
// when it ran. Absent in manifests written before stages were recorded; a stage a run never
// reached (it stopped before) is absent too. Written through src/run/stages.ts by every driver.

export const STAGE_NAMES = ['extract', 'curate', 'load', 'record'] as const;
export type StageName = (typeof STAGE_NAMES)[number];

export const StageOutcomeSchema = z.enum(['succeeded', 'partial', 'failed', 'skipped']);
export type StageOutcome = z.infer<typeof StageOutcomeSchema>;

export const StageRecordSchema = z.object({
  outcome: StageOutcomeSchema,
  /** ISO times; absent for a skipped stage. */
  started_at: z.string().optional(),
  finished_at: z.string().optional(),
  /** Why it failed (or was partial), as the stage said. */
  error: z.string().optional(),
  /** The typed error's code (src/util/errors.ts), when the failure was one. */
  error_code: z.string().optional(),
});
export type StageRecord = z.infer<typeof StageRecordSchema>;

export const RunStagesSchema = z.object({
  extract: StageRecordSchema.optional(),
  curate: StageRecordSchema.optional(),
  load: StageRecordSchema.optional(),
  record: StageRecordSchema.optional(),
});
export type RunStages = z.infer<typeof RunStagesSchema>;

// The phase of a queued run while it is neither extracting nor finished: its workspaces done,
// waiting for a worker to curate it (its finish job) or curating, then waiting for, or in, a load
// batch. The ledger stores it as text (its Redis field `phase`, these exact strings); it is read
// back into a RunPhase once, by parsePhase.

/** The ledger phase of a run whose workspaces are done, until a worker takes its finish job. */
export const AWAITING_CURATE = 'awaiting curate';

/** The ledger phase of a run being curated (and, without load batches, loaded and recorded). */
export const CURATING = 'curating';

/** The ledger phase of a run between its curate and its batch. */
export const AWAITING_LOAD_BATCH = 'awaiting load batch';

const LOADING_IN_BATCH = 'loading in batch ';

/** A phase as the ledger stores it. */
export type StoredPhase =
  | typeof AWAITING_CURATE
  | typeof CURATING
  | typeof AWAITING_LOAD_BATCH
  | `${typeof LOADING_IN_BATCH}${string}`;

/** A phase as the code reads it. */
export type RunPhase =
  | { name: typeof AWAITING_CURATE | typeof CURATING | typeof AWAITING_LOAD_BATCH }
  | { name: 'loading in batch'; batchId: string };

/** The ledger phase of a run its batch has claimed and is loading. */
export const loadingInBatch = (batchId: string): StoredPhase => `${LOADING_IN_BATCH}${batchId}`;

/** A stored phase read back; undefined for text no version of the ledger wrote. */
export function parsePhase(stored: string): RunPhase | undefined {
  if (stored === AWAITING_CURATE || stored === CURATING || stored === AWAITING_LOAD_BATCH)
    return { name: stored };
  if (stored.startsWith(LOADING_IN_BATCH))
    return { name: 'loading in batch', batchId: stored.slice(LOADING_IN_BATCH.length) };
  return undefined;
}

/** What of a ledger run its current phase is read from. */
export interface PhasedRun {
  status: LedgerStatus;
  started_at?: string | undefined;
  phase?: string | undefined;
  phase_at?: string | undefined;
}

/**
 * What the run is waiting for now, if anything: the phase of a running run, set since it started
 * (a run enqueued again starts anew and leaves the phase of its earlier try behind). `phase` is the
 * stored text (as `visync status` shows it), `state` the same read.
 */
export function currentPhase(
  run: PhasedRun,
): { phase: string; state: RunPhase | undefined; since: string } | undefined {
  const { phase, phase_at } = run;
  if (!phase || !phase_at || isFinishedStatus(run.status)) return undefined;
  if (run.started_at && Date.parse(phase_at) < Date.parse(run.started_at)) return undefined;
  return { phase, state: parsePhase(phase), since: phase_at };
}

/**
 * The run as `visync status` shows it: a phase only while it is current. The ledger keeps the last
 * phase a run had (`curating`) after it ends; a succeeded run has none.
 */
export function withCurrentPhase<R extends PhasedRun>(run: R): R {
  if (currentPhase(run)) return run;
  const { phase: _phase, phase_at: _phaseAt, ...rest } = run;
  return rest as R;
}

/**
 * Why the run must not be replayed now, or undefined: it waits for its load batch or is in one, and
 * the batch loads its tables (a replay would load its rows a second time, with jobs of its own).
 */
export function replayRefusal(run: PhasedRun & { run_id: string }): string | undefined {
  const current = currentPhase(run);
  if (!current?.state) return undefined;
  const after = `if it ends partial or failed, visync replay --run ${run.run_id} then loads what the batch did not`;
  if (current.state.name === AWAITING_LOAD_BATCH)
    return `run ${run.run_id} is awaiting its load batch (since ${current.since}), which will load it: replaying it now would load its rows twice. Wait until visync status no longer lists it as running; ${after}`;
  if (current.state.name === 'loading in batch')
    return `run ${run.run_id} is being loaded by load batch ${current.state.batchId} (since ${current.since}): replaying it now would load its rows twice. Wait until visync status no longer lists it as running; ${after}`;
  return undefined;
}
