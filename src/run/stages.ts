// The stages of a run (extract, curate, load, record) as every driver runs them: `run --once` runs
// all of them in its process (src/run/inline/run-inline.ts); a queued run extracts in its workspace
// jobs, curates (and loads, without load batches) in its finish job and loads in its load batch
// (src/run/queued/). The drivers decide where a stage runs; how it runs, and how its outcome is
// recorded in the manifest's `stages` (src/records/run-state.ts), is here, once.

import type { LoadResult, WorkspaceResult } from '../records/manifest.js';
import type { RunStages, StageOutcome, StageRecord } from '../records/run-state.js';
import { errorMessage, VisyncError } from '../util/errors.js';
import type { RunContext } from './context.js';
import { type FinishRunOptions, type FinishRunResult, finishRun } from './finish-run.js';

const now = () => new Date().toISOString();

/** A stage's error: its message, and the typed error's code when it is one (src/util/errors.ts). */
export function stageError(err: unknown): Pick<StageRecord, 'error' | 'error_code'> {
  return { error: errorMessage(err), ...(err instanceof VisyncError ? { error_code: err.code } : {}) };
}

/** A stage that ran from `startedAt` until `finishedAt` (now), with what stopped it if anything. */
export function ranStage(
  outcome: StageOutcome,
  startedAt: string,
  err?: unknown,
  finishedAt: string = now(),
): StageRecord {
  return {
    outcome,
    started_at: startedAt,
    finished_at: finishedAt,
    ...(err === undefined ? {} : stageError(err)),
  };
}

/** A stage the run did not get to, or had nothing for. */
export const SKIPPED: StageRecord = { outcome: 'skipped' };

/** The stages after extract of a run that stopped with nothing to curate. */
export const NOTHING_TO_CURATE: RunStages = { curate: SKIPPED, load: SKIPPED };

/**
 * The extract stage of the whole run (inline: one call; queued: its workspace jobs, from the run's
 * start until the last of them ended): failed when the account stopped before any workspace
 * landed or every workspace failed, partial when some failed, else succeeded.
 */
export function extractStage(
  startedAt: string,
  r: { error?: unknown; workspaces: readonly WorkspaceResult[] },
  finishedAt?: string,
): StageRecord {
  const failed = r.workspaces.filter((w) => w.status === 'failed').length;
  const ok = r.workspaces.length - failed;
  const stopped = r.error !== undefined && r.error !== '';
  let outcome: StageOutcome = failed || stopped ? 'partial' : 'succeeded';
  if ((r.workspaces.length > 0 && ok === 0) || (stopped && ok === 0)) outcome = 'failed';
  const err = stopped ? r.error : r.workspaces.find((w) => w.error)?.error;
  return ranStage(outcome, startedAt, err, finishedAt);
}

/** The load stage from its loads: skipped with none, else by how many failed (the first one's why). */
export function loadStage(startedAt: string, loads: readonly LoadResult[]): StageRecord {
  if (!loads.length) return SKIPPED;
  const failed = loads.filter((l) => l.status === 'failed');
  const outcome = failed.length === 0 ? 'succeeded' : failed.length === loads.length ? 'failed' : 'partial';
  return ranStage(outcome, startedAt, failed[0]?.error);
}

export type CurateAndLoadResult = FinishRunResult & { stages: RunStages };

/**
 * The curate stage and, unless `deferLoads` leaves it to a load batch, the load stage: the run's
 * landing curated and its tables loaded (src/run/finish-run.ts), each stage timed. Without a
 * warehouse the load stage is skipped.
 */
export async function curateAndLoad(
  c: Pick<RunContext, 'store' | 'run' | 'log'> &
    Partial<Pick<RunContext, 'history'>> & { startedAt?: string | undefined },
  o: Omit<FinishRunOptions, 'store' | 'run' | 'logger' | 'startedAt' | 'history' | 'onCurated'>,
): Promise<CurateAndLoadResult> {
  const started = now();
  let curate: StageRecord = ranStage('failed', started);
  const finished = await finishRun({
    ...o,
    store: c.store,
    run: c.run,
    logger: c.log,
    startedAt: c.startedAt,
    history: c.history,
    onCurated: (r) => {
      const outcome = r.error !== undefined ? 'failed' : r.failedTables ? 'partial' : 'succeeded';
      curate = ranStage(outcome, started, r.error);
    },
  });
  const stages: RunStages = { curate };
  if (curate.outcome === 'failed' || (!o.loader && !o.deferLoads)) stages.load = SKIPPED;
  else if (!o.deferLoads) stages.load = loadStage(curate.finished_at ?? started, finished.loads);
  return { ...finished, stages };
}
