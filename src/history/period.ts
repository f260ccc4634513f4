// Report periods: a calendar month (`2026-10`), an ISO week (`2026-W44`) or a day range
// (`2026-10-01_2026-10-30`, also the label of --from/--to and of the default 30 days), and the
// previous period a report compares against. Pure: no clock.

import { addDays, isIsoDate } from '../util/time.js';

export interface Period {
  /** The key segment `period=<label>`: `2026-10`, `2026-W44` or `2026-10-01_2026-10-30`. */
  label: string;
  kind: 'month' | 'week' | 'range';
  /** First and last day, inclusive (`YYYY-MM-DD`). */
  from: string;
  to: string;
}

/** Days of the default period, ending on the date of the account's newest complete run. */
export const DEFAULT_PERIOD_DAYS = 30;

/**
 * The longest period a report covers: about three years (docs/commands.md). A report reads every
 * day of its period and of the one before; `--from 0001-01-01 --to 9999-12-31` ran out of memory.
 */
export const MAX_PERIOD_DAYS = 1100;

/** Days from `from` to `to`, both included. */
export function dayCount(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;
}

/** Every day of the period, oldest first. */
export function periodDays(p: Pick<Period, 'from' | 'to'>): string[] {
  const out: string[] = [];
  for (let d = p.from; d <= p.to; d = addDays(d, 1)) out.push(d);
  return out;
}

export function rangePeriod(from: string, to: string): Period {
  return { label: `${from}_${to}`, kind: 'range', from, to };
}

function monthPeriod(year: number, month: number): Period {
  const first = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-01`;
  const last = new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
  return { label: first.slice(0, 7), kind: 'month', from: first, to: last };
}

/** Monday of ISO week 1 of `year`: the week holding 4 January. */
function isoWeekOneMonday(year: number): string {
  const jan4 = `${String(year).padStart(4, '0')}-01-04`;
  return addDays(jan4, -isoWeekday(jan4));
}

function weeksInIsoYear(year: number): number {
  return (dayCount(isoWeekOneMonday(year), isoWeekOneMonday(year + 1)) - 1) / 7;
}

function weekPeriod(year: number, week: number): Period {
  const from = addDays(isoWeekOneMonday(year), (week - 1) * 7);
  return { label: `${year}-W${String(week).padStart(2, '0')}`, kind: 'week', from, to: addDays(from, 6) };
}

/** The calendar month holding `date` (`YYYY-MM-DD`). */
export function monthOf(date: string): Period {
  return monthPeriod(Number(date.slice(0, 4)), Number(date.slice(5, 7)));
}

/** The ISO week (Monday to Sunday) holding `date`. */
export function isoWeekOf(date: string): Period {
  const from = addDays(date, -isoWeekday(date));
  // The ISO year of a week is the year of its Thursday.
  const year = Number(addDays(from, 3).slice(0, 4));
  const week = (dayCount(isoWeekOneMonday(year), from) - 1) / 7 + 1;
  return weekPeriod(year, week);
}

/** 0 for Monday to 6 for Sunday. */
export function isoWeekday(date: string): number {
  return (new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7;
}

/** The newest day on or before `date` (`YYYY-MM-DD`) that is `weekday` (0 for Monday to 6 for Sunday). */
export function lastWeekday(date: string, weekday: number): string {
  return addDays(date, -((isoWeekday(date) - weekday + 7) % 7));
}

/** `--period` value -> period; undefined when it is none of the three forms or names no real day. */
export function parsePeriod(spec: string): Period | undefined {
  let m = /^(\d{4})-(\d{2})$/.exec(spec);
  if (m) {
    const month = Number(m[2]);
    return month >= 1 && month <= 12 ? monthPeriod(Number(m[1]), month) : undefined;
  }
  m = /^(\d{4})-W(\d{2})$/.exec(spec);
  if (m) {
    const year = Number(m[1]);
    const week = Number(m[2]);
    return week >= 1 && week <= weeksInIsoYear(year) ? weekPeriod(year, week) : undefined;
  }
  m = /^(\d{4}-\d{2}-\d{2})_(\d{4}-\d{2}-\d{2})$/.exec(spec);
  if (m) return parseRange(m[1] as string, m[2] as string);
  return undefined;
}

/** --from/--to -> period; undefined when a date is not a real day or `to` is before `from`. */
export function parseRange(from: string, to: string): Period | undefined {
  return isIsoDate(from) && isIsoDate(to) && from <= to ? rangePeriod(from, to) : undefined;
}

/** The default period: DEFAULT_PERIOD_DAYS days ending on `end`. */
export function defaultPeriod(end: string): Period {
  return rangePeriod(addDays(end, 1 - DEFAULT_PERIOD_DAYS), end);
}

/**
 * The period a report compares against: the month or ISO week before, or the range of the same
 * length ending the day before.
 */
export function previousPeriod(p: Period): Period {
  if (p.kind === 'month') return monthOf(addDays(p.from, -1));
  if (p.kind === 'week') return isoWeekOf(addDays(p.from, -7));
  const n = dayCount(p.from, p.to);
  return rangePeriod(addDays(p.from, -n), addDays(p.from, -1));
}

/**
 * What a report compares its period with (`visync report --compare`, `reports.schedule.compare`):
 * `previous` the period just before it, `year` the same period a year earlier.
 */
export type CompareBasis = 'previous' | 'year';

/** The same calendar day a year earlier; 29 February reads 28 February (the year before has none). */
export function yearEarlierDay(date: string): string {
  const year = String(Number(date.slice(0, 4)) - 1).padStart(4, '0');
  const monthDay = date.slice(5) === '02-29' ? '02-28' : date.slice(5);
  return `${year}-${monthDay}`;
}

/**
 * The same period a year earlier: a month that month last year; an ISO week the week of that number
 * in the ISO year before (week 53 of a year after one with 52 weeks is that year's week 52); a range
 * each of its days a year earlier (29 February reads 28 February, so a range over a leap day
 * compares with one day fewer).
 */
export function yearAgoPeriod(p: Period): Period {
  if (p.kind === 'month') return monthPeriod(Number(p.from.slice(0, 4)) - 1, Number(p.from.slice(5, 7)));
  if (p.kind === 'week') {
    const m = /^(\d{4})-W(\d{2})$/.exec(p.label);
    const year = Number(m?.[1]) - 1;
    return weekPeriod(year, Math.min(Number(m?.[2]), weeksInIsoYear(year)));
  }
  return rangePeriod(yearEarlierDay(p.from), yearEarlierDay(p.to));
}

/** The period a report of `p` compares with on `basis`. */
export function comparedPeriod(p: Period, basis: CompareBasis): Period {
  return basis === 'year' ? yearAgoPeriod(p) : previousPeriod(p);
}

/** The `n` periods ending with `p`, each the one before the next (previousPeriod), oldest first. */
export function periodsUpTo(p: Period, n: number): Period[] {
  const out = [p];
  while (out.length < n) out.unshift(previousPeriod(out[0] as Period));
  return out;
}
