// A report's comparisons with the previous period (the rules of src/history/comparison.ts): each KPI
// with what it stands on, and the previous-period figures that the previous final report.json stated
// otherwise (data that arrived later, a replay): the report keeps today's value and says it was
// revised, never both as facts. A report.json of an earlier release (./previous-report.ts) is
// compared at its own precision, and a figure whose rule changed since it was written is restated,
// not revised. Pure.
import type { Basis } from '../../history/comparison.js';
import { delta } from '../../history/figures.js';
import { oneDecimal } from '../render/format.js';
import type { StatedFigures } from './previous-report.js';
import { KPI_KEYS, type Kpi, type ReportModel } from './report-shape.js';

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
 * The figures whose rule changed after a model version, by that version: a report.json of it stated
 * them by the old rule. After 1 (release 0.1.0): the state at a period's end is the first run of
 * the next day (it was the newest run up to the last day), buyer intent is the shortest window
 * fetched (it was the one closest to the period's length), and open recommendations are counted by
 * title (they were by id). Daily figures kept their rule: a difference there is revised data.
 */
export const RULE_CHANGED: Readonly<Record<number, ReadonlySet<string>>> = {
  1: new Set([
    'money_visibility',
    'visibility_gap',
    'open_recommendations',
    'suspected_false_claims',
    'engine_conflicts',
  ]),
};

/** Decimals as JavaScript prints the value (the shortest that reads back the same number). */
function decimalsOf(n: number): number {
  const s = String(Math.abs(n));
  if (s.includes('e')) return 1;
  return s.split('.')[1]?.length ?? 0;
}

/**
 * Whether `was` and `now` read the same at the coarser of the page's precision (docs/reports.md,
 * "Precision": a count whole, a share of voice as a percentage at one decimal, any other figure at
 * one decimal) and the previous report's own. Model version 1 stored each figure at the precision it
 * had (API values as sent, means at one more decimal than their values) and its page printed it so:
 * a whole 26 there stood for 26, so 26.3 now is no revision. A change under both is no revision.
 */
function sameAsStated(
  figure: string,
  was: number,
  now: number,
  unit: ReportModel['trend']['share_of_voice_unit'],
  version: number,
): boolean {
  if (COUNTS.has(figure)) return was === now;
  const scale = figure === 'share_of_voice' && unit === 'fraction' ? 100 : 1;
  const places = version >= 2 ? 1 : Math.min(1, Math.max(0, decimalsOf(was) - (scale === 100 ? 2 : 0)));
  const round = (v: number) => (places === 1 ? oneDecimal(v * scale) : Math.round(v * scale));
  return round(was) === round(now);
}

/**
 * Figures of the previous period that `last` (its report.json) stated otherwise than `r` now
 * computes them: `revisions` by the same rule, `restated` by a rule changed since (an earlier
 * release's report); none when there is no previous report or it covered another period. One pass.
 */
export function statedOtherwise(
  r: Omit<ReportModel, 'revisions' | 'restated'>,
  last: StatedFigures | undefined,
): Pick<ReportModel, 'revisions' | 'restated'> {
  const out: Pick<ReportModel, 'revisions' | 'restated'> = { revisions: [], restated: [] };
  if (!last || last.period !== r.previous_period.label) return out;
  // A to-date predecessor (docs/reports.md, "Revised figures") is completed by the days that came
  // after it, not revised: only a final report's figures can have been stated otherwise.
  if (!last.final) return out;
  const unit = r.trend.share_of_voice_unit;
  const changed = RULE_CHANGED[last.model_version] ?? new Set<string>();
  const add = (figure: string, was: number | null, now: number | null) => {
    if (now === null || (was !== null && sameAsStated(figure, was, now, unit, last.model_version))) return;
    (changed.has(figure) ? out.restated : out.revisions).push({
      figure,
      period: r.previous_period.label,
      was,
      now,
    });
  };
  for (const k of KPI_KEYS) add(k, last.kpis[k] ?? null, r.kpis[k].previous);
  const before = new Map(last.engines.map((e) => [e.engine, e.score]));
  for (const e of r.engines)
    if (before.has(e.engine)) add(`engine:${e.engine}`, before.get(e.engine) ?? null, e.previous);
  return out;
}
