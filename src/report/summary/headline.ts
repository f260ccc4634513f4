// The one headline rule (docs/reports.md, "The comparison"): the summary's first sentence
// (./sentences.ts), the mail subject (src/delivery/mail/compose.ts), the overview's order
// (../overview/rows.ts) and the first card all tell the same change: the period mean of the overall
// score against the previous period's. Its delta is the difference of the two values as the page
// shows them (../render/format.ts shownDelta), so "51.6 to 56.3 (+4.7)" adds up wherever it is said;
// report.json keeps the exact figures. The last day's score is another figure, named by its day.
// Pure.
import type { Period } from '../../history/period.js';
import type { ReportModel } from '../model/report-shape.js';
import { shownDelta } from '../render/format.js';

/** The headline figures: what the mail, the summary and the overview lead with. */
export interface Headline {
  /** The period mean of the overall score; null when no day of the period has one. */
  score: number | null;
  /** The previous period's mean; null when it has none. */
  previous: number | null;
  /** score − previous as shown (one decimal each, then the difference); null when not compared. */
  delta: number | null;
  /** False: the report has no earlier period to compare with (the first one). */
  earlier: boolean;
  /** False: an earlier period exists but does not compare (too thin). */
  comparable: boolean;
  /** On `--compare year`, the period a year earlier the change is against (the mail names it); else absent. */
  yearAgo?: Period | null;
}

export function headlineOf(r: Pick<ReportModel, 'kpis' | 'comparison' | 'previous_period'>): Headline {
  const k = r.kpis.overall_score_mean;
  const earlier = r.comparison.earlier_period;
  const compared = earlier && k.comparable && k.delta !== null;
  return {
    score: k.value,
    previous: k.previous,
    delta: compared ? shownDelta(k.value, k.previous) : null,
    earlier,
    comparable: k.comparable,
    // Only year on year; a report.json of an earlier release has no basis: the period before.
    ...(r.comparison.basis === 'year' ? { yearAgo: r.previous_period } : {}),
  };
}
