// A report's comparisons with the previous period (the rules of src/history/comparison.ts): each KPI
// with what it stands on, and the previous-period figures that the previous final report.json stated
// otherwise at the page's precision (data that arrived later, a replay): the report keeps today's
// value and says it was revised, never both as facts. Pure.
import type { Basis } from '../../history/comparison.js';
import { delta } from '../../history/figures.js';
import { oneDecimal } from '../render/format.js';
import { KPI_KEYS, type Kpi, type Report, type ReportModel, type Revision } from './report-shape.js';

export function kpi(value: number | null, previous: number | null, basis: Basis): Kpi {
  return {
    value,
    previous,
    delta: basis.comparable ? delta(value, previous) : null,
    comparable: basis.comparable,
    coverage: { current: basis.current, previous: basis.previous },
  };
}

const COUNTS: ReadonlySet<string> = new Set([
  'open_recommendations',
  'suspected_false_claims',
  'engine_conflicts',
]);

/**
 * A figure as the page shows it (docs/reports.md, "Precision"): a count whole, a share of voice as a
 * percentage at one decimal, any other figure at one decimal. A change under it is no revision.
 */
function asShown(figure: string, v: number, unit: ReportModel['trend']['share_of_voice_unit']): number {
  if (COUNTS.has(figure)) return v;
  return oneDecimal(figure === 'share_of_voice' && unit === 'fraction' ? v * 100 : v);
}

/**
 * Figures of the previous period that `last` (its report.json) stated otherwise than `r` now
 * computes them; none when there is no previous report or it covered another period.
 */
export function revisions(r: Omit<ReportModel, 'revisions'>, last: Report | undefined): Revision[] {
  if (!last || last.period.label !== r.previous_period.label) return [];
  // A to-date predecessor (docs/reports.md, "Revised figures") is completed by the days that came
  // after it, not revised: only a final report's figures can have been stated otherwise.
  if ((last.period_status as Report['period_status'] | undefined)?.in_progress !== false) return [];
  const unit = r.trend.share_of_voice_unit;
  const out: Revision[] = [];
  const add = (figure: string, was: number | null, now: number | null) => {
    if (now === null || (was !== null && asShown(figure, was, unit) === asShown(figure, now, unit))) return;
    out.push({ figure, period: r.previous_period.label, was, now });
  };
  for (const k of KPI_KEYS) add(k, last.kpis[k]?.value ?? null, r.kpis[k].previous);
  const before = new Map((last.engines ?? []).map((e) => [e.engine, e.score]));
  for (const e of r.engines)
    if (before.has(e.engine)) add(`engine:${e.engine}`, before.get(e.engine) ?? null, e.previous);
  return out;
}
