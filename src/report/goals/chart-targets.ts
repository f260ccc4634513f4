// The goals a trend chart draws as a dashed level (docs/reports.md "Goals"): the overall-score
// chart those on the overall score (mean or last day), the share-of-voice chart those on the share
// (in percent, as the chart draws it), each labelled with its target in the page's words.
import type { ReportModel } from '../model/report-shape.js';
import type { TargetLine } from '../render/charts.js';
import type { Formatters } from '../render/format.js';
import { DAILY } from './progress.js';
import { goalFigure } from './words.js';

export function chartTargets(
  f: Formatters,
  r: Pick<ReportModel, 'goals'>,
  chart: 'overall_score' | 'share_of_voice',
): TargetLine[] {
  return (r.goals ?? [])
    .filter((g) => DAILY[g.metric] === chart)
    .map((g) => ({
      value: g.target,
      label: f.t('goals:chart.target', { target: goalFigure(f, g.metric, g.target) }),
    }));
}
