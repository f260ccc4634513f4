// The phase of a run the ledger shows while it is neither extracting nor finished: waiting for,
// or in, a load batch (jobs/load-batches.ts). Kept apart from the batches' module, which loads
// BullMQ: `visync status` reads it at every start.
import type { LedgerRun } from './ledger.js';

/** The ledger phase of a run between its curate and its batch. */
export const AWAITING_LOAD_BATCH = 'awaiting load batch';

/** A ledger record as the batches extend it (phase fields written through RunLedger.update). */
export type PhasedRun = LedgerRun & { phase?: string; phase_at?: string };

/**
 * What the run is waiting for now, if anything: the phase of a running run, set since it started
 * (a run enqueued again starts anew and leaves the phase of its earlier try behind).
 */
export function currentPhase(run: LedgerRun): { phase: string; since: string } | undefined {
  const { phase, phase_at } = run as PhasedRun;
  if (!phase || !phase_at || (run.status !== 'running' && run.status !== 'queued')) return undefined;
  if (run.started_at && Date.parse(phase_at) < Date.parse(run.started_at)) return undefined;
  return { phase, since: phase_at };
}
