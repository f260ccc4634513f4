// Goals per client (`reports.goals`, docs/reports.md "Goals"): checked at load (an unknown metric,
// an impossible target or day names the key, exit 78), and the progress of each goal from the
// report's own figures: the value, the gap, the days left and the trend carried to the goal's date,
// worded on/off track, reached, past due, or why there is no trend, never a silent 0.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../src/config/read-config.js';
import { GOAL_METRICS, type GoalConfig } from '../src/config/report-goals.js';
import { goalProgress } from '../src/report/goals/progress.js';
import { buildModel } from '../src/report/model/model.js';
import { KPI_KEYS, type Kpi, type ReportModel } from '../src/report/model/report-shape.js';
import { renderOverview } from '../src/report/overview/page.js';
import { overviewPart, overviewRows } from '../src/report/overview/rows.js';
import { renderHtml } from '../src/report/render/html.js';
import { reportJsonText } from '../src/report/render/report-json.js';
import { reportSettingsFor } from '../src/report/settings.js';
import { DEFAULT_STYLE, type ReportStyle } from '../src/report/style.js';
import { summarySentences } from '../src/report/summary/sentences.js';
import * as h from './helpers/harness.js';
import { pageText } from './helpers/page-text.js';
import { PERIOD, PREVIOUS, workspace } from './helpers/report-workspace.js';

const ENV = { ACME_API_KEY: 'k-acme-0123456789' };

function configText(accountReports: string): string {
  return `accounts:
  - name: acme
    apiKey: \${ACME_API_KEY}
    baseUrl: https://visibility.example/api/v1
${accountReports}sinks:
  fs: {}
`;
}

function write(text: string): string {
  const dir = h.tempDir();
  writeFileSync(join(dir, 'visync.yaml'), text);
  return join(dir, 'visync.yaml');
}

function issues(text: string): { path: string; message: string }[] {
  try {
    readConfig(write(text), ENV, () => {});
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).issues;
  }
  throw new Error('expected a ConfigError');
}

const goalsAt = (goals: string) => `    reports:
      goals:
        - { metric: share_of_voice, target: 35, by: 2027-06-30 }
      workspaces:
        ws1:
          goals:
${goals}`;

describe('goals in the config', () => {
  it('the metrics are the report KPIs, one list', () => {
    expect(GOAL_METRICS).toBe(KPI_KEYS);
    expect([...GOAL_METRICS]).toEqual([...KPI_KEYS]);
  });

  it('a workspace takes its own goals, the others the account default', () => {
    const c = readConfig(
      write(
        configText(
          goalsAt(`            - { metric: overall_score_mean, target: 70, by: 2027-03-31, label: "Score 70 by spring" }
            - { metric: open_recommendations, target: 3, by: 2027-03-31 }
`),
        ),
      ),
      ENV,
      () => {},
    );
    const account = c.accounts[0]!;
    expect(reportSettingsFor(c, account, 'ws1').goals).toEqual([
      { metric: 'overall_score_mean', target: 70, by: '2027-03-31', label: 'Score 70 by spring' },
      { metric: 'open_recommendations', target: 3, by: '2027-03-31' },
    ]);
    expect(reportSettingsFor(c, account, 'ws2').goals).toEqual([
      { metric: 'share_of_voice', target: 35, by: '2027-06-30' },
    ]);
  });

  it('an unknown metric, a target out of range or a day that does not exist names the key', () => {
    const found = issues(
      configText(
        goalsAt(`            - { metric: overall_score, target: 70, by: 2027-03-31 }
            - { metric: share_of_voice, target: 135, by: 2027-03-31 }
            - { metric: open_recommendations, target: 2.5, by: 2027-03-31 }
            - { metric: money_visibility, target: 50, by: 2027-02-30 }
            - { metric: money_visibility, target: 50 }
`),
      ),
    );
    const at = (path: string) => found.find((i) => i.path === path)?.message;
    expect(at('accounts.0.reports.workspaces.ws1.goals.0.metric')).toBe(
      `expected one of ${KPI_KEYS.join(', ')}`,
    );
    expect(at('accounts.0.reports.workspaces.ws1.goals.1.target')).toMatch(
      /share of voice in percent between 0 and 100/,
    );
    expect(at('accounts.0.reports.workspaces.ws1.goals.2.target')).toMatch(/whole number/);
    expect(at('accounts.0.reports.workspaces.ws1.goals.3.by')).toMatch(/real day as YYYY-MM-DD/);
    expect(at('accounts.0.reports.workspaces.ws1.goals.4.by')).toMatch(/^required/);
  });

  it('`visync report` with a bad goal stops with exit 78 and one line naming the key', async () => {
    const path = write(configText(goalsAt('            - { metric: score, target: 70, by: 2027-03-31 }\n')));
    const r = await h.visyncCli(path, ['report']);
    expect(r.code).toBe(78);
    expect(r.err.join('\n')).toContain('accounts.0.reports.workspaces.ws1.goals.0.metric');
    expect(r.err.join('\n')).toContain('overall_score_mean');
  });
});

