// Runs of `run --once` whose process stopped before the manifest (killed, out of memory, machine
// lost, a sink that could not take the manifest). The raw landing is the record of such a run: its
// /me file is landed first, so every run that got anywhere has one. "No manifest yet" is also what a
// run still working looks like, so a run is taken only when its lease (src/records/run-lease.ts) says
// its owner is gone and that owner was a `run --once`: queued runs are their workers' to complete.
// `run --once` completes the newest such run of an account (same run id, same keys, same BigQuery
// job ids, so loads that went through are found by id, not appended again) before its new run.
import { RunHistory } from '../records/history.js';
import type { RunCoordinates } from '../records/run-coordinates.js';
import {
  type LeaseSignal,
  leaseOwnerGone,
  RUN_ONCE_OWNER,
  type RunLease,
  readRunLease,
} from '../records/run-lease.js';
import { parseRawKey, rawAccountPrefix } from '../sinks/layout.js';
import type { ObjectStore } from '../sinks/object-store.js';

/**
 * Ids `run --once` gave its runs before leases (`20261121T225508Z-sync-3fa2c1`). Such a run has no
 * lease; it is taken once its id's start time is `ttlMs` past, as those versions did at once.
 */
const LEGACY_INLINE_RUN_ID = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z-/;

export interface InterruptedRun extends RunCoordinates {
  /** Absent for a run of a version that wrote none. */
  lease?: RunLease;
}

export interface InterruptedOptions {
  /** The lease's Redis side, when Redis is configured. */
  signal?: LeaseSignal | undefined;
  /** How long a run without a lease is given from its start (the lease TTL). */
  ttlMs: number;
  now?: number;
}

/** The account's newest run --once run that landed raw files, has no manifest and no owner left. */
export async function lastInterruptedRun(
  store: ObjectStore,
  account: string,
  o: InterruptedOptions,
  history = new RunHistory(store, account),
): Promise<InterruptedRun | undefined> {
  const finished = new Set(await history.runIds());
  const candidates = new Map<string, RunCoordinates>();
  for (const key of await store.list(rawAccountPrefix('me', account))) {
    const k = parseRawKey(key);
    if (!k || k.account !== account || finished.has(k.runId)) continue;
    candidates.set(k.runId, { account, runId: k.runId, runDate: k.runDate });
  }
  // Newest first: ids start with the run date, and fresh ids of one date sort by start time.
  for (const run of [...candidates.values()].sort((a, b) => (a.runId < b.runId ? 1 : -1))) {
    const lease = await readRunLease(store, run);
    if (lease) {
      if (lease.owner === RUN_ONCE_OWNER && (await leaseOwnerGone(lease, run, o.signal, o.now)))
        return { ...run, lease };
    } else if (legacyRunOver(run.runId, o)) return run;
  }
  return undefined;
}

function legacyRunOver(runId: string, o: InterruptedOptions): boolean {
  const m = LEGACY_INLINE_RUN_ID.exec(runId);
  if (!m) return false;
  const started = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`);
  return started + o.ttlMs < (o.now ?? Date.now());
}
