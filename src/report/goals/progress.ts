// How a client stands against each of its goals (`reports.goals`, docs/reports.md "Goals"), from the
// report's own figures only: the KPI now, how far it is from the target, the days left to the
// goal's date, and the trend of this period projected to that date, as far as it carries. The
// trend of a daily figure (scores, share of voice) is the least-squares line through the period's
// days with data; of a snapshot figure (buyer intent, counts) the change from the previous period's
// state to this one, per day between their run dates. Too little to draw a line is "no trend", a missing figure "no
// value": never a silent 0. Compared as the page shows them (one decimal), so a value that reads
// 70.0 has reached 70. A line says little far beyond the days it was drawn through, and nothing
// once it leaves the figure's range (a 10-day fall carried 141 days is a share "below 0"): past
// HORIZON_FACTOR times its days, or out of range on the way, no projection is stated and the goal
// is judged by its rates instead, the change per day it needs against the trend's, both as the
// page shows them. Pure: same report, same progress.
import { FEWER_IS_BETTER, type GoalConfig, type GoalMetric, metricRange } from '../../config/report-goals.js';
import { dayCount } from '../../history/period.js';
import type { ReportModel, TrendDay } from '../model/report-shape.js';
import { oneDecimal, twoDecimals } from '../render/format.js';
import type { GoalProgress, GoalStatus } from './goal-shape.js';

/** A daily trend stands on at least this many days with data, and half the period's days. */
const MIN_TREND_DAYS = 5;

type ModelPart = Pick<ReportModel, 'kpis' | 'trend' | 'period' | 'period_status'>;

/** The trend column a daily figure is read from (and whose chart draws its goals: ./chart-targets.ts). */
export const DAILY: Partial<Record<GoalMetric, 'overall_score' | 'share_of_voice'>> = {
  overall_score_end: 'overall_score',
  overall_score_mean: 'overall_score',
  share_of_voice: 'share_of_voice',
};

/**
 * A trend is carried at most this many times the days it stands on: a month's line speaks for the
 * next quarter, ten days for a month. Further on, a least-squares line's error grows with the square
 * of the distance from its days, so the value it reaches there is no forecast to hand a client.
 */
export const HORIZON_FACTOR = 3;

/** 12 significant digits: float noise off, as the model's means (src/history/figures.ts). */
const clean = (n: number) => Number(n.toPrecision(12));

/** Day index from the period's first day. */
const dayIndex = (from: string, d: string) => dayCount(from, d) - 1;

/** A share of voice the API sent as a fraction, in percent as the target is. */
function inTargetUnit(r: ModelPart, metric: GoalMetric, v: number | null): number | null {
  if (v === null) return null;
  return metric === 'share_of_voice' && r.trend.share_of_voice_unit === 'fraction' ? clean(v * 100) : v;
}

/** A trend: its change per day and the days it stands on. */
interface Slope {
  per_day: number;
  days: number;
}

/** A daily trend's least-squares line: its slope, and the mean day and value it passes through. */
interface DailyLine extends Slope {
  mx: number;
  my: number;
}

/** Least-squares line through the period's days with data; null with too few. */
function dailyLine(
  r: ModelPart,
  metric: GoalMetric,
  column: 'overall_score' | 'share_of_voice',
): DailyLine | null {
  const points = r.trend.series
    .map((d: TrendDay) => ({ x: dayIndex(r.period.from, d.date), y: inTargetUnit(r, metric, d[column]) }))
    .filter((p): p is { x: number; y: number } => p.y !== null);
  const n = points.length;
  if (n < MIN_TREND_DAYS || n * 2 < r.trend.days) return null;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  if (sxx === 0) return null;
  const sxy = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const slope = sxy / sxx;
  return Number.isFinite(slope) ? { per_day: clean(slope), days: n, mx, my } : null;
}

