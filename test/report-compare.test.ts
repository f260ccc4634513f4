// One comparison (#30 items 1-3): a report's KPI deltas, engine table, "what changed" and the brand
// events of the same days come from one comparison of the data known when the report is made; a
// to-date predecessor is completed, not revised (revisions: test/report-revisions.test.ts); a thin or
// stale previous side reads "not comparable"; a first report says once that there is no earlier
// period; a period still running is named "to date"; a week report works over runs that cover it.
// On real parts: the simulator over HTTP on the nights given, the fs store, the CLI for events.
import { describe, expect, it } from 'vitest';
import { datedNights, readReport, reportsInto } from './helpers/dated-nights.js';
import * as h from './helpers/harness.js';

const month = (label: string, from: string, to: string) => ({ label, kind: 'month' as const, from, to });

describe('one comparison, computed once', () => {
  it('two runs and two reports: one value per figure, a to-date report completed, not revised; month to date named so', async () => {
    const dir = h.tempDir();
    const out = h.tempDir();
    const { ids } = await datedNights(dir, [{ date: '2026-10-20' }]);
    const brand = ids[0] as string;
    await reportsInto(dir, out, month('2026-10', '2026-10-01', '2026-10-31'));
    const october = readReport(out, brand, '2026-10').json;
    // Made on the 20th, October is still running: named so, ending on its newest day with data.
    expect(october.period_status).toEqual({
      in_progress: true,
      end: '2026-10-20',
      title: '1-20 October 2026, month to date',
    });
    expect(october.trend.coverage).toBe('20 of 20 days');

    // The 10 November run returns the rest of October: November's report reads October as known now.
    await datedNights(dir, [{ date: '2026-11-10' }]);
    await reportsInto(dir, out, month('2026-11', '2026-11-01', '2026-11-30'));
    const { json: november, html } = readReport(out, brand, '2026-11');
    expect(november.period_status.title).toBe('1-10 November 2026, month to date');
    // Intl's range writes thin spaces around the dash.
    expect(html).toContain('AI visibility report, 1\u2009–\u200910 November 2026, month to date.');
    expect(november.kpis.overall_score_mean.coverage.previous).toEqual({
      days_with_data: 31,
      days: 31,
      snapshot_date: null,
    });
    // One value per figure: the engine table and "what changed" state the same October means.
    expect(november.what_changed.engine_movers.length).toBeGreaterThan(0);
    for (const m of november.what_changed.engine_movers) {
      const row = november.engines.find((e) => e.engine === m.engine);
      expect([m.before, m.after]).toEqual([row?.previous, row?.score]);
    }
    // October's report was made to date: November's data completes October, it does not revise it
    // (a revision is of a final report: test/report-revisions.test.ts).
    expect(october.kpis.overall_score_mean.value).not.toBe(november.kpis.overall_score_mean.previous);
    expect(november.revisions).toEqual([]);
    expect(html).not.toMatch(/revised/i);
  });

  it('`visync events` and "what changed" agree on the same days (one buyer-intent window)', async () => {
    const dir = h.tempDir();
    const out = h.tempDir();
    const { config, ids } = await datedNights(dir, [{ date: '2026-10-20' }, { date: '2026-11-10' }]);
    // The days since the first night: what changed from the 20 October run to the 10 November run.
    await reportsInto(dir, out, {
      label: '2026-10-21_2026-11-10',
      kind: 'range',
      from: '2026-10-21',
      to: '2026-11-10',
    });
    const r = await h.visyncCli(config, ['events', '--json', '--since', '2026-11-10']);
    expect(r.code, r.err.join('\n')).toBe(0);
    const events = JSON.parse(r.out.join('\n')) as { brand_id: string; event_type: string; key: string }[];
    const keys = (brand: string, type: string) =>
      events
        .filter((e) => e.brand_id === brand && e.event_type === type)
        .map((e) => e.key)
        .sort();
    let competitors = 0;
    for (const brand of ids) {
      const w = readReport(out, brand, '2026-10-21_2026-11-10').json.what_changed;
      expect(w.basis).toBe('data');
      expect(w.since).toBe('2026-10-20');
      expect(keys(brand, 'competitor_new')).toEqual([...w.new_competitors].sort());
      expect(keys(brand, 'recommendation_opened')).toEqual(w.new_recommendations.map((x) => x.id).sort());
      expect(keys(brand, 'false_claim_new')).toEqual(
        w.new_flags.map((x) => `${x.engine}/${x.claim_id}`).sort(),
      );
      expect(keys(brand, 'conflict_new')).toEqual(w.new_conflicts.map((x) => x.id).sort());
      competitors += w.new_competitors.length + w.gone_competitors.length;
    }
    expect(competitors).toBeGreaterThan(0);
  });
});

