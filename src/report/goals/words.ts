// A goal in the page's words and number formats (docs/reports.md "Goals"): its name (the agency's
// label, escaped, or the metric's name in the locale), its aim ("at least 70.0 by 31 March 2027"),
// and its figures at the page's precision: a share of voice as a percentage, a count whole, any
// other figure at one decimal; a missing figure reads "n/a", never 0.
import type { GoalMetric } from '../../config/report-goals.js';
import type { Formatters } from '../render/format.js';
import { fig, type Html, html, text, whole } from '../render/html-parts.js';
import type { GoalProgress } from './goal-shape.js';

const COUNTS: readonly GoalMetric[] = ['open_recommendations', 'suspected_false_claims', 'engine_conflicts'];

/** A goal's figure (value, target, projection) as the page shows its metric. */
export function goalFigure(f: Formatters, metric: GoalMetric, v: number | null): string {
  if (v === null || !Number.isFinite(v)) return f.na;
  if (COUNTS.includes(metric)) return whole(f, Math.round(v));
  return metric === 'share_of_voice' ? f.percent(v) : fig(f, v);
}

/** The agency's label, or the metric's name in the locale. */
export const goalName = (f: Formatters, g: Pick<GoalProgress, 'label' | 'metric'>): Html =>
  g.label === null ? html`${f.t(`goals:metric.${g.metric}`)}` : text(f, g.label);

/** "at least 70.0 by 31 March 2027", "at most 3 by ...". */
export const goalAim = (f: Formatters, g: GoalProgress): string =>
  f.t(`goals:aim.${g.direction}`, { target: goalFigure(f, g.metric, g.target), day: f.longDay(g.by) });

/** A status word's colour class: good news green, bad news red, the rest grey (the fixed delta colours). */
export const statusClass = (g: GoalProgress): 'up' | 'down' | 'flat' =>
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
  part: 'name' | 'aim' | 'value' | 'projected';
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
  }
}
