// Year on year (#42 item 4): the period a report compares with on `--compare year`, the same period
// a year earlier, for every kind of period, across ISO week 53 and leap days. Pure.
import { describe, expect, it } from 'vitest';
import { comparedPeriod, type Period, parsePeriod, yearAgoPeriod } from '../src/history/period.js';

const p = (spec: string) => parsePeriod(spec) as Period;

describe('the same period a year earlier', () => {
  it('a month: that month last year, February of a leap year against 28 days', () => {
    expect(yearAgoPeriod(p('2026-11'))).toEqual({
      label: '2025-11',
      kind: 'month',
      from: '2025-11-01',
      to: '2025-11-30',
    });
    expect(yearAgoPeriod(p('2028-02'))).toMatchObject({ label: '2027-02', to: '2027-02-28' });
    expect(yearAgoPeriod(p('2029-02'))).toMatchObject({ label: '2028-02', to: '2028-02-29' });
  });

  it('an ISO week: the week of that number the ISO year before; week 53 reads the last week', () => {
    expect(yearAgoPeriod(p('2026-W47'))).toEqual({
      label: '2025-W47',
      kind: 'week',
      from: '2025-11-17',
      to: '2025-11-23',
    });
    // 2026 has 53 ISO weeks, 2025 has 52.
    expect(yearAgoPeriod(p('2026-W53'))).toMatchObject({ label: '2025-W52', from: '2025-12-22' });
    expect(yearAgoPeriod(p('2027-W01'))).toMatchObject({ label: '2026-W01', from: '2025-12-29' });
  });

  it('a range: each day a year earlier, 29 February as 28 February', () => {
    expect(yearAgoPeriod(p('2026-10-12_2026-11-10'))).toEqual({
      label: '2025-10-12_2025-11-10',
      kind: 'range',
      from: '2025-10-12',
      to: '2025-11-10',
    });
    expect(yearAgoPeriod(p('2028-02-29_2028-03-06'))).toMatchObject({ from: '2027-02-28', to: '2027-03-06' });
    expect(yearAgoPeriod(p('2028-02-01_2028-02-29'))).toMatchObject({ from: '2027-02-01', to: '2027-02-28' });
  });

  it('the basis picks the period: previous is the period before, as ever', () => {
    expect(comparedPeriod(p('2026-11'), 'previous').label).toBe('2026-10');
    expect(comparedPeriod(p('2026-11'), 'year').label).toBe('2025-11');
    expect(comparedPeriod(p('2026-W01'), 'previous').label).toBe('2025-W52');
  });
});
