// Revisions only where a final report changed (issue #39, case 6): a to-date predecessor is
// completed, not revised, so the next report carries no "revised" notes for it; a final report whose
// period later gained data gives one line on page 1 and the details at the end of the page, each
// value at the page's precision with its unit. On real parts: the simulator over HTTP on the nights
// given (its clock), the fs store, the reports made into one folder as `--out` does.
import { describe, expect, it } from 'vitest';
import type { Report } from '../src/report/model/report-shape.js';
import { datedNights, readReport, reportsInto } from './helpers/dated-nights.js';
import * as h from './helpers/harness.js';
import { pageText } from './helpers/page-text.js';

type PeriodArg = { label: string; kind: 'month' | 'week'; from: string; to: string };

/** A report the folder holds: its report.json and the text a reader sees. */
function read(out: string, brand: string, label: string): { json: Report; text: string } {
  const { json, html } = readReport(out, brand, label);
  return { json, text: pageText(html) };
}

const make = (dir: string, out: string, period: PeriodArg) => reportsInto(dir, out, period, NOW);
const nights = async (dir: string, list: { date: string; days: number }[]) =>
  (await datedNights(dir, list)).ids;
/** When the reports are made: after every night of these tests. */
const NOW = '2026-12-01T12:00:00Z';

const week = (label: string, from: string, to: string): PeriodArg => ({ label, kind: 'week', from, to });
const month = (label: string, from: string, to: string): PeriodArg => ({ label, kind: 'month', from, to });

describe('revised figures', () => {
  it('a week made to date, then the next week into the same folder: completed, not revised', async () => {
    const dir = h.tempDir();
    const out = h.tempDir();
    const [brand] = await nights(dir, [{ date: '2026-11-18', days: 30 }]);
    await make(dir, out, week('2026-W47', '2026-11-16', '2026-11-22'));
    expect(read(out, brand as string, '2026-W47').json.period_status.in_progress).toBe(true);
    await nights(dir, [{ date: '2026-11-29', days: 30 }]);
    await make(dir, out, week('2026-W48', '2026-11-23', '2026-11-29'));
    const { json, text } = read(out, brand as string, '2026-W48');
    expect(json.revisions).toEqual([]);
    expect(text).not.toMatch(/revised/i);
    // No figure on the page with more decimals than the page's precision.
    expect(text).not.toMatch(/\d\.\d{3,}/);
  });

  it('a final report whose period later gained data: one line on page 1, the details at the end', async () => {
    const dir = h.tempDir();
    const out = h.tempDir();
    // The 1 November run returns 30 days: October is complete (a run is dated after it) without 1-2 October.
    const [brand] = await nights(dir, [{ date: '2026-11-01', days: 30 }]);
    await make(dir, out, month('2026-10', '2026-10-01', '2026-10-31'));
    const october = read(out, brand as string, '2026-10').json;
    expect(october.period_status.in_progress).toBe(false);
    // A later run with more history returns 1-2 October: October's figures are revised.
    await nights(dir, [{ date: '2026-11-10', days: 45 }]);
    await make(dir, out, month('2026-11', '2026-11-01', '2026-11-30'));
    const { json, text } = read(out, brand as string, '2026-11');
    const n = json.revisions.length;
    expect(n).toBeGreaterThan(0);
    const line = `${n} figure${n === 1 ? '' : 's'} revised since the report of 31 October 2026; see the end.`;
    // Once, above the cards.
    expect(text.split(line)).toHaveLength(2);
    expect(text.indexOf(line)).toBeLessThan(text.indexOf('Overall score (period mean)'));
    // The details after every section, each value at one decimal with its unit.
    const details = text.slice(text.indexOf('Revised figures'));
    expect(text.indexOf('Revised figures')).toBeGreaterThan(text.indexOf('What changed'));
    const mean = json.revisions.find((x) => x.figure === 'overall_score_mean');
    expect(mean).toBeDefined();
    const one = (v: number | null) => (v === null ? 'not available' : v.toFixed(1));
    expect(details).toContain(
      `Overall score (period mean), October 2026: ${one(mean?.was ?? null)} in the report of 31 October 2026, now ${one(mean?.now ?? null)}.`,
    );
    const share = json.revisions.find((x) => x.figure === 'share_of_voice');
    if (share)
      expect(details).toMatch(
        /Share of voice \(mean\), October 2026: \d+\.\d% in the report of .*, now \d+\.\d%\./,
      );
    expect(details).not.toMatch(/\d\.\d{2,}/);
  });
});
