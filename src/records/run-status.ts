// A run's outcome, as manifests, the ledger and exit codes name it, and how several runs' outcomes
// make one: `run --once` and `enqueue --wait` both end with it, so they exit alike.

import type { DriftEntry } from './manifest.js';

export type RunStatus = 'succeeded' | 'partial' | 'failed';

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

/**
 * Why the run's list of workspaces is incomplete (GET /brands listed fewer than its count), if
 * it is: from the run's drift, which replay and completion rebuild from the raw landing.
 */
export function workspaceListIncomplete(m: { drift: readonly DriftEntry[] }): string | undefined {
  return m.drift.find((d) => d.endpoint === 'brands' && d.kind === 'list_incomplete')?.detail;
}
