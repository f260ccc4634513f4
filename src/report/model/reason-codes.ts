// Why a comparison of the report does not stand, as a code with its parameters: derived from the
// figures the model holds (`comparable`, `coverage`, `comparison.earlier_period`) by the rules of
// src/history/comparison.ts, so the model carries no sentence. The page words a code in its locale
// (../render/reasons.ts), report.json in English (../render/report-json.ts). Pure.
import { type ComparisonReason, dailyReason, snapshotReason } from '../../history/comparison.js';
import type { Period } from '../../history/period.js';
import type { Kpi, ReportModel } from './report-shape.js';

/** A comparison's reason; `no-earlier-period`: nothing at all is known of the previous period. */
export type Reason =
  | ComparisonReason
  | { code: 'no-earlier-period'; period: Period }
  | { code: 'history-begins'; period: Period; date: string };

type Compared = Pick<Kpi, 'comparable' | 'coverage'>;

/** The rule that made `x` not comparable, read back from the sides it stands on. */
function sideReason(previous: Period, x: Compared): ComparisonReason | null {
  const { current, previous: before } = x.coverage;
  return before.days !== null
    ? dailyReason(previous, before)
    : snapshotReason(previous, current.snapshot_date, before.snapshot_date);
}

type Compares = Pick<ReportModel, 'comparison' | 'previous_period'>;

/** A first report's one reason for every KPI: nothing is known of the previous period; else null. */
export function noEarlierReason(r: Compares): Reason | null {
  if (r.comparison.earlier_period) return null;
  // Year on year before the history reaches back: said as such, not as a first report.
  const begins = r.comparison.history_begins ?? null;
  return begins === null
    ? { code: 'no-earlier-period', period: r.previous_period }
    : { code: 'history-begins', period: r.previous_period, date: begins };
}

/** Why a KPI's previous value does not compare; null when it does. */
export function kpiReason(r: Compares, k: Compared): Reason | null {
  if (k.comparable) return null;
  return noEarlierReason(r) ?? sideReason(r.previous_period, k);
}

/** Why an engine's previous mean does not compare (its days with data); null when it does. */
export function engineReason(r: Pick<ReportModel, 'previous_period'>, e: Compared): Reason | null {
  return e.comparable ? null : sideReason(r.previous_period, e);
}