// ---- progress: a November report of 30 days, each day's score given.
const NOV = { label: '2026-11', kind: 'month' as const, from: '2026-11-01', to: '2026-11-30' };
const days = Array.from({ length: 30 }, (_, i) => `2026-11-${String(i + 1).padStart(2, '0')}`);

function kpi(
  value: number | null,
  previous: number | null = null,
  dates: [string, string] | null = null,
): Kpi {
  return {
    value,
    previous,
    delta: value !== null && previous !== null ? value - previous : null,
    comparable: previous !== null,
    coverage: {
      current: { days_with_data: null, days: null, snapshot_date: dates?.[1] ?? null },
      previous: { days_with_data: null, days: null, snapshot_date: dates?.[0] ?? null },
    },
  };
}

type Part = Pick<ReportModel, 'kpis' | 'trend' | 'period' | 'period_status'>;

function part(
  scores: (number | null)[],
  o: { share?: number[]; unit?: 'percent' | 'fraction'; kpis?: Partial<ReportModel['kpis']> } = {},
): Part {
  const known = scores.filter((s): s is number => s !== null);
  const mean = known.length ? known.reduce((a, b) => a + b, 0) / known.length : null;
  const kpis = Object.fromEntries(KPI_KEYS.map((k) => [k, kpi(null)])) as ReportModel['kpis'];
  kpis.overall_score_mean = kpi(mean);
  kpis.overall_score_end = kpi(known.at(-1) ?? null);
  const share = o.share ?? [];
  kpis.share_of_voice = kpi(share.length ? share.reduce((a, b) => a + b, 0) / share.length : null);
  return {
    period: NOV,
    period_status: { in_progress: false, end: '2026-11-30' },
    kpis: { ...kpis, ...o.kpis },
    trend: {
      days: 30,
      days_with_data: known.length,
      share_of_voice_unit: o.unit ?? 'percent',
      series: days.map((date, i) => ({
        date,
        overall_score: scores[i] ?? null,
        share_of_voice: share[i] ?? null,
        previous_date: '',
        previous_overall_score: null,
        previous_share_of_voice: null,
      })),
      unrecognised: [],
    },
  };
}

const rising = days.map((_, i) => 50 + i * 0.5); // 50 .. 64.5, +0.5 a day
const goal = (g: Partial<GoalConfig> = {}): GoalConfig => ({
  metric: 'overall_score_mean',
  target: 70,
  by: '2027-01-31',
  ...g,
});