describe('every comparison says what it stands on', () => {
  it('a previous period with data on 2 of 30 days is "not comparable", in words and in grey', async () => {
    const dir = h.tempDir();
    const out = h.tempDir();
    const { ids } = await datedNights(dir, [
      { date: '2026-09-30', days: 1 },
      { date: '2026-10-31', days: 30 },
    ]);
    await reportsInto(dir, out, month('2026-10', '2026-10-01', '2026-10-31'));
    const { json, html } = readReport(out, ids[0] as string, '2026-10');
    const mean = json.kpis.overall_score_mean;
    expect(mean.previous).not.toBeNull();
    // A one-day window returns the run date and the day before it: 29 and 30 September.
    const n = mean.coverage.previous.days_with_data;
    expect(n).toBe(2);
    expect([mean.comparable, mean.delta, mean.reason]).toEqual([
      false,
      null,
      `the previous period (2026-09) has data on only ${n} of 30 days`,
    ]);
    expect(mean.coverage.previous).toEqual({ days_with_data: n, days: 30, snapshot_date: null });
    expect(json.engines.every((e) => !e.comparable && e.delta === null)).toBe(true);
    // The snapshots compared are the 30 September and 31 October runs: those compare.
    expect(json.kpis.open_recommendations.comparable).toBe(true);
    expect(json.kpis.open_recommendations.coverage.previous.snapshot_date).toBe('2026-09-30');
    expect(json.comparison.earlier_period).toBe(true);
    expect(html).toContain(
      `<span class="delta na">not comparable</span> <span class="muted">the previous period (September 2026) has data on only ${n} of 30 days</span>`,
    );
  });

  it("a week's report works over runs that cover it; a previous state older than the previous week is not comparable", async () => {
    const dir = h.tempDir();
    const out = h.tempDir();
    const { ids } = await datedNights(dir, [{ date: '2026-10-20' }, { date: '2026-11-10' }]);
    await reportsInto(dir, out, { label: '2026-W45', kind: 'week', from: '2026-11-02', to: '2026-11-08' });
    const { json } = readReport(out, ids[0] as string, '2026-W45');
    expect(json.period_status).toEqual({ in_progress: false, end: '2026-11-08', title: '2-8 November 2026' });
    expect(json.trend.coverage).toBe('7 of 7 days');
    expect(json.kpis.overall_score_mean.comparable).toBe(true);
    expect(json.kpis.overall_score_mean.delta).not.toBeNull();
    const money = json.kpis.money_visibility;
    expect([money.comparable, money.delta, money.reason]).toEqual([
      false,
      null,
      'the previous state is from 20 October 2026, before the previous period (2026-W44) began',
    ]);
  });

  it("a workspace's first report says once that there is no earlier period, no card says n/a vs n/a", async () => {
    const dir = h.tempDir();
    const out = h.tempDir();
    const { ids } = await datedNights(dir, [{ date: '2026-11-10' }]);
    await reportsInto(dir, out);
    const { json, html } = readReport(out, ids[0] as string, '2026-10-12_2026-11-10');
    expect(json.comparison).toEqual({
      earlier_period: false,
      basis: 'previous',
      history_begins: null,
      note: 'there is no earlier period to compare with: nothing is known for 12 September 2026 to 11 October 2026',
    });
    expect(html.split('no earlier period').length - 1).toBe(1);
    expect(html).not.toMatch(/vs <span class="na">/);
    expect(html).not.toContain('not comparable');
  });
});
