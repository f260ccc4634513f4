// Runs of `run --once` whose process stopped before the manifest (killed, out of memory, machine
// lost). The raw landing is the record of such a run: its /me file is landed first, so every run
// that got anywhere has one. `run --once` completes the newest such run of an account (same run id,
// same keys, same BigQuery job ids, so loads that went through are found by id, not appended again)
// before it starts a new run.
import { manifestRunIds } from '../runs/history.js';
import type { RunCoordinates } from '../runs/run-coordinates.js';
import { parseRawKey, rawAccountPrefix } from '../sinks/layout.js';
import type { ObjectStore } from '../sinks/object-store.js';

/**
 * Ids that `run --once` gives its runs (newRunId: `20261121T225508Z-sync-3fa2c1`). Queued runs have
 * logical ids (`20261121-sync-a1b2c3d4`) and are completed by the workers that own them, so a run
 * still going on in a worker is never taken over from here.
 */
const INLINE_RUN_ID = /^\d{8}T\d{6}Z-/;

/** The account's newest run --once run that landed raw files and has no manifest, if any. */
export async function lastInterruptedRun(
  store: ObjectStore,
  account: string,
): Promise<RunCoordinates | undefined> {
  const finished = new Set(await manifestRunIds(store, account));
  let newest: RunCoordinates | undefined;
  for (const key of await store.list(rawAccountPrefix('me', account))) {
    const k = parseRawKey(key);
    if (!k || k.account !== account || !INLINE_RUN_ID.test(k.runId) || finished.has(k.runId)) continue;
    // Time-stamped ids sort by start time.
    if (!newest || k.runId > newest.runId) newest = { account, runId: k.runId, runDate: k.runDate };
  }
  return newest;
}
