// One comparison of a workspace's periods, shared by the client report (src/report/model/model.ts) and
// brand watch (src/events/state.ts): which buyer-intent window both read, which run holds the state
// at a period's end, whether a period is still in progress, and what each side of a comparison stands
// on (days with data, snapshot dates) with whether the two sides can be compared at all. Pure.
import type { Row } from '../catalogue/types.js';
import { addDays } from '../util/time.js';
import type { CompleteRun } from './complete-runs.js';
import { type Period, periodDays } from './period.js';
import { covers, type SnapshotTable } from './select.js';

/**
 * The one buyer-intent window rule: the shortest window the run fetched (the most current state,
 * 7 days by default). A report of any length and the night-to-night brand events read the same
 * window, so "what changed" and `visync events` agree on the same days.
 */
export function buyerIntentRow(rows: readonly Row[] | undefined): Row | undefined {
  return [...(rows ?? [])].sort((a, b) => Number(a.window_days) - Number(b.window_days))[0];
}

/**
 * The run holding a snapshot table's state at the end of `p`: the first complete run of the day
 * after it (what the night after the period's end returned), else the newest within the period,
 * else the newest before it (a stale state: `snapshotStale` says so). Runs are newest first.
 */
export function snapshotAtEnd(
  runs: readonly CompleteRun[],
  table: SnapshotTable,
  brandId: string,
  p: Pick<Period, 'to'>,
): CompleteRun | undefined {
  const next = addDays(p.to, 1);
  const dayAfter = runs.filter((r) => r.runDate === next && covers(r, table, brandId));
  return dayAfter.at(-1) ?? runs.find((r) => r.runDate <= p.to && covers(r, table, brandId));
}

/**
 * A period is in progress when no complete run is dated on or after its last day (a run returns the
 * days up to its date): its end is then its newest day with data, and it is named "month to date".
 */
export function inProgress(runs: readonly CompleteRun[], p: Pick<Period, 'to'>): boolean {
  return !runs.some((r) => r.runDate >= p.to);
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** `28 November 2026`. */
export function longDay(date: string): string {
  return `${Number(date.slice(8, 10))} ${MONTHS[Number(date.slice(5, 7)) - 1]} ${date.slice(0, 4)}`;
}

/**
 * A period's name in words: `1-30 November 2026`, `1-28 November 2026, month to date`,
 * `16 November 2026 to 22 November 2026, week to date`. `end` is the period's effective end.
 */
export function periodTitle(p: Period, end: string, running: boolean): string {
  const sameMonth = p.from.slice(0, 7) === end.slice(0, 7);
  const span = sameMonth
    ? `${Number(p.from.slice(8, 10))}-${longDay(end)}`
    : `${longDay(p.from)} to ${longDay(end)}`;
  if (!running) return span;
  return `${span}, ${p.kind === 'month' ? 'month' : p.kind === 'week' ? 'week' : 'period'} to date`;
}

/** What one side of a comparison stands on. */
export interface Side {
  /** Daily figures: days with data and days of the period; null for a snapshot figure. */
  days_with_data: number | null;
  days: number | null;
  /** Snapshot figures: the run date of the state compared; null for a daily figure or none. */
  snapshot_date: string | null;
}

export interface Basis {
  current: Side;
  previous: Side;
  /** False: the delta is not shown; `reason` says why, as a code (`reasonText` words it in English). */
  comparable: boolean;
  reason: ComparisonReason | null;
}

/**
 * Why a previous side does not compare, as a code with what its words need; `period` is the
 * previous period. The report model keeps no words: it reads the code back from a figure's sides
 * (src/report/model/reason-codes.ts) and words it where it renders.
 */
export type ComparisonReason =
  | { code: 'no-data'; period: Period }
  | { code: 'thin-data'; period: Period; days_with_data: number; days: number }
  | { code: 'no-previous-state'; period: Period }
  | { code: 'previous-state-too-old'; period: Period; date: string }
  | { code: 'same-run'; period: Period; date: string };

/** Days of `p` on which `dates` (the days with data) hold a value. */
export function dailySide(p: Period, dates: ReadonlySet<string>): Side {
  const days = periodDays(p);
  return { days_with_data: days.filter((d) => dates.has(d)).length, days: days.length, snapshot_date: null };
}

/** A period in a sentence: its label for a month or week, its days for a range. */
export function periodWords(p: Period): string {
  return p.kind === 'range' ? `${longDay(p.from)} to ${longDay(p.to)}` : p.label;
}

/** A reason in English, as report.json says it. */
export function reasonText(r: ComparisonReason): string {
  const name = periodWords(r.period);
  switch (r.code) {
    case 'no-data':
      return `no data in the previous period (${name})`;
    case 'thin-data':
      return `the previous period (${name}) has data on only ${r.days_with_data} of ${r.days} days`;
    case 'no-previous-state':
      return `no state known at the end of the previous period (${name})`;
    case 'previous-state-too-old':
      return `the previous state is from ${longDay(r.date)}, before the previous period (${name}) began`;
    case 'same-run':
      return `the previous state is the same run as the current one (${longDay(r.date)})`;
  }
}

/** The previous side of a daily figure needs data on at least half its days; null when it has. */
export function dailyReason(previous: Period, prev: Side): ComparisonReason | null {
  const withData = prev.days_with_data ?? 0;
  const days = prev.days ?? 0;
  if (withData * 2 >= days) return null;
  return withData === 0
    ? { code: 'no-data', period: previous }
    : { code: 'thin-data', period: previous, days_with_data: withData, days };
}

/**
 * A snapshot figure's previous state must be from within the previous period or just after it, and
 * from another run than the current state; null when it is.
 */
export function snapshotReason(
  previous: Period,
  current: string | null,
  before: string | null,
): ComparisonReason | null {
  if (before === null) return { code: 'no-previous-state', period: previous };
  if (before < previous.from) return { code: 'previous-state-too-old', period: previous, date: before };
  if (current !== null && before >= current) return { code: 'same-run', period: previous, date: before };
  return null;
}

const basis = (current: Side, previous: Side, reason: ComparisonReason | null): Basis => ({
  current,
  previous,
  comparable: reason === null,
  reason,
});

export function dailyBasis(previous: Period, cur: Side, prev: Side): Basis {
  return basis(cur, prev, dailyReason(previous, prev));
}

export function snapshotBasis(previous: Period, current: string | null, before: string | null): Basis {
  const side = (d: string | null): Side => ({ days_with_data: null, days: null, snapshot_date: d });
  return basis(side(current), side(before), snapshotReason(previous, current, before));
}