describe('goal progress', () => {
  it('projects the least-squares line of the period to the goal day: on track', () => {
    const p = goalProgress(part(rising), goal());
    expect(p).toMatchObject({
      direction: 'at_least',
      value: 57.25,
      gap: 12.75,
      days_left: 62,
      trend: { basis: 'daily', per_day: 0.5, days: 30 },
      status: 'on_track',
    });
    // Day 30 is 64.5; 62 days on at +0.5 a day.
    expect(p.projected).toBe(95.5);
    // Further on than three times its 30 days, the line is not carried: no 100 or 0 as a forecast
    // (test/report-goal-projection.test.ts).
    expect(goalProgress(part(rising), goal({ by: '2027-06-30' }))).toMatchObject({
      projected: null,
      projection_limited: true,
    });
    expect(goalProgress(part([...rising].reverse()), goal({ by: '2027-06-30' })).projected).toBeNull();
  });

  it('off track when the line falls short, reached when the value as shown meets the target', () => {
    expect(goalProgress(part(rising), goal({ by: '2026-12-05' })).status).toBe('off_track');
    expect(goalProgress(part(rising), goal({ target: 57.3 })).status).toBe('reached');
    expect(goalProgress(part(rising), goal({ target: 57.3 })).gap).toBe(0);
    // The mean is 57.25, shown 57.3: not reached at 57.4.
    expect(goalProgress(part(rising), goal({ target: 57.4 })).status).not.toBe('reached');
    // A falling score is off track whatever the date.
    const falling = [...rising].reverse();
    expect(goalProgress(part(falling), goal({ by: '2030-01-01' })).status).toBe('off_track');
  });

  it('past due when the day has come and the target is not reached; no projection then', () => {
    const p = goalProgress(part(rising), goal({ by: '2026-11-15' }));
    expect(p).toMatchObject({ status: 'past_due', days_left: -15, projected: null });
  });

  it('no value when the figure is missing, no trend when too few days have data: never a 0', () => {
    const none = goalProgress(part(days.map(() => null)), goal());
    expect(none).toMatchObject({ status: 'no_value', value: null, gap: null, projected: null, trend: null });
    const thin = part(days.map((_, i) => (i < 10 ? 60 + i : null)));
    expect(goalProgress(thin, goal())).toMatchObject({ status: 'no_trend', value: 64.5, trend: null });
  });

  it('share of voice sent as a fraction is compared in percent, as the target is written', () => {
    const share = days.map((_, i) => 0.3 + i * 0.002);
    const p = goalProgress(
      part(rising, { share, unit: 'fraction' }),
      goal({ metric: 'share_of_voice', target: 35 }),
    );
    expect(p.value).toBeCloseTo(32.9, 9);
    expect(p.trend?.per_day).toBeCloseTo(0.2, 9);
    expect(p.status).toBe('on_track');
  });

  it('a snapshot figure trends from the previous state to this one; fewer is better for counts', () => {
    const kpis = { open_recommendations: kpi(6, 9, ['2026-10-31', '2026-11-30']) };
    const on = goalProgress(part(rising, { kpis }), goal({ metric: 'open_recommendations', target: 2 }));
    expect(on).toMatchObject({
      direction: 'at_most',
      value: 6,
      gap: 4,
      trend: { basis: 'snapshot', per_day: -0.1, days: 30 },
      // 6 - 0.1 a day for 62 days is -0.2: no count goes below 0, so no projection; the change
      // per day (-0.1) keeps pace with the one needed (-4 in 62 days, -0.06).
      projected: null,
      projection_limited: true,
      status: 'on_track',
    });
    const off = goalProgress(
      part(rising, { kpis }),
      goal({ metric: 'open_recommendations', target: 2, by: '2026-12-15' }),
    );
    expect(off.status).toBe('off_track');
    // Without a comparable previous state there is no trend to carry.
    const alone = { open_recommendations: kpi(6) };
    expect(
      goalProgress(part(rising, { kpis: alone }), goal({ metric: 'open_recommendations', target: 2 })).status,
    ).toBe('no_trend');
  });
});

// ---- the page, the summary, report.json and the overview: the four-day workspace of the summary tests.
const GOALS: GoalConfig[] = [
  { metric: 'overall_score_mean', target: 45, by: '2026-12-31', label: 'Score <b>45</b> & more' },
  { metric: 'share_of_voice', target: 35, by: '2026-12-31' },
  { metric: 'open_recommendations', target: 1, by: '2026-10-07' },
];
const de = (goals?: GoalConfig[]): ReportStyle => ({
  ...DEFAULT_STYLE,
  locale: 'de-DE',
  ...(goals ? { goals } : {}),
});
const model = (style: ReportStyle, brandId = 'b1') =>
  buildModel({
    account: 'acme',
    workspace: workspace(undefined, undefined, brandId),
    period: PERIOD,
    previous: PREVIOUS,
    style,
  });

