// Which complete run's rows a report uses, by the rules of the `_latest` views
// (src/catalogue/views.ts): a run covers a workspace's table when it landed the workspace, called
// every source endpoint of the table and did not fail the table. Snapshot tables: the newest covering
// run dated on or before a day (the state on that day); a report's period end: comparison.ts
// snapshotAtEnd. Daily tables: per day, the newest covering run that returned the day. Pure: it plans, account-data.ts reads.
import { tableByName } from '../catalogue/index.js';
import type { Row } from '../catalogue/types.js';
import type { CompleteRun } from './complete-runs.js';

export const SNAPSHOT_TABLES = [
  'brands',
  'brand_engine_scores',
  'recommendations',
  'buyer_intent',
  'reputation',
  'reputation_claims',
  'reputation_conflicts',
] as const;
export type SnapshotTable = (typeof SNAPSHOT_TABLES)[number];

export const DAILY_TABLES = ['visibility_daily', 'visibility_engine_daily'] as const;
export type DailyTable = (typeof DAILY_TABLES)[number];

export function covers(run: CompleteRun, table: string, brandId: string): boolean {
  const def = tableByName(table);
  return (
    run.workspaces.includes(brandId) &&
    def.sources.every((e) => run.endpoints.includes(e)) &&
    !run.tablesFailed.includes(table)
  );
}

/**
 * Runs that may hold days from `from` on of a daily table for the workspace: every complete run
 * dated on or after `from`, in the order given (newest first), so each day is read from the newest
 * run known that returned it (newestPerDay). No upper bound: a report shows what is known when it
 * is made, so the month's report made on the 1st has the last day that the 1st's run returned.
 */
export function dailyRuns(
  runs: readonly CompleteRun[],
  table: DailyTable,
  brandId: string,
  from: string,
): CompleteRun[] {
  // A run's window ends on its run date: one dated before `from` holds no day of the range.
  return runs.filter((r) => r.runDate >= from && covers(r, table, brandId));
}

/**
 * A complete run that returned the period's last day for the workspace: one dated on that day, or
 * a later one whose window reaches back to it (the next night's run after an outage on the last day).
 */
export function coversLastDay(runs: readonly CompleteRun[], brandId: string, lastDay: string): boolean {
  return runs.some(
    (r) =>
      covers(r, 'brands', brandId) &&
      (r.runDate === lastDay ||
        (r.runDate > lastDay &&
          r.windowStart <= lastDay &&
          DAILY_TABLES.every((t) => covers(r, t, brandId)))),
  );
}

/**
 * Per day, the rows of the newest run (first in `byRun`) that returned that day: one run per day,
 * as `{table}_latest` keeps for daily tables.
 */
export function newestPerDay(byRun: readonly Row[][]): Row[] {
  const taken = new Map<string, unknown>();
  const out: Row[] = [];
  byRun.forEach((rows, i) => {
    for (const row of rows) {
      const day = typeof row.date === 'string' ? row.date : undefined;
      if (day === undefined) continue;
      const owner = taken.get(day);
      if (owner === undefined) taken.set(day, i);
      else if (owner !== i) continue;
      out.push(row);
    }
  });
  return out.sort((a, b) => String(a.date).localeCompare(String(b.date)));
}
