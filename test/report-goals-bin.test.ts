// Goals through the built bin (docs/reports.md "Goals"): two simulator nights synced over real HTTP,
// goals set for one client in the config, `visync report` of the built bundle writes report.json
// (each goal's progress), report.html and report.pdf (the goal table, the summary sentence, the
// goal line on the chart, read back with pdftotext; a date too far for the trend says the change
// per day needed and the trend's) and the overview's goal column, all in German;
// a bad goal stops the built bin with exit 78 naming the key.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { builtVisync, NODE22 } from './helpers/built-bin.js';
import { startProcess } from './helpers/cli-process.js';
import * as h from './helpers/harness.js';
import { pageText } from './helpers/page-text.js';
import { reportDir, twoNightsOnce } from './helpers/report-nights.js';

const nights = twoNightsOnce();

/** The config with account reports in German and these goals for the first workspace. */
function withGoals(config: string, first: string, goals: unknown): void {
  const doc = parse(readFileSync(config, 'utf8')) as { accounts: Record<string, unknown>[] };
  (doc.accounts[0] as Record<string, unknown>).reports = {
    locale: 'de-DE',
    workspaces: { [first]: { goals } },
  };
  writeFileSync(config, stringify(doc));
}

const visync = (config: string, args: string[], cwd: string) =>
  startProcess(NODE22, [builtVisync().bin, '--config', config, ...args], { cwd, guardMs: 120_000 }).exited;

interface Goal {
  metric: string;
  status: string;
  value: number | null;
  projected: number | null;
  projection_limited: boolean;
  horizon_days: number | null;
  needed_per_day: number | null;
  days_left: number;
  trend: { basis: string; per_day: number; days: number } | null;
}

describe('goals through the built bin', () => {
  it('report.json, the page, the PDF and the overview say where the client stands against its goals', async () => {
    const { dir, config, brands } = nights.copy();
    const [first, second] = brands as [string, string];
    withGoals(config, first, [
      { metric: 'overall_score_mean', target: 0, by: '2027-03-31', label: 'Sichtbarkeit <halten>' },
      { metric: 'share_of_voice', target: 100, by: '2027-03-31' },
      { metric: 'open_recommendations', target: 0, by: '2026-11-05' },
    ]);
    const out = h.tempDir();
    const run = await visync(
      config,
      ['report', '--period', '2026-11', '--format', 'html,json,pdf', '--out', out],
      dir,
    );
    expect(run.code, run.stderr).toBe(0);
    const folder = reportDir(out, first, '2026-11');
    const json = JSON.parse(readFileSync(join(folder, 'report.json'), 'utf8')) as { goals: Goal[] };
    const [score, share, recs] = json.goals as [Goal, Goal, Goal];
    expect(score).toMatchObject({ metric: 'overall_score_mean', status: 'reached' });
    // November to date (1-10 November): a line through its days with data, too short to be carried
    // to 31 March (141 days on): no projection, the change per day it needs against the trend's.
    expect(share.trend).toMatchObject({ basis: 'daily' });
    expect(share.trend?.days).toBeGreaterThanOrEqual(5);
    expect(share.days_left).toBeGreaterThan(share.horizon_days as number);
    expect(share).toMatchObject({ projected: null, projection_limited: true });
    expect(share.needed_per_day).toBeCloseTo((100 - (share.value as number)) / share.days_left, 9);
    expect(['on_track', 'off_track']).toContain(share.status);
    const shown = (n: number) => Math.round(n * 100) / 100;
    expect(share.status).toBe(
      shown(share.trend?.per_day as number) >= shown(share.needed_per_day as number)
        ? 'on_track'
        : 'off_track',
    );
    expect(recs.status).toBe(recs.value === 0 ? 'reached' : 'past_due');
    // The other client has none: no field, its report as without goals.
    const other = JSON.parse(readFileSync(join(reportDir(out, second, '2026-11'), 'report.json'), 'utf8'));
    expect(other).not.toHaveProperty('goals');

    const html = readFileSync(join(folder, 'report.html'), 'utf8');
    expect(html).toContain('<bdi>Sichtbarkeit &lt;halten&gt;</bdi>');
    const text = pageText(html);
    const shareWord = share.status === 'on_track' ? 'im Plan' : 'nicht im Plan';
    expect(text).toContain('Sichtbarkeit <halten>, Ziel mindestens 0,0 bis 31. März 2027: erreicht, jetzt');
    expect(text).toMatch(
      new RegExp(
        `Share of Voice \\(Mittel\\), Ziel mindestens 100,0\\s% bis 31\\. März 2027: ${shareWord}, jetzt`,
      ),
    );
    expect(text).toContain('Ziele Ziel Zielwert und Termin Jetzt Laut Trend zum Termin Stand');
    // The rates in the table and the summary, never a bound of the range as a forecast.
    expect(text).toMatch(
      / braucht \+\d+,\d\d Pp\.\/Tag, Trend [+\u2212±]\d+,\d\d Pp\.\/Tag (nicht )?im Plan/,
    );
    expect(text).toMatch(/dafür braucht es \+\d+,\d\d Pp\. pro Tag, der Trend dieses Zeitraums liegt bei/);
    expect(html).toMatch(/Ziel 100,0\s%<\/text>/);

    const pdf = execFileSync('pdftotext', ['-layout', join(folder, 'report.pdf'), '-'], { encoding: 'utf8' });
    expect(pdf).toContain('Ziele');
    expect(pdf).toContain(shareWord);
    expect(pdf).toMatch(/braucht \+\d+,\d\d Pp\.\/Tag/);
    // Headers wrap in the PDF's columns: each word of them is there.
    for (const word of ['Zielwert', 'Termin', 'Jetzt', 'Laut', 'Stand']) expect(pdf).toContain(word);
    expect(pdf).toContain('Sichtbarkeit <halten>');

    const overview = pageText(
      readFileSync(join(out, 'account=acme', 'period=2026-11', 'overview.html'), 'utf8'),
    );
    expect(overview).toContain('Share of Voice Ziel Ereignisse');
    expect(overview).toContain(`erreicht Sichtbarkeit <halten> ${shareWord} Share of Voice (Mittel)`);
    expect(overview).toContain('kein Ziel');
  });

  it('a goal on a figure the report does not have stops the built bin: exit 78, the key named', async () => {
    const { dir, config, brands } = nights.copy();
    withGoals(config, brands[0] as string, [{ metric: 'score', target: 70, by: '2027-03-31' }]);
    const run = await visync(config, ['report', '--period', '2026-11', '--out', h.tempDir()], dir);
    expect(run.code).toBe(78);
    expect(run.stderr).toContain(`accounts.0.reports.workspaces.${brands[0]}.goals.0.metric`);
    expect(run.stderr).toContain('overall_score_end, overall_score_mean');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
