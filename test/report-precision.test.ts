// Sentences from what was compared, and the page's precision (issue #39, case 7): a first report
// claims no change and its charts name no previous period; a change under the page's precision is
// neutral (grey, "±0.0"), never better or worse; a delta on the page is the difference of the values
// shown, so it adds up, while report.json keeps the exact values; engines[].coverage.current is the
// current period's. Figures shaped per day (test/helpers/report-workspace.ts), the page as a reader
// sees it.
import { describe, expect, it } from 'vitest';
import type { WorkspaceData } from '../src/report/model/account-data.js';
import { renderHtml } from '../src/report/render/html.js';
import { buildReport } from '../src/report/render/report-json.js';
import { DEFAULT_STYLE } from '../src/report/style.js';
import { summarySection } from '../src/report/summary/section.js';
import { pageText } from './helpers/page-text.js';
import { AFTER, BEFORE, PERIOD, PREVIOUS, report, type Side, workspace } from './helpers/report-workspace.js';

const read = pageText;

const build = (w: WorkspaceData) =>
  buildReport({ account: 'acme', workspace: w, period: PERIOD, previous: PREVIOUS, style: DEFAULT_STYLE });

/** A workspace's first report: nothing at all known of the previous period. */
function firstReport(after: Partial<Side> = {}) {
  const w = workspace({ ...AFTER, ...after }, BEFORE);
  const inPeriod = (r: { date?: unknown }) => String(r.date) >= PERIOD.from;
  return build({
    ...w,
    previousEnd: {},
    baseline: {},
    baselineDate: null,
    daily: {
      visibility_daily: w.daily.visibility_daily.filter(inPeriod),
      visibility_engine_daily: w.daily.visibility_engine_daily.filter(inPeriod),
    },
  } as unknown as WorkspaceData);
}

describe('sentences from what was compared', () => {
  it('a first report claims no change while listing two claims, and its charts name no previous period', async () => {
    const r = firstReport({ flags: ['claude', 'gemini'] });
    expect(r.comparison.earlier_period).toBe(false);
    const html = await renderHtml(r, DEFAULT_STYLE);
    const page = read(html);
    const summary = page.slice(page.indexOf('Summary'), page.indexOf('Key figures'));
    expect(summary).not.toMatch(/no engine moved|no new suspected false claim|did not fall/i);
    expect(summary).toContain('This is the first report');
    expect(summary).toContain(
      '2 suspected false claims are listed at the end of the period, on Claude and Gemini',
    );
    // The legend of the score and share charts: this period only.
    const charts = [...html.matchAll(/<div class="chart">([\s\S]*?)<\/div>/g)].map((m) => m[1] ?? '');
    expect(charts.length).toBeGreaterThan(0);
    for (const svg of charts) expect(svg).not.toContain('previous period');
    expect(page).not.toContain('The previous period is dashed');
  });

  it('says no claim appeared only where the claims were compared', async () => {
    // The same engines, claims and money on both sides: nothing moved that the data can tell.
    const calm = { engines: BEFORE.engines, flags: [], money: BEFORE.money, losses: BEFORE.losses };
    const compared = read((await summarySection(report(calm), DEFAULT_STYLE, null)).toString());
    expect(compared).toContain('no new suspected false claim appeared');
    // No state before this period's own (what changed has nothing to compare with): the claims
    // were not compared, so nothing is said of them.
    const w = workspace({ ...AFTER, ...calm }, BEFORE);
    const r = build({ ...w, baseline: {}, baselineDate: null } as unknown as WorkspaceData);
    expect(r.comparison.earlier_period).toBe(true);
    expect(r.what_changed.basis).toBe('none');
    const text = read((await summarySection(r, DEFAULT_STYLE, null)).toString());
    expect(text).not.toMatch(/no new suspected false claim|no engine moved/i);
    expect(text).toContain('could not all be compared with the previous period');
  });

  it('a change under the precision is neutral: Gemini 78.3 -> 78.3 (±0.0) is never marked worse', async () => {
    const r = report(
      { engines: { chatgpt: 48.5, gemini: 78.26 } },
      { engines: { chatgpt: 60, gemini: 78.34 } },
    );
    const html = await renderHtml(r, DEFAULT_STYLE);
    const engineRow = /<tr><td><bdi>Gemini<\/bdi><\/td>[\s\S]*?<\/tr>/.exec(html)?.[0] ?? '';
    expect(engineRow).toContain('78.3');
    expect(engineRow).not.toMatch(/delta (up|down)/);
    expect(engineRow).toContain('±0.0');
    // "What changed": no line colours Gemini better or worse.
    const changes = html.slice(html.indexOf('<div class="changes">'));
    const geminiLine = /<tr>(?:(?!<tr>)[\s\S])*?Gemini(?:(?!<tr>)[\s\S])*?<\/tr>/.exec(changes)?.[0] ?? '';
    expect(geminiLine).not.toMatch(/delta (up|down)/);
    // report.json keeps the exact figures.
    expect(r.engines.find((e) => e.engine === 'gemini')?.delta).toBe(-0.08);
  });

  it('a delta on the page is the difference of the values shown: "35.5 to 39.1 (+3.6)" adds up', async () => {
    const r = report(
      { engines: { chatgpt: 39.06, gemini: 41 } },
      { engines: { chatgpt: 35.54, gemini: 40 } },
    );
    expect(r.engines.find((e) => e.engine === 'chatgpt')?.delta).toBe(3.52);
    const page = read(await renderHtml(r, DEFAULT_STYLE));
    expect(page).toContain('ChatGPT 39.1 not available 35.5 ▲ +3.6 pts');
    expect(page).toContain('ChatGPT: 35.5 → 39.1 (+3.6 pts)');
    expect(page).not.toContain('+3.5');
    // The summary's engine sentence too.
    expect(page).toContain('from 35.5 to 39.1 (+3.6 points)');
  });

  it('engines[].coverage.current holds the current period, not the previous one', () => {
    const w = workspace();
    // The engines have scores on two of this period's four days, on every day of the previous one.
    const keep = (r: { date?: unknown }) => !['2026-10-07', '2026-10-08'].includes(String(r.date));
    const r = build({
      ...w,
      daily: { ...w.daily, visibility_engine_daily: w.daily.visibility_engine_daily.filter(keep) },
    });
    for (const e of r.engines) {
      expect(e.coverage.current).toEqual({ days_with_data: 2, days: 4, snapshot_date: null });
      expect(e.coverage.previous).toEqual({ days_with_data: 4, days: 4, snapshot_date: null });
    }
  });
});
