// report.json, one more rendering of the model: its codes and numbers said in English
// (../i18n/json-words.ts) at the places docs/reports.md documents, every other key as the model has
// it and in its order, so the bytes are those of the contract (`model_version` 2). Pure.
import { periodTitle } from '../../history/comparison.js';
import { coverageWords, reasonWords, restatedWords, revisionWords } from '../i18n/json-words.js';
import { buildModel, type ReportInput } from '../model/model.js';
import { engineReason, kpiReason, noEarlierReason, type Reason } from '../model/reason-codes.js';
import { KPI_KEYS, type Kpi, type Report, type ReportModel } from '../model/report-shape.js';

const words = (reason: Reason | null) => (reason === null ? null : reasonWords(reason));

/** The model as report.json has it. */
export function reportJson(m: ReportModel): Report {
  const worded = (k: Kpi) => ({
    value: k.value,
    previous: k.previous,
    delta: k.delta,
    comparable: k.comparable,
    reason: words(kpiReason(m, k)),
    coverage: k.coverage,
  });
  const { days, days_with_data, ...trend } = m.trend;
  return {
    ...m,
    period_status: {
      ...m.period_status,
      title: periodTitle(m.period, m.period_status.end, m.period_status.in_progress),
    },
    comparison: {
      ...m.comparison,
      note: words(noEarlierReason(m)),
    },
    revisions: m.revisions.map((x) => ({ ...x, note: revisionWords(m.previous_period, x) })),
    restated: m.restated.map((x) => ({ ...x, note: restatedWords(m.previous_period, x) })),
    kpis: Object.fromEntries(KPI_KEYS.map((key) => [key, worded(m.kpis[key])])) as Report['kpis'],
    trend: { days, days_with_data, coverage: coverageWords(days_with_data, days), ...trend },
    engines: m.engines.map(({ coverage, ...e }) => ({
      ...e,
      reason: words(engineReason(m, { comparable: e.comparable, coverage })),
      coverage,
    })),
  };
}

/**
 * report.json's bytes: two-space indented, one trailing newline. `note`: the account manager's note
 * of the period (Markdown), kept as `manager_note` so the mail says the note of the version it
 * sends; absent when there is none.
 */
export const reportJsonText = (m: ReportModel, note: string | null = null): string =>
  `${JSON.stringify({ ...reportJson(m), ...(note === null ? {} : { manager_note: note }) }, null, 2)}\n`;

/** The report.json of a workspace's period straight from the curated rows (the model, worded). */
export const buildReport = (i: ReportInput): Report => reportJson(buildModel(i));
