// report.json of every version a release has written (issue #41, case 1; docs/reports.md, "Revised
// figures"): what is read of one, whether it was final, the precision it is compared at, and which
// differences are a rule changed since rather than revised data. On a report.json written by release
// 0.1.0 itself (test/fixtures/report/README.md says how); the comparison's pure functions.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { statedOtherwise } from '../src/report/model/compare.js';
import { type StatedFigures, statedFigures } from '../src/report/model/previous-report.js';
import { KPI_KEYS, type KpiKey, type ReportModel } from '../src/report/model/report-shape.js';

type Model = Omit<ReportModel, 'revisions' | 'restated'>;
const revisions = (m: Model, last: StatedFigures) => statedOtherwise(m, last).revisions;
const restated = (m: Model, last: StatedFigures) => statedOtherwise(m, last).restated;

const OLD = JSON.parse(
  readFileSync(join(import.meta.dirname, 'fixtures', 'report', 'report-0.1.0.json'), 'utf8'),
) as Record<string, unknown>;

/** November's model as far as the comparison reads it: October's figures as computed now. */
function november(previous: Partial<Record<KpiKey, number | null>>, engines: Record<string, number> = {}) {
  const kpi = (k: KpiKey) => ({ previous: previous[k] ?? null });
  return {
    previous_period: { label: '2026-10', kind: 'month', from: '2026-10-01', to: '2026-10-31' },
    trend: { share_of_voice_unit: 'percent' },
    kpis: Object.fromEntries(KPI_KEYS.map((k) => [k, kpi(k)])),
    engines: Object.entries(engines).map(([engine, previous]) => ({ engine, previous })),
  } as unknown as Omit<ReportModel, 'revisions' | 'restated'>;
}

describe('a report.json of release 0.1.0 (model_version 1)', () => {
  const old = statedFigures(OLD) as StatedFigures;

  it('is read: its figures, and final, since it read the run of its last day', () => {
    expect(old.model_version).toBe(1);
    expect(old.period).toBe('2026-10');
    expect(old.final).toBe(true);
    expect(old.kpis).toMatchObject({
      overall_score_mean: 66.63,
      money_visibility: 45.9,
      engine_conflicts: 3,
    });
    expect(old.engines).toContainEqual({ engine: 'chatgpt', score: 75.64 });
  });

  it('made before its last day was returned, it was to date: completed, never revised', () => {
    const early = statedFigures({ ...OLD, runs: ['20261020-sync-00bdc6d224fd'] }) as StatedFigures;
    expect(early.final).toBe(false);
    expect(revisions(november({ overall_score_mean: 70 }), early)).toEqual([]);
  });

  it('compared at its own precision and the page’s: its rounded mean and a whole value are no revision', () => {
    // 0.1.0 rounded means at one more decimal than their values: 66.63 is 66.633333... now.
    const same = november(
      { overall_score_mean: 66.633333333333, share_of_voice: 36.5679, engine_conflicts: 3 },
      {
        chatgpt: 75.6412,
      },
    );
    expect(revisions(same, old)).toEqual([]);
    // A whole value stated then stands for that whole value: 71.6 was stated at one decimal, so 71.64 is none.
    expect(revisions(november({ overall_score_end: 71.64 }), old)).toEqual([]);
    const whole = statedFigures({ ...OLD, kpis: { overall_score_end: { value: 72 } } }) as StatedFigures;
    expect(revisions(november({ overall_score_end: 72.3 }), whole)).toEqual([]);
    expect(revisions(november({ overall_score_end: 72.6 }), whole)).toEqual([
      { figure: 'overall_score_end', period: '2026-10', was: 72, now: 72.6 },
    ]);
  });

  it('a snapshot figure whose rule changed since is restated, a daily one that moved is revised', () => {
    const now = november(
      { overall_score_mean: 68.1, money_visibility: 50, engine_conflicts: 0 },
      { chatgpt: 74 },
    );
    expect(revisions(now, old)).toEqual([
      { figure: 'overall_score_mean', period: '2026-10', was: 66.63, now: 68.1 },
      { figure: 'engine:chatgpt', period: '2026-10', was: 75.64, now: 74 },
    ]);
    expect(restated(now, old)).toEqual([
      { figure: 'money_visibility', period: '2026-10', was: 45.9, now: 50 },
      { figure: 'engine_conflicts', period: '2026-10', was: 3, now: 0 },
    ]);
  });
});

describe('report.json of this release and of a newer one', () => {
  it('this release’s (2) is compared at the page’s precision, every difference a revision', () => {
    const mine = statedFigures({
      ...OLD,
      model_version: 2,
      period_status: { in_progress: false, end: '2026-10-31' },
    }) as StatedFigures;
    expect(mine.final).toBe(true);
    expect(restated(november({ money_visibility: 50 }), mine)).toEqual([]);
    expect(revisions(november({ money_visibility: 50 }), mine)).toEqual([
      { figure: 'money_visibility', period: '2026-10', was: 45.9, now: 50 },
    ]);
  });

  it('a newer release’s (3) or one without a version is not read: its figures may mean otherwise', () => {
    expect(statedFigures({ ...OLD, model_version: 3 })).toBeUndefined();
    expect(statedFigures({ ...OLD, model_version: undefined })).toBeUndefined();
    expect(statedFigures('not a report')).toBeUndefined();
  });
});
