// A locale whose calendar is not the Gregorian one (fa-IR, th-TH, `-u-ca-hebrew`, `-u-ca-islamic`):
// a report's period and days are the Gregorian ones the data is dated in, named in the locale's
// language and numerals (src/report/i18n/calendar.ts); the month its first day falls in, in the
// locale's own calendar ("آبان ۱۴۰۵", "חשוון 5787"), never. The page through `visync report` is in
// test/report-overview.test.ts (de-DE-u-ca-hebrew, the built bin).
import { describe, expect, it } from 'vitest';
import { monthOf, parseRange } from '../src/history/period.js';
import { dayRangeName, periodName } from '../src/report/i18n/period-name.js';
import { translator } from '../src/report/i18n/translate.js';
import { formattersOf } from '../src/report/render/format.js';

const NOVEMBER = monthOf('2026-11-15');

/** November 2026 as each locale names it, in its language and digits. */
const MONTH: Record<string, string> = {
  'fa-IR': 'نوامبر ۲۰۲۶',
  'he-IL-u-ca-hebrew': 'נובמבר 2026',
  'ar-SA-u-ca-islamic': 'نوفمبر ٢٠٢٦',
  'th-TH': 'พฤศจิกายน 2026',
  'ja-JP-u-ca-japanese': '2026年11月',
  'de-DE-u-ca-hebrew': 'November 2026',
  'en-GB-u-ca-islamic': 'November 2026',
};

describe('periods and days in a locale with a calendar of its own', () => {
  for (const [locale, month] of Object.entries(MONTH))
    it(`${locale}: 2026-11 is named ${month}, its days are November's`, () => {
      const { t } = translator(locale);
      expect(periodName(NOVEMBER, t, locale)).toBe(month);
      // A range of days and a period still running name Gregorian days too: the year is 2026 in the
      // locale's digits, whatever its calendar counts.
      const year = new Intl.NumberFormat(locale, { useGrouping: false }).format(2026);
      const range = parseRange('2026-11-01', '2026-11-28');
      expect(range).toBeDefined();
      expect(periodName(range!, t, locale)).toContain(year);
      expect(periodName(NOVEMBER, t, locale, '2026-11-10', true)).toContain(year);
      expect(dayRangeName('2026-11-05', '2026-11-05', locale)).toContain(year);
      const f = formattersOf({ locale, timeZone: 'UTC' });
      expect(f.day('2026-11-05')).toContain(year);
      expect(f.instant('2026-11-05T14:30:00Z')).toContain(year);
      expect(f.longDay('2026-11-05')).toContain(year);
    });
});
