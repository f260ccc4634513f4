// A goal in the page's words and number formats (docs/reports.md "Goals"): its name (the agency's
// label, escaped, or the metric's name in the locale), its aim ("at least 70.0 by 31 March 2027"),
// and its figures at the page's precision: a share of voice as a percentage, a count whole, any
// other figure at one decimal; a missing figure reads "n/a", never 0. A change per day is signed at
// two decimals, a share's in percentage points.
import { COUNTS, type GoalMetric } from '../../config/report-goals.js';
import { type Formatters, twoDecimals } from '../render/format.js';
import { fig, type Html, html, text, whole, withSign } from '../render/html-parts.js';
import type { GoalProgress } from './goal-shape.js';

/** A goal's figure (value, target, projection) as the page shows its metric. */
export function goalFigure(f: Formatters, metric: GoalMetric, v: number | null): string {
  if (v === null || !Number.isFinite(v)) return f.na;
  if (COUNTS.includes(metric)) return whole(f, Math.round(v));
  return metric === 'share_of_voice' ? f.percent(v) : fig(f, v);
}

/** A change per day as the page shows it: "+0,04", a share's "+0,01 Pp.", a count's "−0,10". */
function goalRate(f: Formatters, metric: GoalMetric, n: number): string {
  const value = withSign(twoDecimals(n), (x) => f.two(x));
  return metric === 'share_of_voice' ? f.t('page:unit.pp', { value }) : value;
}

/**
 * The table's "on the date, at the trend" cell: the projection, or when it is limited (too far
 * ahead, or out of range on the way) the change per day the goal needs and the trend's, which the
 * status then compares. A report.json of an earlier release has no `projection_limited`.
 */
export function goalProjection(f: Formatters, g: GoalProgress): Html {
  if (g.projection_limited !== true || g.trend === null)
    return html`<span style="white-space:nowrap">${goalFigure(f, g.metric, g.projected)}</span>`;
  const needs =
    g.needed_per_day === null || g.needed_per_day === undefined
      ? []
      : [f.t('goals:rate.needs', { rate: goalRate(f, g.metric, g.needed_per_day) })];
  const parts = [...needs, f.t('goals:rate.trend', { rate: goalRate(f, g.metric, g.trend.per_day) })];
  // Each rate kept on one line with its comma; the space between them is where a narrow column wraps.
  return html`${parts.map((p, i) => html`${i ? ' ' : ''}<span style="white-space:nowrap">${p}${i < parts.length - 1 ? ',' : ''}</span>`)}`;
}

/** The agency's label, or the metric's name in the locale. */
export const goalName = (f: Formatters, g: Pick<GoalProgress, 'label' | 'metric'>): Html =>
  g.label === null ? html`${f.t(`goals:metric.${g.metric}`)}` : text(f, g.label);

/** "at least 70.0 by 31 March 2027", "at most 3 by ...". */
export const goalAim = (f: Formatters, g: GoalProgress): string =>
  f.t(`goals:aim.${g.direction}`, { target: goalFigure(f, g.metric, g.target), day: f.longDay(g.by) });

/** A status word's colour class: good news green, bad news red, the rest grey (the fixed delta colours). */
const statusClass = (g: GoalProgress): 'up' | 'down' | 'flat' =>
  g.status === 'reached' || g.status === 'on_track'
    ? 'up'
    : g.status === 'off_track' || g.status === 'past_due'
      ? 'down'
      : 'flat';

/** The status in words with its colour. */
export const statusWord = (f: Formatters, g: GoalProgress): Html =>
  html`<span class="delta ${statusClass(g)}">${f.t(`goals:status.${g.status}`)}</span>`;

/** One part of a goal as a summary sentence cites it (../summary/render.ts). */
export interface GoalParam {
  kind: 'goal';
  goal: GoalProgress;
  part: 'name' | 'aim' | 'value' | 'projected' | 'needed' | 'per_day';
}

export function goalParamHtml(p: GoalParam, f: Formatters): Html {
  const g = p.goal;
  switch (p.part) {
    case 'name':
      return goalName(f, g);
    case 'aim':
      return html`${goalAim(f, g)}`;
    case 'value':
      return html`${goalFigure(f, g.metric, g.value)}`;
    case 'projected':
      return html`${goalFigure(f, g.metric, g.projected)}`;
    case 'needed':
      return html`${g.needed_per_day == null ? f.na : goalRate(f, g.metric, g.needed_per_day)}`;
    case 'per_day':
      return html`${g.trend === null ? f.na : goalRate(f, g.metric, g.trend.per_day)}`;
  }
}
