// Year on year through the built bin (#42 item 4): `visync report --compare year` writes the
// report that compares November with November a year earlier; without --compare a workspace's
// `reports.schedule.compare: year` does the same (a report made again by hand keeps the schedule's
// basis); a bad basis is a one-line usage error (64), a bad config value names its key (78).
// Real parts: the simulator over HTTP on two nights a year apart, the fs store, the spawned bin.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { Report } from '../src/report/model/report-shape.js';
import { runVisync } from './helpers/cli-process.js';
import { datedNights } from './helpers/dated-nights.js';
import * as h from './helpers/harness.js';
import { reportDir } from './helpers/report-nights.js';

/** The synced config with `reports` set at the top level. */
function withReports(config: string, reports: unknown): string {
  const doc = parse(readFileSync(config, 'utf8')) as Record<string, unknown>;
  doc.reports = reports;
  const path = join(h.tempDir(), 'visync.yaml');
  writeFileSync(path, stringify(doc));
  return path;
}

describe('visync report --compare year, built', () => {
  it('compares with the same month a year earlier, by flag or by the schedule; bad values refused', async () => {
    const dir = h.tempDir();
    const { config, ids } = await datedNights(dir, [
      { date: '2025-12-01', days: 31 },
      { date: '2026-12-01', days: 30 },
    ]);
    const brand = ids[0] as string;
    const out = h.tempDir();
    const run = await runVisync([
      '--config',
      config,
      'report',
      '--period',
      '2026-11',
      '--compare',
      'year',
      '--out',
      out,
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const json = JSON.parse(
      readFileSync(join(reportDir(out, brand, '2026-11'), 'report.json'), 'utf8'),
    ) as Report;
    expect(json.previous_period.label).toBe('2025-11');
    expect(json.comparison).toMatchObject({ earlier_period: true, basis: 'year' });
    expect(json.kpis.overall_score_mean.coverage.previous).toMatchObject({ days_with_data: 30, days: 30 });
    const page = readFileSync(join(reportDir(out, brand, '2026-11'), 'report.html'), 'utf8');
    expect(page).toContain('Compared with November 2025, the same period a year earlier.');

    // The schedule's basis without the flag; --compare previous still wins over it.
    const scheduled = withReports(config, { schedule: { period: 'monthly', day: 2, compare: 'year' } });
    const byConfig = h.tempDir();
    expect(
      (await runVisync(['--config', scheduled, 'report', '--period', '2026-11', '--out', byConfig])).code,
    ).toBe(0);
    const made = JSON.parse(
      readFileSync(join(reportDir(byConfig, brand, '2026-11'), 'report.json'), 'utf8'),
    ) as Report;
    expect(made.comparison.basis).toBe('year');
    const flag = h.tempDir();
    await runVisync([
      '--config',
      scheduled,
      'report',
      '--period',
      '2026-11',
      '--compare',
      'previous',
      '--out',
      flag,
    ]);
    const previous = JSON.parse(
      readFileSync(join(reportDir(flag, brand, '2026-11'), 'report.json'), 'utf8'),
    ) as Report;
    expect([previous.comparison.basis, previous.previous_period.label]).toEqual(['previous', '2026-10']);

    const bad = await runVisync(['--config', config, 'report', '--compare', 'decade', '--out', out]);
    expect(bad.code).toBe(64);
    // One line saying what to use (then commander's pointer to --help, as for every usage error).
    expect(bad.stderr.split('\n')[0]).toContain(
      'unknown basis "decade": use previous (the period before) or year (the same period a year earlier)',
    );
    const badConfig = withReports(config, { schedule: { period: 'monthly', day: 2, compare: 'decade' } });
    const refused = await runVisync(['--config', badConfig, 'report', '--out', out]);
    expect(refused.code).toBe(78);
    expect(refused.stderr).toContain('reports.schedule.compare');
  });
});