describe('goals on the page, in the summary, in report.json and on the overview', () => {
  it('report.json states each goal after the KPIs; a client without goals keeps its bytes', () => {
    const without = reportJsonText(model(de()));
    expect(without).not.toContain('"goals"');
    expect(reportJsonText(model(de([])))).toBe(without);
    const json = JSON.parse(reportJsonText(model(de(GOALS))));
    expect(Object.keys(json).indexOf('goals')).toBe(Object.keys(json).indexOf('kpis') + 1);
    expect(json.goals.map((g: { status: string }) => g.status)).toEqual(['reached', 'no_trend', 'past_due']);
    expect(json.goals[0]).toMatchObject({ label: 'Score <b>45</b> & more', value: 49.625, gap: 0 });
  });

  it('the summary says each goal after the headline sentence, in German, the label as text', async () => {
    const r = model(de(GOALS));
    expect(
      summarySentences(r)
        .map((x) => x.key)
        .slice(0, 4),
    ).toEqual(['score_down', 'goals:sentence.reached', 'goals:sentence.no_trend', 'goals:sentence.past_due']);
    const page = await renderHtml(r, de(GOALS));
    expect(page).toContain('<bdi>Score &lt;b&gt;45&lt;/b&gt; &amp; more</bdi>');
    const text = pageText(page);
    expect(text).toContain(
      'Score <b>45</b> & more, Ziel mindestens 45,0 bis 31. Dezember 2026: erreicht, jetzt 49,6.',
    );
    expect(text).toContain(
      'Share of Voice (Mittel), Ziel mindestens 35,0 % bis 31. Dezember 2026: jetzt 30,0 %; zu wenige Tage mit Daten für einen Trend.',
    );
    expect(text).toContain(
      'Offene Empfehlungen, Ziel höchstens 1 bis 7. Oktober 2026: zum Termin nicht erreicht, jetzt 2.',
    );
    // The table under the key figures: days left, status words.
    expect(text).toContain('Ziele Ziel Zielwert und Termin Jetzt Laut Trend zum Termin Stand');
    expect(text).toContain(
      'mindestens 35,0 % bis 31. Dezember 2026 (noch 84 Tage) 30,0 % k. A. noch kein Trend',
    );
    expect(text).toContain('höchstens 1 bis 7. Oktober 2026 2 k. A. Termin verpasst');
  });

  it('the trend charts draw a dashed goal line with its target; without goals the page is as before', async () => {
    const page = await renderHtml(model(de(GOALS)), de(GOALS));
    const charts = page.match(/<svg[\s\S]*?<\/svg>/g) ?? [];
    expect(charts[0]).toContain('Ziel 45,0');
    expect(charts[0]).toContain('stroke-dasharray="6,3"');
    expect(charts[1]).toMatch(/Ziel 35,0\s%/);
    expect(charts[1]).not.toContain('Ziel 45,0');
    const plain = await renderHtml(model(de()), de());
    expect(plain).not.toContain('Ziel');
    expect(await renderHtml(model(de([])), de([]))).toBe(plain);
  });

  it('the overview has a goal column when a client has goals: status per goal, "kein Ziel" for the others', async () => {
    const withGoals = overviewPart(model(de(GOALS)));
    const none = overviewPart(model(de(), 'b2'));
    // A report.json of an earlier release has no goals field at all.
    const { goals: _g, ...old } = overviewPart(model(de(), 'b3'));
    const rows = overviewRows(
      [
        { brandId: 'b1', report: withGoals, href: null },
        { brandId: 'b2', report: none, href: null },
        { brandId: 'b3', report: old, href: null },
      ],
      null,
    );
    const page = await renderOverview({ period: PERIOD, previous: PREVIOUS, rows, trend: [], style: de() });
    const text = pageText(page);
    expect(text).toContain('Share of Voice Ziel Ereignisse');
    expect(text).toContain(
      'erreicht Score <b>45</b> & more noch kein Trend Share of Voice (Mittel) Termin verpasst Offene Empfehlungen',
    );
    expect(text.match(/kein Ziel/g)).toHaveLength(2);
    const noGoals = rows.map((r) => ({ ...r, goals: [] }));
    const before = await renderOverview({
      period: PERIOD,
      previous: PREVIOUS,
      rows: noGoals,
      trend: [],
      style: de(),
    });
    expect(before).not.toContain('Ziel');
    expect(before).not.toContain('with-goals');
  });
});
