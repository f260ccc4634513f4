// What a `run --once` run set out to do, written beside its manifest's key when it starts and again
// once /brands told it its workspaces: its start, window and scope, and the calls each workspace is
// to make. A run that stops before its manifest is completed from its raw landing; this record is
// what that landing is measured against (src/run/replay.ts), so a workspace missing a planned
// call is failed even when no other workspace landed that call.
import { runPlanKey } from '../sinks/layout.js';
import { type ObjectStore, putJsonObject, readJsonObject } from '../sinks/object-store.js';
import type { StartedRun } from './recorder.js';
import type { RunCoordinates } from './run-coordinates.js';

export interface PlannedRun extends StartedRun {
  /** The workspaces to extract, once /brands has landed (absent before). */
  workspaces?: string[];
  /** The calls every workspace is to make, named by callId (src/api/endpoints.ts). */
  workspace_calls?: string[];
}

export async function writePlannedRun(store: ObjectStore, plan: PlannedRun): Promise<void> {
  await putJsonObject(store, runPlanKey(plan.account, plan.run_id), plan);
}

/** The run's plan; undefined for runs of versions that wrote none, or a plan that does not parse. */
export function readPlannedRun(
  store: ObjectStore,
  run: Pick<RunCoordinates, 'account' | 'runId'>,
): Promise<PlannedRun | undefined> {
  return readJsonObject<PlannedRun>(store, runPlanKey(run.account, run.runId));
}
