// Which workspaces have days in a period, from the complete runs known (docs/reports.md "Which data
// a report reads"): a run holds the days of its visibility window (sync_runs.window_start to its run
// date), so a run dated after a period can hold all of it (a backfill, a new client's first night),
// and a client removed from the account keeps the days its earlier runs returned. When a workspace
// has none, the line says what is missing, never that the workspace is unknown. Pure.

import { longDay, snapshotAtEnd } from './comparison.js';
import { type CompleteRun, newestRunFirst } from './complete-runs.js';
import type { Period } from './period.js';
import { covers, DAILY_TABLES, type SnapshotTable } from './select.js';

/** The run returned days of the period: dated on or after its first day, its window reaching into it. */
export function returnsDaysOf(run: CompleteRun, period: Pick<Period, 'from' | 'to'>): boolean {
  return run.runDate >= period.from && run.windowStart <= period.to;
}

/** A run that returned the workspace's daily figures (any daily table). */
const returnsDailyOf = (run: CompleteRun, brandId: string) =>
  DAILY_TABLES.some((t) => covers(run, t, brandId));

/** Every workspace some complete run landed: a --brand outside these is one no run ever had. */
export function knownWorkspaces(runs: readonly CompleteRun[]): string[] {
  return [...new Set(runs.flatMap((r) => r.workspaces))].sort();
}

/**
 * Workspaces with daily figures in the period: those a run that returned days of it landed with a
 * daily table, whether or not the account still lists them (a removed client's month, by --brand).
 */
export function workspacesWithDays(
  runs: readonly CompleteRun[],
  period: Pick<Period, 'from' | 'to'>,
): string[] {
  const ids = runs
    .filter((r) => returnsDaysOf(r, period))
    .flatMap((r) => r.workspaces.filter((w) => returnsDailyOf(r, w)));
  return [...new Set(ids)].sort();
}

/** The oldest complete run dated after `day` that `keep` accepts (runs in any order). */
export function firstRunAfter(
  runs: readonly CompleteRun[],
  day: string,
  keep: (r: CompleteRun) => boolean,
): CompleteRun | undefined {
  return [...runs]
    .sort(newestRunFirst)
    .reverse()
    .find((r) => r.runDate > day && keep(r));
}

/**
 * The run whose state a snapshot section of the period shows: the state at its end
 * (comparison.ts snapshotAtEnd), else, for a period before every run that covers the table (a
 * backfill, a new client), the first state known after it, which the page names as such.
 */
export function snapshotOfPeriod(
  runs: readonly CompleteRun[],
  table: SnapshotTable,
  brandId: string,
  period: Pick<Period, 'to'>,
): CompleteRun | undefined {
  return (
    snapshotAtEnd(runs, table, brandId, period) ??
    firstRunAfter(runs, period.to, (r) => covers(r, table, brandId))
  );
}

/**
 * `no day of data for workspace B in 2026-W30 (20 July 2026 to 26 July 2026); its complete runs
 * cover 21 September 2026 to 31 October 2026`: the days its runs' windows hold, for a workspace
 * known to the account (knownWorkspaces) without a day in the period.
 */
export function missingDaysLine(runs: readonly CompleteRun[], brandId: string, period: Period): string {
  const own = runs.filter((r) => returnsDailyOf(r, brandId));
  const from = own.map((r) => r.windowStart).sort()[0];
  const to = own
    .map((r) => r.runDate)
    .sort()
    .at(-1);
  const span =
    from === undefined || to === undefined
      ? 'no complete run returned a day of its data'
      : `its complete runs cover ${longDay(from)} to ${longDay(to)}`;
  return `no day of data for workspace ${brandId} in ${period.label} (${longDay(period.from)} to ${longDay(period.to)}); ${span}`;
}
