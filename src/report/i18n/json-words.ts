// report.json's words: the model's codes and numbers said in English, as the documented contract
// has them (docs/reports.md, "The JSON model"); the page says the same in its locale from the
// catalogues (../render/reasons.ts). A comparison's reason reads as src/history/comparison.ts words it
// (`reasonText`, which its tests pin), the period's title likewise (`periodTitle`). Pure.
import { longDay, reasonText } from '../../history/comparison.js';
import type { Period } from '../../history/period.js';
import type { Reason } from '../model/reason-codes.js';
import type { KpiKey, Revision } from '../model/report-shape.js';

/** A comparison's reason in report.json's English. */
export function reasonWords(r: Reason): string {
  if (r.code === 'history-begins')
    return `not comparable with the same period a year earlier (${longDay(r.period.from)} to ${longDay(r.period.to)}): the synced history begins on ${longDay(r.date)}`;
  return r.code === 'no-earlier-period'
    ? `there is no earlier period to compare with: nothing is known for ${longDay(r.period.from)} to ${longDay(r.period.to)}`
    : reasonText(r);
}

/** How a figure reads in a revision note. */
const FIGURE_NAMES: Record<KpiKey, string> = {
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

const figureName = (x: Revision) =>
  x.figure.startsWith('engine:')
    ? `${x.figure.slice('engine:'.length)} mean`
    : FIGURE_NAMES[x.figure as KpiKey];

/** `revised since the last report: October's mean was 45.9, now 45.44`. */
export function revisionWords(previous: Period, x: Revision): string {
  return `revised since the last report: ${periodName(previous)} ${figureName(x)} was ${shown(x.was)}, now ${shown(x.now)}`;
}

/** `follows the new period rule: October's money-prompt visibility was 23.7 in the last report, now 26`. */
export function restatedWords(previous: Period, x: Revision): string {
  return `follows the new period rule: ${periodName(previous)} ${figureName(x)} was ${shown(x.was)} in the last report, now ${shown(x.now)}`;
}

/** `30 of 30 days`. */
export const coverageWords = (withData: number, days: number): string => `${withData} of ${days} days`;
