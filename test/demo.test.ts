// `npm run demo` as a newcomer runs it (scripts/demo.ts in its own process, two workspaces instead
// of 24 to keep it quick): two nights synced, then the client reports written, and the path of one
// report.html printed in the closing lines (README, first lines), then one client's mail.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../src/report/model/report-shape.js';
import { SECTION_TITLES } from '../src/report/render/html.js';
import { startProcess } from './helpers/cli-process.js';
import * as h from './helpers/harness.js';

const ROOT = join(import.meta.dirname, '..');

describe('npm run demo', () => {
  it('ends by writing the client reports and names one report.html that shows every section', async () => {
    const dir = h.tempDir();
    const demo = startProcess(process.execPath, ['--import', 'tsx', 'scripts/demo.ts'], {
      cwd: ROOT,
      env: { DEMO_WORKSPACES: '2', DEMO_DATA_DIR: dir },
      guardMs: 60_000,
    });
    const { code, stdout, stderr } = await demo.exited;
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain(`reports: 2 (html and json per workspace`);
    const path = /^open one: (.+\/report\.html)$/m.exec(stdout)?.[1];
    expect(path?.startsWith(join(dir, 'reports', 'account=demo'))).toBe(true);
    expect(existsSync(path as string)).toBe(true);
    // Its tables as a workbook and CSVs beside it (docs/reports.md, "Spreadsheets"), the workbook's path printed.
    const workbook = /^its tables for a deck: (.+\/report\.xlsx) /m.exec(stdout)?.[1];
    expect(workbook).toBe(join(path as string, '..', 'report.xlsx'));
    expect(existsSync(workbook as string)).toBe(true);
    expect(existsSync(join(path as string, '..', 'tables', 'kpis.csv'))).toBe(true);
    // The account's overview beside the reports (src/report/overview/), its path printed.
    const overview = /^agency overview: (.+\/overview\.html)$/m.exec(stdout)?.[1];
    expect(overview?.startsWith(join(dir, 'reports', 'account=demo', 'period='))).toBe(true);
    expect(existsSync(overview as string)).toBe(true);
    // The whole book (reports.agency a mapping in the demo's config), in the agency's de-DE.
    const book = /^whole book \(every account, de-DE\): (.+\/overview\.html)$/m.exec(stdout)?.[1];
    expect(book?.startsWith(join(dir, 'reports', 'agency', 'period='))).toBe(true);
    expect(readFileSync(book as string, 'utf8')).toContain('<html lang="de-DE">');
    // And that a worker keeps it written after each account's scheduled reports.
    expect(stdout).toMatch(
      /^a visync worker rewrites the whole book after each account's scheduled reports: /m,
    );

    const html = readFileSync(path as string, 'utf8');
    const headings = [...html.matchAll(/<h2>([^<]*)<\/h2>/g)].map((m) => m[1]);
    expect(headings).toEqual(['Summary', ...SECTION_TITLES]);
    // The earlier night gives the report a previous period: deltas and changes, not "no earlier data".
    const report = JSON.parse(readFileSync(join(path as string, '..', 'report.json'), 'utf8')) as Report;
    expect(report.kpis.overall_score_mean.delta).not.toBeNull();
    expect(report.kpis.open_recommendations.previous).not.toBeNull();
    expect(report.what_changed.basis).toBe('data');
    // The mail one client would get, in the agency's own wording (reports.mail.templates), with the
    // summary and the account manager's note; not sent, written beside the data.
    expect(stdout).toMatch(
      /^mail \(reports\.mail\.templates, not sent; .+\/mail\.html\):\n {2}Subject: .+: your AI visibility, /m,
    );
    expect(stdout).toMatch(/^ {2}\*\*In short:\*\* The mean overall visibility score over the period /m);
    expect(stdout).toContain(
      '  The new comparison page went live on the 3rd; **ChatGPT** picked it up within a week.',
    );
    // reports.attach: [html, xlsx]: the mail names the page and the workbook it carries.
    expect(stdout).toMatch(/^ {2}The full report is attached \([\w-]+\.html, [\w-]+\.xlsx\)\.$/m);
    const mail = readFileSync(join(dir, 'mail-preview', 'mail.html'), 'utf8');
    expect(mail).toContain('<strong>ChatGPT</strong> picked it up');
    // Competitors over time on every page; one workspace's report year on year, its path printed.
    expect(html).toContain('<h3>Money prompts won over time</h3>');
    const yearPage = /^year on year \(--compare year\): (.+\/report\.html)$/m.exec(stdout)?.[1] as string;
    const year = JSON.parse(readFileSync(join(yearPage, '..', 'report.json'), 'utf8')) as Report;
    expect(year.comparison).toMatchObject({ basis: 'year', earlier_period: true });
    expect(year.kpis.overall_score_mean.delta).not.toBeNull();
    expect(readFileSync(yearPage, 'utf8')).toContain('the same period a year earlier');
  });
});
