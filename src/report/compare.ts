// A report's comparisons with the previous period (the rules of src/history/comparison.ts): each KPI
// with what it stands on, and the previous-period figures that the previous report.json stated
// otherwise (data that arrived later, a replay): the report keeps today's value and says it was
// revised, never both as facts. Pure.
import { type Basis, longDay } from '../history/comparison.js';
import { delta } from '../history/figures.js';
import type { Period } from '../history/period.js';
import type { Kpi, Report, Revision } from './report-shape.js';

export function kpi(value: number | null, previous: number | null, basis: Basis): Kpi {
  return {
    value,
    previous,
    delta: basis.comparable ? delta(value, previous) : null,
    comparable: basis.comparable,
    reason: basis.reason,
    coverage: { current: basis.current, previous: basis.previous },
  };
}

/** How a figure reads in a revision note. */
export const FIGURE_NAMES: Record<keyof Report['kpis'], string> = {
  overall_score_end: 'closing score',
  overall_score_mean: 'mean',
  share_of_voice: 'share of voice',
  money_visibility: 'money-prompt visibility',
  visibility_gap: 'visibility gap',
  open_recommendations: 'open recommendations',
  suspected_false_claims: 'suspected false claims',
  engine_conflicts: 'engine conflicts',
};

/** `October's`, `week 47's`, `the previous period's`. */
function periodName(p: Period): string {
  if (p.kind === 'month') return `${longDay(p.from).split(' ')[1]}'s`;
  if (p.kind === 'week') return `week ${Number(p.label.slice(6))}'s`;
  return `the period ${p.from} to ${p.to}'s`;
}

const shown = (v: number | null) => (v === null ? 'not available' : String(v));

/**
 * Figures of the previous period that `last` (its report.json) stated otherwise than `r` now
 * computes them; none when there is no previous report or it covered another period.
 */
export function revisions(r: Omit<Report, 'revisions'>, last: Report | undefined): Revision[] {
  if (!last || last.period.label !== r.previous_period.label) return [];
  const out: Revision[] = [];
  const name = periodName(r.previous_period);
  const add = (figure: string, label: string, was: number | null, now: number | null) => {
    if (was === now || now === null) return;
    out.push({
      figure,
      period: r.previous_period.label,
      was,
      now,
      note: `revised since the last report: ${name} ${label} was ${shown(was)}, now ${shown(now)}`,
    });
  };
  for (const k of Object.keys(FIGURE_NAMES) as (keyof Report['kpis'])[])
    add(k, FIGURE_NAMES[k], last.kpis[k]?.value ?? null, r.kpis[k].previous);
  const before = new Map((last.engines ?? []).map((e) => [e.engine, e.score]));
  for (const e of r.engines)
    if (before.has(e.engine))
      add(`engine:${e.engine}`, `${e.engine} mean`, before.get(e.engine) ?? null, e.previous);
  return out;
}