/** The change per day from the previous period's state to this one; null when they do not compare. */
function snapshotSlope(r: ModelPart, metric: GoalMetric): Slope | null {
  const k = r.kpis[metric];
  const from = k.coverage.previous.snapshot_date;
  const to = k.coverage.current.snapshot_date;
  if (!k.comparable || k.value === null || k.previous === null || from === null || to === null) return null;
  const days = dayCount(from, to) - 1;
  if (days <= 0) return null;
  return { per_day: clean((k.value - k.previous) / days), days };
}

/** The fitted line's value on `by` (daily), or the value carried on at the per-day change (snapshot). */
function projectedOn(r: ModelPart, line: Slope | DailyLine, value: number, by: string): number {
  if (!('mx' in line)) return clean(value + line.per_day * (dayCount(r.period_status.end, by) - 1));
  return clean(line.my + line.per_day * (dayIndex(r.period.from, by) - line.mx));
}

/** Whether `v` meets the target as the page shows both (one decimal; counts are whole already). */
function meets(v: number, g: GoalConfig, atMost: boolean): boolean {
  const shown = oneDecimal(v);
  return atMost ? shown <= g.target : shown >= g.target;
}

/** Whether the trend's change per day keeps pace with the one needed, both as the page shows them (two decimals). */
function paceMeets(perDay: number, needed: number, atMost: boolean): boolean {
  const trend = twoDecimals(perDay);
  const need = twoDecimals(needed);
  return atMost ? trend <= need : trend >= need;
}

export function goalProgress(r: ModelPart, g: GoalConfig): GoalProgress {
  const atMost = FEWER_IS_BETTER.includes(g.metric);
  const column = DAILY[g.metric];
  const value = inTargetUnit(r, g.metric, r.kpis[g.metric].value);
  const daysLeft = dayCount(r.period_status.end, g.by) - 1;
  const slope = column === undefined ? snapshotSlope(r, g.metric) : dailyLine(r, g.metric, column);
  const trend: GoalProgress['trend'] =
    slope === null
      ? null
      : { basis: column === undefined ? 'snapshot' : 'daily', per_day: slope.per_day, days: slope.days };
  const horizon = slope === null ? null : HORIZON_FACTOR * slope.days;
  const carried =
    slope === null || value === null || daysLeft < 0 ? null : projectedOn(r, slope, value, g.by);
  // Too far ahead for the line, or out of the figure's range on the way (a share below 0 %): no
  // projection, never its clamped bound; the rates say how it stands.
  const [low, high] = metricRange(g.metric);
  const outOfRange = carried !== null && (carried < low || carried > high);
  const limited = carried !== null && horizon !== null && daysLeft > 0 && (daysLeft > horizon || outOfRange);
  const projected = limited || outOfRange ? null : carried;
  const reached = value !== null && meets(value, g, atMost);
  const needed = value === null || reached || daysLeft <= 0 ? null : clean((g.target - value) / daysLeft);
  const status: GoalStatus =
    value === null
      ? 'no_value'
      : reached
        ? 'reached'
        : daysLeft <= 0
          ? 'past_due'
          : slope === null
            ? 'no_trend'
            : limited
              ? paceMeets(slope.per_day, needed as number, atMost)
                ? 'on_track'
                : 'off_track'
              : projected !== null && meets(projected, g, atMost)
                ? 'on_track'
                : 'off_track';
  // Reached as shown is no gap left, though 57.25 is 0.05 short of 57.3.
  const gap =
    value === null
      ? null
      : status === 'reached'
        ? 0
        : clean(Math.max(0, atMost ? value - g.target : g.target - value));
  return {
    metric: g.metric,
    target: g.target,
    by: g.by,
    label: g.label ?? null,
    direction: atMost ? 'at_most' : 'at_least',
    value,
    gap,
    days_left: daysLeft,
    trend,
    horizon_days: horizon,
    projected,
    projection_limited: limited,
    needed_per_day: needed,
    status,
  };
}

/** Every goal of the workspace, in the config's order. */
export function goalsProgress(r: ModelPart, goals: readonly GoalConfig[] | undefined): GoalProgress[] {
  return (goals ?? []).map((g) => goalProgress(r, g));
}
