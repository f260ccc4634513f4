// When a finished run moves an account's last-success mark. The next nightly window starts from
// that mark, so the mark may only move past days the run really fetched for every workspace and
// every endpoint: a sync of one workspace (--brand), of some endpoints (--endpoints) or of a window
// that starts after the mark (--days) leaves days unfetched, and moving the mark would make the
// next nightly skip them. One rule for the ledger in Redis and for the manifests in the sink.
import { addDays } from '../util/time.js';
import { datedAhead } from './clock.js';
import type { Manifest } from './manifest.js';
import type { RunScope } from './run-scope.js';

/** The API serves at most this many days; a window this long is all a run can still fetch. */
const MAX_WINDOW_DAYS = 365;

export interface CoveredRun {
  status: string;
  run_date: string;
  /** First day of its visibility window (absent in records older than windows: counts as covering). */
  window_from?: string | undefined;
  visibility_days?: number | undefined;
  /** Absent in manifests written before runs recorded it: such a run covered everything. */
  scope?: RunScope | undefined;
}

/**
 * Whether `run`, finished, moves the mark from `markDate` (run date of the current last success)
 * to its own run date: it succeeded, covered every workspace and endpoint, is not older than the
 * mark (a late backfill must not pull the nightly window back), and its window reaches back to the
 * day after the mark, or is as long as the API allows. Dates ahead of today (`now`: a clock that
 * was ahead, src/records/clock.ts) never hold the mark.
 */
export function movesLastSuccess(run: CoveredRun, markDate: string | undefined, now = Date.now()): boolean {
  if (run.status !== 'succeeded') return false;
  if (run.scope && (run.scope.brands !== 'all' || run.scope.endpoints !== 'all')) return false;
  // A run of a clock that was ahead never holds the mark, and a mark it left is no mark at all.
  if (datedAhead(run.run_date, now)) return false;
  if (markDate === undefined || datedAhead(markDate, now)) return true;
  if (run.run_date < markDate) return false;
  if (run.window_from === undefined || (run.visibility_days ?? 0) >= MAX_WINDOW_DAYS) return true;
  return run.window_from <= addDays(markDate, 1);
}

/** What a manifest says the run covered. */
export function manifestCoverage(m: Manifest): CoveredRun {
  return {
    status: m.status,
    run_date: m.run_date,
    window_from: m.window?.from,
    visibility_days: m.window?.visibility_days,
    scope: m.scope,
  };
}
