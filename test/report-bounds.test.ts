// What a report will not do: cover a period longer than about three years (refused at once, exit
// 64), show a figure that is not finite (it reads "n/a" on the page and null in report.json, like a
// missing one), or print an API string longer than a page whole (cut, with a note; report.json
// keeps it whole), so a PDF stays a few pages.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRange, previousPeriod } from '../src/history/period.js';
import type { WorkspaceData } from '../src/report/model/account-data.js';
import { MAX_SHOWN_CHARS } from '../src/report/render/cut-text.js';
import { renderHtml } from '../src/report/render/html.js';
import { buildReport } from '../src/report/render/report-json.js';
import { DEFAULT_STYLE } from '../src/report/style.js';
import { runVisync } from './helpers/cli-process.js';
import * as h from './helpers/harness.js';
import { reportDir } from './helpers/report-nights.js';

describe('report period bounds', () => {
  it('a period over 1,100 days is refused in one line, exit 64, at once; 1,100 days is not', async () => {
    const started = Date.now();
    const r = await runVisync([
      '--config',
      '/nonexistent/visync.yaml',
      'report',
      '--from',
      '0001-01-01',
      '--to',
      '9999-12-31',
    ]);
    expect(r.code, r.stderr).toBe(64);
    expect(r.stderr.trim()).toBe(
      'visync: period 0001-01-01 to 9999-12-31 is 3652059 days: a report covers at most 1100 days (about 3 years)',
    );
    expect(Date.now() - started).toBeLessThan(15_000);
    const over = await runVisync([
      '--config',
      '/nonexistent/visync.yaml',
      'report',
      '--period',
      '2024-01-01_2027-01-05',
    ]);
    expect(over.code, over.stderr).toBe(64);
    expect(over.stderr).toMatch(/is 1101 days/);
    // 1,100 days pass the check: this one stops at the missing config instead.
    const limit = await runVisync([
      '--config',
      '/nonexistent/visync.yaml',
      'report',
      '--from',
      '2024-01-01',
      '--to',
      '2027-01-03',
    ]);
    expect(limit.code, limit.stderr).toBe(78);
  }, 60_000);
});

describe('figures that are not finite', () => {
  it('a change of 1e308 to -1e308 reads n/a on the page and null in report.json; the huge means stay right', async () => {
    const { r, page } = await reportOf([-1e308, -1e308, 1e308, 1e308]);
    expect(r.kpis.overall_score_mean).toMatchObject({
      value: 1e308,
      previous: -1e308,
      delta: null,
      comparable: true,
    });
    expect(r.kpis.overall_score_end).toMatchObject({ value: 1e308, previous: -1e308, delta: null });
    const json = JSON.parse(JSON.stringify(r)) as typeof r;
    expect(json.kpis.overall_score_mean.delta).toBeNull();
    expect(page).not.toMatch(/Infinity|NaN/);
    expect(page).toContain('<span class="delta na">n/a</span>');
  });

  it('a score that is Infinity (JSON 1e999) or NaN is a missing one: null in the model, n/a on the page', async () => {
    const { r, page } = await reportOf([50, 50, Number.POSITIVE_INFINITY, Number.NaN]);
    expect(r.trend.series.map((d) => d.overall_score)).toEqual([null, null]);
    expect(r.kpis.overall_score_mean).toMatchObject({ value: null, previous: 50, delta: null });
    expect(page).not.toMatch(/Infinity|NaN/);
  });
});

/** The model and page of two days whose daily scores are `scores` (two days before, two in the period). */
async function reportOf(scores: readonly number[]) {
  const day = (date: string, score: number | undefined) => ({
    account: 'acme',
    brand_id: 'b1',
    date,
    overall_score: score,
    share_of_voice: 30,
    run_id: 'run-2',
    extracted_at: `${date}T04:00:00.000Z`,
    payload: { date, overall_score: score, share_of_voice: 30 },
  });
  const period = parseRange('2026-11-01', '2026-11-02')!;
  const dates = ['2026-10-30', '2026-10-31', '2026-11-01', '2026-11-02'];
  const workspace: WorkspaceData = {
    brandId: 'b1',
    end: {},
    previousEnd: {},
    baseline: {},
    daily: { visibility_daily: dates.map((d, i) => day(d, scores[i])), visibility_engine_daily: [] },
  };
  const r = buildReport({
    account: 'acme',
    workspace,
    period,
    previous: previousPeriod(period),
    style: DEFAULT_STYLE,
  });
  // The figures and tables (Vega's axis over a range of 2e308 has no ticks to label: left out).
  const page = (await renderHtml(r, DEFAULT_STYLE)).replace(/<svg[\s\S]*?<\/svg>/g, '');
  return { r, page };
}

describe('API strings longer than a page', () => {
  it('a 2 MB claim is cut on the page and in the PDF with a note; report.json keeps it whole; the PDF stays small', async () => {
    const claim = `Start of the claim. ${'lorem ipsum '.repeat(175_000)}end of the claim`;
    const accounts = [{ name: 'acme', workspaces: 1 }];
    const dir = h.tempDir();
    const first = await h.sim({ seed: 4, accounts, today: '2026-11-10' });
    expect((await h.runOnceCli(first, dir, [])).code).toBe(0);
    const changes = [
      { kind: 'false-claim' as const, account: 'acme', workspace: 0, engine: 'chatgpt', claim },
    ];
    const second = await h.sim({ seed: 4, accounts, today: '2026-11-10', changes });
    const config = h.configFile(second, dir).path;
    const run = await h.visyncCli(config, ['run', '--once', '--log-level', 'silent']);
    expect(run.code, run.err.join('\n')).toBe(0);
    const out = h.tempDir();
    const r = await h.visyncCli(config, ['report', '--out', out, '--format', 'html,json,pdf']);
    expect(r.code, r.err.join('\n')).toBe(0);
    const brand = second.accounts[0]!.workspaceIds[0]!;
    const period = (/ (\S+): /.exec(r.out[0]!) as RegExpExecArray)[1]!;
    const folder = reportDir(out, brand, period);
    const page = readFileSync(join(folder, 'report.html'), 'utf8');
    const cut = claim.length - MAX_SHOWN_CHARS;
    expect(page).toContain(
      // No locale configured: numbers as they are, words in English.
      `<span class="cut">\u2026 (cut: ${cut} characters; the full text is in report.json and the warehouse)</span>`,
    );
    expect(page).not.toContain('end of the claim');
    expect(page.length).toBeLessThan(200_000);
    expect(readFileSync(join(folder, 'report.json'), 'utf8')).toContain(JSON.stringify(claim));
    const pdf = join(folder, 'report.pdf');
    const pages = Number(/^Pages:\s+(\d+)/m.exec(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' }))?.[1]);
    // A handful of pages, not the thousands the whole claim made (the page-break rules of
    // docs/reports-pdf.md give a report of this data 12).
    expect(pages).toBeLessThan(20);
    const text = execFileSync('pdftotext', [pdf, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
    expect(text).toContain('Start of the claim.');
    expect(text).toMatch(/cut: \d+ characters; the full text is in report\.json and the warehouse/);
  }, 180_000);
});
