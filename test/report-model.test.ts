// The report's pure parts: periods, figures at the API's precision, the change computation, and a
// drifted or unknown field shown as null or listed, never 0 or dropped.
import { describe, expect, it } from 'vitest';
import { diffStates } from '../src/history/changes.js';
import { delta, mean } from '../src/history/figures.js';
import { parsePeriod, parseRange, previousPeriod } from '../src/history/period.js';
import type { WorkspaceData } from '../src/report/model/account-data.js';
import { buildReport } from '../src/report/render/report-json.js';
import { DEFAULT_STYLE } from '../src/report/style.js';

describe('report periods', () => {
  it('months, ISO weeks and ranges, and the period before each', () => {
    expect(parsePeriod('2026-02')).toEqual({
      label: '2026-02',
      kind: 'month',
      from: '2026-02-01',
      to: '2026-02-28',
    });
    expect(previousPeriod(parsePeriod('2026-01')!)).toMatchObject({ label: '2025-12', from: '2025-12-01' });
    // 2026 begins on a Thursday: it has a week 53; 2025 does not.
    expect(parsePeriod('2026-W53')).toMatchObject({ from: '2026-12-28', to: '2027-01-03' });
    expect(parsePeriod('2025-W53')).toBeUndefined();
    expect(parsePeriod('2026-W01')).toMatchObject({ from: '2025-12-29', to: '2026-01-04' });
    expect(previousPeriod(parsePeriod('2027-W01')!)).toMatchObject({ label: '2026-W53', from: '2026-12-28' });
    expect(previousPeriod(parseRange('2026-11-01', '2026-11-10')!)).toMatchObject({
      from: '2026-10-22',
      to: '2026-10-31',
    });
    for (const bad of ['2026-13', '2026-W00', '26-10', '2026-02-30_2026-03-01', '2026-10-05_2026-10-01', ''])
      expect(parsePeriod(bad), bad).toBeUndefined();
  });
});

describe('report figures', () => {
  it('keep the precision of the API: 53.4 - 51.2 reads 2.2, and null stays null', () => {
    expect(delta(53.4, 51.2)).toBe(2.2);
    expect(delta(38.562, 35.942)).toBe(2.62);
    expect(delta(null, 3)).toBeNull();
    expect(mean([61, 63.6, null])).toBe(62.3);
    expect(mean([null])).toBeNull();
  });
});

describe('what changed', () => {
  it('lists opened and closed recommendations, flags, conflicts, competitors and the biggest movers', () => {
    const state = (recs: string[], flag: string, competitors: string[], scores: (number | null)[]) => ({
      open_recommendations: recs.map((id) => ({ id, title: id.toUpperCase() })),
      flags: [{ engine: flag, claim_id: 'c1', claim: 'x' }],
      conflicts: [{ id: 'k1', topic: 'pricing' }],
      competitors,
      engines: ['chatgpt', 'gemini', 'claude'].map((engine, i) => ({ engine, score: scores[i] ?? null })),
    });
    const before = state(['r1', 'r2', 'r4'], 'gemini', ['Acme', 'Bolt'], [50, 40.5, null]);
    const after = {
      ...state(['r2', 'r3'], 'claude', ['Bolt', 'Crux'], [48.5, 45.7, 60]),
      closed_recommendations: [{ id: 'r1', title: 'R1', status: 'dismissed' }],
    };
    const c = diffStates(before, after);
    expect(c.new_recommendations.map((r) => r.id)).toEqual(['r3']);
    // Closed: the API lists it done or dismissed; r4 is simply gone from the list: not closed.
    expect(c.closed_recommendations).toEqual([{ id: 'r1', title: 'R1', status: 'dismissed' }]);
    expect(c.unlisted_recommendations).toEqual([{ id: 'r4', title: 'R4' }]);
    expect(c.new_flags).toEqual([{ engine: 'claude', claim_id: 'c1', claim: 'x' }]);
    expect(c.cleared_flags).toEqual([{ engine: 'gemini', claim_id: 'c1', claim: 'x' }]);
    expect([c.new_conflicts, c.resolved_conflicts]).toEqual([[], []]);
    expect([c.new_competitors, c.gone_competitors]).toEqual([['Crux'], ['Acme']]);
    // claude had no score before: it did not "move" from 0.
    expect(c.engine_movers).toEqual([
      { engine: 'gemini', before: 40.5, after: 45.7, delta: 5.2 },
      { engine: 'chatgpt', before: 50, after: 48.5, delta: -1.5 },
    ]);
  });
});

describe('report model', () => {
  it('shows a drifted score as null (not 0), lists fields it does not know, and takes "data as of" from the rows', () => {
    const day = (date: string, score: unknown, extra: Record<string, unknown> = {}) => ({
      account: 'acme',
      brand_id: 'b1',
      date,
      overall_score: score,
      share_of_voice: 30,
      run_id: 'run-2',
      extracted_at: `${date}T04:00:00.000Z`,
      payload: { date, overall_score: score, share_of_voice: 30, ...extra },
    });
    const workspace: WorkspaceData = {
      brandId: 'b1',
      end: {
        brands: {
          runId: 'run-2',
          rows: [
            {
              brand_id: 'b1',
              name: 'Acme',
              domain: null,
              run_id: 'run-2',
              extracted_at: '2026-11-02T04:00:00.000Z',
            },
          ],
        },
        recommendations: { runId: 'run-2', rows: [] },
      },
      previousEnd: {},
      baseline: {},
      daily: {
        visibility_daily: [day('2026-11-01', 50.5), day('2026-11-02', null, { visibility_index: 7 })],
        visibility_engine_daily: [],
      },
    };
    const period = parseRange('2026-11-01', '2026-11-02')!;
    const r = buildReport({
      account: 'acme',
      workspace,
      period,
      previous: previousPeriod(period),
      style: DEFAULT_STYLE,
    });
    expect(r.kpis.overall_score_end).toMatchObject({ value: 50.5, previous: null, delta: null });
    // Nothing known before the period: said once, no card compares.
    expect(r.comparison.earlier_period).toBe(false);
    expect(r.kpis.overall_score_end.comparable).toBe(false);
    expect(r.kpis.overall_score_end.coverage.current).toEqual({
      days_with_data: 1,
      days: 2,
      snapshot_date: null,
    });
    expect(r.trend.series.map((d) => d.overall_score)).toEqual([50.5, null]);
    expect(r.trend.coverage).toBe('2 of 2 days');
    expect(r.trend.unrecognised).toEqual([
      { table: 'visibility_daily', field: 'visibility_index', example: '7' },
    ]);
    // Recommendations were synced (none open): 0. Reputation was not: null, never 0.
    expect(r.kpis.open_recommendations.value).toBe(0);
    expect(r.kpis.suspected_false_claims.value).toBeNull();
    expect(r.kpis.money_visibility.value).toBeNull();
    expect(r.cover).toEqual({
      client_name: 'Acme',
      client_domain: null,
      agency_name: 'visibility-sync',
      data_as_of: '2026-11-02T04:00:00.000Z',
    });
    expect(r.what_changed).toMatchObject({ basis: 'none', since: null, new_recommendations: [] });
    expect(r.runs).toEqual(['run-2']);
  });
});
