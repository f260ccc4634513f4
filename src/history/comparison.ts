// One comparison of a workspace's periods, shared by the client report (src/report/model.ts) and
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
  /** False: the delta is not shown, `reason` says why in words. */
  comparable: boolean;
  reason: string | null;
}

/** Days of `p` on which `dates` (the days with data) hold a value. */
export function dailySide(p: Period, dates: ReadonlySet<string>): Side {
  const days = periodDays(p);
  return { days_with_data: days.filter((d) => dates.has(d)).length, days: days.length, snapshot_date: null };
}

/** A period in a sentence: its label for a month or week, its days for a range. */
export function periodWords(p: Period): string {
  return p.kind === 'range' ? `${longDay(p.from)} to ${longDay(p.to)}` : p.label;
}

/** The previous side of a daily figure needs data on at least half its days. */
export function dailyBasis(previous: Period, cur: Side, prev: Side): Basis {
  const thin = (prev.days_with_data ?? 0) * 2 < (prev.days ?? 0);
  const name = periodWords(previous);
  return {
    current: cur,
    previous: prev,
    comparable: !thin,
    reason: thin
      ? prev.days_with_data === 0
        ? `no data in the previous period (${name})`
        : `the previous period (${name}) has data on only ${prev.days_with_data} of ${prev.days} days`
      : null,
  };
}

/** A snapshot figure's previous state must be from within the previous period or just after it. */
export function snapshotBasis(previous: Period, current: string | null, before: string | null): Basis {
  const name = periodWords(previous);
  const side = (d: string | null): Side => ({ days_with_data: null, days: null, snapshot_date: d });
  const reason =
    before === null
      ? `no state known at the end of the previous period (${name})`
      : before < previous.from
        ? `the previous state is from ${longDay(before)}, before the previous period (${name}) began`
        : current !== null && before >= current
          ? `the previous state is the same run as the current one (${longDay(before)})`
          : null;
  return { current: side(current), previous: side(before), comparable: reason === null, reason };
}
