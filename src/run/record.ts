// The record stage of an inline run (src/run/inline): what the run set out to do (its plan, for a
// completion should it stop before its manifest), its manifest (and sync_runs row), and the
// second records beside the manifest (the ledger), whose loss never fails the run. Both drivers
// record through ./record-run.ts; the queued jobs call it directly, their plan and ledger being
// in Redis.
import type { Logger } from 'pino';
import { type Manifest, manifestLocation } from '../records/manifest.js';
import { type PlannedRun, writePlannedRun } from '../records/planned-run.js';
import type { StartedRun } from '../records/recorder.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { errorMessage } from '../util/errors.js';
import { type RecordRunOptions, recordRun } from './record-run.js';
import { ranStage } from './stages.js';

/** What the run sets out to do, from its first manifest: for its completion, should it stop early. */
export function startedRun(m: Manifest): StartedRun {
  return {
    run_id: m.run_id,
    account: m.account,
    kind: m.kind,
    run_date: m.run_date,
    started_at: m.started_at,
    window: m.window,
    scope: m.scope,
  };
}

/** A plan that cannot be written costs the completion its measure, not the run: logged, not fatal. */
export async function writePlan(store: ObjectStore, log: Logger, plan: PlannedRun): Promise<void> {
  try {
    await writePlannedRun(store, plan);
  } catch (err) {
    log.warn(
      { err: errorMessage(err) },
      "could not write the run's plan; a completion would judge by its landing",
    );
  }
}

/**
 * Writes the manifest (and loads sync_runs); a run that cannot be recorded failed, and
 * `onUnrecorded` hears of it (the next `run --once` completes such a run).
 */
export async function recordManifest(
  o: RecordRunOptions,
  onUnrecorded?: (runId: string) => void,
): Promise<Manifest> {
  const startedAt = new Date().toISOString();
  try {
    return await recordRun(o);
  } catch (err) {
    // Nothing more can be written: the run failed, and the error names the path it could not write.
    onUnrecorded?.(o.manifest.run_id);
    const record = ranStage('failed', startedAt, err);
    return {
      ...o.manifest,
      status: 'failed',
      error: `run not recorded: manifest ${manifestLocation(o.store, o.manifest.account, o.manifest.run_id)} not written: ${errorMessage(err)}`,
      error_code: 'not_recorded',
      stages: { ...o.manifest.stages, record },
    };
  }
}

/** The ledger is a second record (the manifest is the first): losing it must not fail the run. */
export async function secondRecord(
  log: Logger,
  what: string,
  write: () => Promise<void> | undefined,
): Promise<void> {
  try {
    await write();
  } catch (err) {
    log.warn(
      { err: errorMessage(err) },
      `could not record the run's ${what} in the ledger; the manifest has it`,
    );
  }
}
