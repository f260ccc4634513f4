// `npm run demo` as a newcomer runs it (scripts/demo.ts in its own process, two workspaces instead
// of 24 to keep it quick): two nights synced, then the client reports written, and the path of one
// report.html printed in the closing lines (README, first lines).
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
    // The account's overview beside the reports (src/report/overview/), its path printed.
    const overview = /^agency overview: (.+\/overview\.html)$/m.exec(stdout)?.[1];
    expect(overview?.startsWith(join(dir, 'reports', 'account=demo', 'period='))).toBe(true);
    expect(existsSync(overview as string)).toBe(true);

    const html = readFileSync(path as string, 'utf8');
    const headings = [...html.matchAll(/<h2>([^<]*)<\/h2>/g)].map((m) => m[1]);
    expect(headings).toEqual(['Summary', ...SECTION_TITLES]);
    // The earlier night gives the report a previous period: deltas and changes, not "no earlier data".
    const report = JSON.parse(readFileSync(join(path as string, '..', 'report.json'), 'utf8')) as Report;
    expect(report.kpis.overall_score_mean.delta).not.toBeNull();
    expect(report.kpis.open_recommendations.previous).not.toBeNull();
    expect(report.what_changed.basis).toBe('data');
    // Competitors over time on every page; one workspace's report year on year, its path printed.
    expect(html).toContain('<h3>Money prompts won over time</h3>');
    const yearPage = /^year on year \(--compare year\): (.+\/report\.html)$/m.exec(stdout)?.[1] as string;
    const year = JSON.parse(readFileSync(join(yearPage, '..', 'report.json'), 'utf8')) as Report;
    expect(year.comparison).toMatchObject({ basis: 'year', earlier_period: true });
    expect(year.kpis.overall_score_mean.delta).not.toBeNull();
    expect(readFileSync(yearPage, 'utf8')).toContain('the same period a year earlier');
  });
});
