// The page's notes on comparisons in the locale's words. report.json keeps its English sentences
// (src/history/comparison.ts, ./compare.ts); the page says the same from the figures they stand on:
// a KPI's coverage, an engine's days with data, a revision's figure and values.
import type { Period } from '../history/period.js';
import type { Formats } from './format.js';
import type { EngineScore, Kpi, Report, Revision } from './report-shape.js';

const days = (f: Formats, n: number) => f.t('page:days', { count: n, n: f.number(n) });

function thinOrEmpty(f: Formats, previous: Period, withData: number, total: number): string {
  const period = f.period(previous);
  return withData === 0
    ? f.t('page:reason.no_data', { period })
    : f.t('page:reason.thin', { period, with: f.number(withData), days: days(f, total) });
}

/** Why a KPI's previous side does not compare; null when it does. */
export function kpiReason(f: Formats, k: Kpi, previous: Period): string | null {
  if (k.comparable) return null;
  const side = k.coverage.previous;
  if (side.days !== null) return thinOrEmpty(f, previous, side.days_with_data ?? 0, side.days);
  const period = f.period(previous);
  const before = side.snapshot_date;
  if (before === null) return f.t('page:reason.no_state', { period });
  if (before < previous.from) return f.t('page:reason.before', { day: f.day(before), period });
  return f.t('page:reason.same_run', { day: f.day(before) });
}

/**
 * Why an engine's previous mean does not compare. The engine row keeps only the English reason
 * (src/history/comparison.ts `dailyBasis`), whose two forms carry the days it counted.
 */
export function engineReason(f: Formats, e: EngineScore, previous: Period): string | null {
  if (e.comparable || e.reason === null) return null;
  const m = /data on only (\d+) of (\d+) days/.exec(e.reason);
  return m ? thinOrEmpty(f, previous, Number(m[1]), Number(m[2])) : thinOrEmpty(f, previous, 0, 0);
}

/** The note on the key figures of a first report: nothing is known of the period before. */
export function noEarlierNote(f: Formats, r: Report): string {
  return f.t('page:note.no_earlier', { period: f.period(r.previous_period) });
}

const KPI_KEYS = new Set([
  'overall_score_end',
  'overall_score_mean',
  'share_of_voice',
  'money_visibility',
  'visibility_gap',
  'open_recommendations',
  'suspected_false_claims',
  'engine_conflicts',
]);

/** "Revised since the last report: …" for a previous-period figure stated otherwise before. */
export function revisionNote(f: Formats, r: Report, x: Revision): string {
  const engine = x.figure.startsWith('engine:') ? x.figure.slice('engine:'.length) : null;
  const figure =
    engine !== null
      ? f.t('page:figure.engine_mean', { engine: f.engine(engine) })
      : KPI_KEYS.has(x.figure)
        ? f.t(`page:card.${x.figure}`)
        : x.figure;
  const value = (v: number | null) => (v === null ? f.t('page:not_available') : f.number(v));
  return f.t('page:note.revised', {
    figure,
    period: f.period(r.previous_period),
    was: value(x.was),
    now: value(x.now),
  });
}
