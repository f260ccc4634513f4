// One goal of a client as the report states it (`goals[]` of report.json, docs/reports.md "Goals"):
// apart from ./progress.ts, which computes it from the model, so the model's shape can name it.
import type { GoalMetric } from '../../config/report-goals.js';

export type GoalStatus = 'reached' | 'on_track' | 'off_track' | 'past_due' | 'no_value' | 'no_trend';

/** One goal in report.json (`goals[]`). Values in the target's unit: share of voice in percent. */
export interface GoalProgress {
  metric: GoalMetric;
  target: number;
  /** The goal's date, YYYY-MM-DD. */
  by: string;
  /** The agency's name for the goal; null: the page names the metric. */
  label: string | null;
  /** `at_most` for figures where fewer is better (gap, recommendations, claims, conflicts). */
  direction: 'at_least' | 'at_most';
  /** The KPI this period (`kpis.<metric>.value`); null when missing. */
  value: number | null;
  /** How far the value still is from the target in the goal's direction; 0 when reached; null without a value. */
  gap: number | null;
  /** Days from the period's end (`period_status.end`) to the goal's date; negative when past. */
  days_left: number;
  /** The trend: change per day and what it stands on; null when there is too little for one. */
  trend: { basis: 'daily' | 'snapshot'; per_day: number; days: number } | null;
  /**
   * How many days after the period's end the trend may be carried (HORIZON_FACTOR times the days it
   * stands on, ./progress.ts); null without a trend.
   */
  horizon_days: number | null;
  /**
   * The trend carried to the goal's date; null without a trend, when the date has passed, or when
   * the projection is limited (`projection_limited`).
   */
  projected: number | null;
  /**
   * True when there is a trend and a value but the date lies beyond `horizon_days`, or the line would
   * leave the figure's range by then: no projection is stated, the status compares the rates.
   */
  projection_limited: boolean;
  /**
   * The change per day from `value` to `target` by the date (negative for a figure that must fall);
   * null when reached, past its date, or without a value.
   */
  needed_per_day: number | null;
  status: GoalStatus;
}
