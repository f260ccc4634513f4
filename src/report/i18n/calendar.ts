// Dates for a client in the Gregorian calendar, whatever the locale's own (docs/reports.md,
// "Language"): a report's period and days are the Gregorian ones the data is dated in, so `fa-IR`
// (Persian), `th-TH` (Buddhist), `ja-JP-u-ca-japanese` or `he-IL-u-ca-hebrew` would otherwise name
// November 2026 by the month its first day falls in ("آبان ۱۴۰۵", "חשוון 5787") and a period would
// not read as the one reported. The `calendar` option outranks the locale's `-u-ca-` (ECMA-402);
// the language, its month names and its digits stay the locale's ("نوامبر ۲۰۲۶").

/** Intl.DateTimeFormat for `locale` with the Gregorian calendar. */
export function gregorianDates(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat(locale, { ...options, calendar: 'gregory' });
}
