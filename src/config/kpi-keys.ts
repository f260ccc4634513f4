// The report's KPIs by key, in report.json's order (docs/reports.md). Kept here, below the report,
// because the config names them too: a goal's metric is one (./report-goals.ts), and the config
// layer may not import the report's (test/code-layout.test.ts). src/report/model/report-shape.ts
// re-exports them for the report.

/** The KPIs, in report.json's order. */
export const KPI_KEYS = [
  'overall_score_end',
  'overall_score_mean',
  'share_of_voice',
  'money_visibility',
  'visibility_gap',
  'open_recommendations',
  'suspected_false_claims',
  'engine_conflicts',
] as const;
export type KpiKey = (typeof KPI_KEYS)[number];
