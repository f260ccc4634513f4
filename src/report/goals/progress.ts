// How a client stands against each of its goals (`reports.goals`, docs/reports.md "Goals"), from the
// report's own figures only: the KPI now, how far it is from the target, the days left to the
// goal's date, and the trend of this period projected to that date. The trend of a daily figure
// (scores, share of voice) is the least-squares line through the period's days with data; of a
// snapshot figure (buyer intent, counts) the change from the previous period's state to this one,
// per day between their run dates. Too little to draw a line is "no trend", a missing figure "no
// value": never a silent 0. Compared as the page shows them (one decimal), so a value that reads
// 70.0 has reached 70. Pure: same report, same progress.
import { FEWER_IS_BETTER, type GoalConfig, type GoalMetric, metricRange } from '../../config/report-goals.js';
import { dayCount } from '../../history/period.js';
import type { ReportModel, TrendDay } from '../model/report-shape.js';
import { oneDecimal } from '../render/format.js';
import type { GoalProgress, GoalStatus } from './goal-shape.js';

/** A daily trend stands on at least this many days with data, and half the period's days. */
export const MIN_TREND_DAYS = 5;

type ModelPart = Pick<ReportModel, 'kpis' | 'trend' | 'period' | 'period_status'>;

const DAILY: Partial<Record<GoalMetric, 'overall_score' | 'share_of_voice'>> = {
  overall_score_end: 'overall_score',
  overall_score_mean: 'overall_score',
  share_of_voice: 'share_of_voice',
};

/** 12 significant digits: float noise off, as the model's means (src/history/figures.ts). */
const clean = (n: number) => Number(n.toPrecision(12));

/** Day index from the period's first day. */
const dayIndex = (from: string, d: string) => dayCount(from, d) - 1;

/** A share of voice the API sent as a fraction, in percent as the target is. */
function inTargetUnit(r: ModelPart, metric: GoalMetric, v: number | null): number | null {
  if (v === null) return null;
  return metric === 'share_of_voice' && r.trend.share_of_voice_unit === 'fraction' ? clean(v * 100) : v;
}

/** Least-squares slope per day through the period's days with data; null with too few. */
function dailySlope(
  r: ModelPart,
  metric: GoalMetric,
  column: 'overall_score' | 'share_of_voice',
): { per_day: number; days: number } | null {
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
  return Number.isFinite(slope) ? { per_day: clean(slope), days: n } : null;
}

/** The change per day from the previous period's state to this one; null when they do not compare. */
function snapshotSlope(r: ModelPart, metric: GoalMetric): { per_day: number; days: number } | null {
  const k = r.kpis[metric];
  const from = k.coverage.previous.snapshot_date;
  const to = k.coverage.current.snapshot_date;
  if (!k.comparable || k.value === null || k.previous === null || from === null || to === null) return null;
  const days = dayCount(from, to) - 1;
  if (days <= 0) return null;
  return { per_day: clean((k.value - k.previous) / days), days };
}

/** The fitted line's value on `by` (daily), or the value carried on at the per-day change (snapshot). */
function projectedOn(
  r: ModelPart,
  metric: GoalMetric,
  column: 'overall_score' | 'share_of_voice' | undefined,
  perDay: number,
  value: number,
  by: string,
): number {
  if (column === undefined) return clean(value + perDay * (dayCount(r.period_status.end, by) - 1));
  const points = r.trend.series
    .map((d) => ({ x: dayIndex(r.period.from, d.date), y: inTargetUnit(r, metric, d[column]) }))
    .filter((p): p is { x: number; y: number } => p.y !== null);
  const mx = points.reduce((s, p) => s + p.x, 0) / points.length;
  const my = points.reduce((s, p) => s + p.y, 0) / points.length;
  return clean(my + perDay * (dayIndex(r.period.from, by) - mx));
}

/** Whether `v` meets the target as the page shows both (one decimal; counts are whole already). */
function meets(v: number, g: GoalConfig, atMost: boolean): boolean {
  const shown = oneDecimal(v);
  return atMost ? shown <= g.target : shown >= g.target;
}

export function goalProgress(r: ModelPart, g: GoalConfig): GoalProgress {
  const atMost = FEWER_IS_BETTER.includes(g.metric);
  const column = DAILY[g.metric];
  const value = inTargetUnit(r, g.metric, r.kpis[g.metric].value);
  const daysLeft = dayCount(r.period_status.end, g.by) - 1;
  const slope = column === undefined ? snapshotSlope(r, g.metric) : dailySlope(r, g.metric, column);
  const trend = slope === null ? null : { basis: column === undefined ? 'snapshot' : 'daily', ...slope };
  // A line carried far enough leaves the figure's range (a share below 0 %): it stops at its bound.
  const [low, high] = metricRange(g.metric);
  const projected =
    slope === null || value === null || daysLeft < 0
      ? null
      : Math.min(high, Math.max(low, projectedOn(r, g.metric, column, slope.per_day, value, g.by)));
  const status: GoalStatus =
    value === null
      ? 'no_value'
      : meets(value, g, atMost)
        ? 'reached'
        : daysLeft <= 0
          ? 'past_due'
          : projected === null
            ? 'no_trend'
            : meets(projected, g, atMost)
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
    trend: trend as GoalProgress['trend'],
    projected,
    status,
  };
}

/** Every goal of the workspace, in the config's order. */
export function goalsProgress(r: ModelPart, goals: readonly GoalConfig[] | undefined): GoalProgress[] {
  return (goals ?? []).map((g) => goalProgress(r, g));
}
