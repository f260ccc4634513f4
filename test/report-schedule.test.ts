// When a scheduled report is due (src/delivery/schedule.ts): the examples docs/reports.md gives, and
// properties over any run date and schedule.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WEEKDAYS } from '../src/config/schema.js';
import { digestWeek } from '../src/delivery/digest/send.js';
import { duePeriod } from '../src/delivery/schedule.js';
import { isoWeekday, isoWeekOf } from '../src/history/period.js';
import { addDays } from '../src/util/time.js';

const day = fc
  .integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2099, 11, 31) })
  .map((ms) => new Date(ms).toISOString().slice(0, 10));

describe('duePeriod', () => {
  it('monthly: the month before the newest due date on or before the run date', () => {
    expect(duePeriod({ period: 'monthly', day: 1 }, '2026-11-03')).toMatchObject({
      period: { label: '2026-10', from: '2026-10-01', to: '2026-10-31' },
      due: '2026-11-01',
    });
    expect(duePeriod({ period: 'monthly', day: 5 }, '2026-11-03')).toMatchObject({
      period: { label: '2026-09' },
      due: '2026-10-05',
    });
    expect(duePeriod({ period: 'monthly', day: 5 }, '2026-11-05').period.label).toBe('2026-10');
    expect(duePeriod({ period: 'monthly', day: 28 }, '2026-01-10')).toMatchObject({
      period: { label: '2025-11' },
      due: '2025-12-28',
    });
  });

  it('weekly: the ISO week before the week of the newest such weekday', () => {
    // 2026-11-03 is a Tuesday.
    expect(duePeriod({ period: 'weekly', day: 'monday' }, '2026-11-03')).toMatchObject({
      period: { label: '2026-W44', from: '2026-10-26', to: '2026-11-01' },
      due: '2026-11-02',
    });
    expect(duePeriod({ period: 'weekly', day: 'tuesday' }, '2026-11-03').due).toBe('2026-11-03');
    expect(duePeriod({ period: 'weekly', day: 'sunday' }, '2026-11-03')).toMatchObject({
      period: { label: '2026-W43' },
      due: '2026-11-01',
    });
    // Across an ISO year: 2027-01-04 is the Monday of 2027-W01; the week before is 2026-W53.
    expect(duePeriod({ period: 'weekly', day: 'monday' }, '2027-01-04').period.label).toBe('2026-W53');
  });

  it('monthly, any date: due on day N within the last month, the period is the whole month before it', () => {
    fc.assert(
      fc.property(day, fc.integer({ min: 1, max: 28 }), (runDate, n) => {
        const { period, due } = duePeriod({ period: 'monthly', day: n }, runDate);
        expect(Number(due.slice(8))).toBe(n);
        expect(due <= runDate && addDays(due, 31) > runDate).toBe(true);
        expect(addDays(period.to, 1)).toBe(`${due.slice(0, 8)}01`);
        expect(period.from.slice(8)).toBe('01');
        expect(period.label).toBe(period.from.slice(0, 7));
      }),
    );
  });

  it('weekly, any date: due on the weekday within the last 7 days, the period is the ISO week before', () => {
    fc.assert(
      fc.property(day, fc.constantFrom(...WEEKDAYS), (runDate, weekday) => {
        const { period, due } = duePeriod({ period: 'weekly', day: weekday }, runDate);
        expect(isoWeekday(due)).toBe(WEEKDAYS.indexOf(weekday));
        expect(due <= runDate && addDays(due, 7) > runDate).toBe(true);
        expect(period).toEqual(isoWeekOf(addDays(isoWeekOf(due).from, -1)));
        expect(isoWeekday(period.from)).toBe(0);
        expect(addDays(period.from, 6)).toBe(period.to);
      }),
    );
  });

  it("a digest's week is a weekly schedule's due period for the same weekday (src/history/period.ts)", () => {
    fc.assert(
      fc.property(day, fc.constantFrom(...WEEKDAYS), (runDate, weekday) => {
        expect(digestWeek(weekday, runDate)).toEqual(
          duePeriod({ period: 'weekly', day: weekday }, runDate).period,
        );
      }),
    );
  });
});
