// The rules of the one comparison (src/history/comparison.ts), pure: which run holds the state at a
// period's end, when a period is still running and how it is named, when a side is too thin or too
// old to compare, and the one buyer-intent window reports and brand events both read (#30).
import { describe, expect, it } from 'vitest';
import {
  type Basis,
  buyerIntentRow,
  dailyBasis,
  dailySide,
  inProgress,
  periodTitle,
  reasonText,
  snapshotAtEnd,
  snapshotBasis,
} from '../src/history/comparison.js';
import { type CompleteRun, newestRunFirst } from '../src/history/complete-runs.js';
import { parsePeriod } from '../src/history/period.js';

function run(runId: string, runDate: string, startedAt: string, workspaces = ['w1']): CompleteRun {
  return {
    runId,
    runDate,
    windowStart: runDate,
    startedAt,
    endpoints: ['brands', 'recommendations', 'reputation', 'buyer-intent', 'visibility'],
    workspaces,
    tablesFailed: [],
    listsAllWorkspaces: true,
    partKeys: [],
  };
}

const october = parsePeriod('2026-10')!;
const september = parsePeriod('2026-09')!;

/** A basis's reason as report.json words it; null when it compares. */
const words = (b: Basis) => (b.reason ? reasonText(b.reason) : null);

describe('the state at a period end', () => {
  it('is the first run of the day after, else the newest within, else the newest before', () => {
    const runs = [
      run('r5', '2026-11-01', '2026-11-01T09:00:00Z'),
      run('r4', '2026-11-01', '2026-11-01T02:00:00Z'),
      run('r3', '2026-10-20', '2026-10-20T02:00:00Z'),
      run('r2', '2026-10-05', '2026-10-05T02:00:00Z'),
      run('r1', '2026-09-10', '2026-09-10T02:00:00Z'),
    ].sort(newestRunFirst);
    expect(snapshotAtEnd(runs, 'recommendations', 'w1', october)?.runId).toBe('r4');
    expect(snapshotAtEnd(runs.slice(2), 'recommendations', 'w1', october)?.runId).toBe('r3');
    expect(snapshotAtEnd(runs, 'recommendations', 'w1', september)?.runId).toBe('r1');
    expect(snapshotAtEnd(runs, 'recommendations', 'other', october)).toBeUndefined();
  });

  it('a period with no run dated on or after its last day is in progress, named "to date"', () => {
    const runs = [run('r1', '2026-10-28', '2026-10-28T02:00:00Z')];
    expect(inProgress(runs, october)).toBe(true);
    expect(inProgress([run('r2', '2026-10-31', '2026-10-31T02:00:00Z')], october)).toBe(false);
    expect(periodTitle(october, '2026-10-28', true)).toBe('1-28 October 2026, month to date');
    expect(periodTitle(october, '2026-10-31', false)).toBe('1-31 October 2026');
    expect(periodTitle(parsePeriod('2026-W47')!, '2026-11-18', true)).toBe(
      '16-18 November 2026, week to date',
    );
    expect(periodTitle(parsePeriod('2026-10-20_2026-11-10')!, '2026-11-10', false)).toBe(
      '20 October 2026 to 10 November 2026',
    );
  });
});

describe('what a comparison stands on', () => {
  it('a previous period needs data on at least half its days', () => {
    const days = (n: number) =>
      new Set(Array.from({ length: n }, (_, i) => `2026-09-${String(i + 1).padStart(2, '0')}`));
    const cur = dailySide(october, new Set(['2026-10-01']));
    expect(cur).toEqual({ days_with_data: 1, days: 31, snapshot_date: null });
    expect(dailyBasis(september, cur, dailySide(september, days(15))).comparable).toBe(true);
    const thin = dailyBasis(september, cur, dailySide(september, days(14)));
    expect([thin.comparable, words(thin)]).toEqual([
      false,
      'the previous period (2026-09) has data on only 14 of 30 days',
    ]);
    expect(words(dailyBasis(september, cur, dailySide(september, days(0))))).toBe(
      'no data in the previous period (2026-09)',
    );
  });

  it('a previous state from before the previous period, missing or the same run does not compare', () => {
    expect(snapshotBasis(september, '2026-11-01', '2026-10-01').comparable).toBe(true);
    expect(words(snapshotBasis(september, '2026-11-01', '2026-08-29'))).toBe(
      'the previous state is from 29 August 2026, before the previous period (2026-09) began',
    );
    expect(words(snapshotBasis(september, '2026-11-01', null))).toBe(
      'no state known at the end of the previous period (2026-09)',
    );
    expect(snapshotBasis(september, '2026-10-01', '2026-10-01').comparable).toBe(false);
  });

  it('one buyer-intent window for reports and events: the shortest', () => {
    const rows = [{ window_days: 30 }, { window_days: 7 }, { window_days: 90 }];
    expect(buyerIntentRow(rows)?.window_days).toBe(7);
    expect(buyerIntentRow([])).toBeUndefined();
  });
});
