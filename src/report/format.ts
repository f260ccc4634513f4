// Numbers and dates of the HTML report in the workspace's locale and time zone (Intl). report.json
// stays locale-free; only the page a person reads is formatted. Without a locale the page prints
// what the data holds (53.4, 2026-11-01, an ISO time in UTC), as before the setting existed.
import type { ReportStyle } from './style.js';

export interface Formats {
  /** A number with the API's precision: 53.4 keeps one decimal, 53 none, in the locale's digits. */
  number: (n: number) => string;
  /** A calendar day (`YYYY-MM-DD`) as the locale writes it; other text unchanged. */
  day: (d: string) => string;
  /** An instant (ISO time) in the locale and time zone, with the zone's name. */
  instant: (t: string) => string;
  /** A day or an instant, whichever the text is. */
  when: (t: string) => string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Decimals as JavaScript prints the value (the shortest that reads back the same number). */
function decimalsOf(n: number): number | null {
  const s = String(Math.abs(n));
  if (s.includes('e')) return null;
  return s.split('.')[1]?.length ?? 0;
}

export function formatsOf(style: Pick<ReportStyle, 'locale' | 'timeZone'>): Formats {
  const { locale, timeZone } = style;
  const numbers = new Map<number, Intl.NumberFormat>();
  const number = (n: number): string => {
    const digits = decimalsOf(n);
    if (locale === null || digits === null || !Number.isFinite(n)) return String(n);
    let f = numbers.get(digits);
    if (!f) {
      // No grouping: scores, shares and counts read the same with or without it, and an en-US page
      // keeps printing 1234 as the data does.
      f = new Intl.NumberFormat(locale, {
        minimumFractionDigits: digits,
        maximumFractionDigits: digits,
        useGrouping: false,
      });
      numbers.set(digits, f);
    }
    return f.format(n);
  };
  const days =
    locale === null
      ? null
      : new Intl.DateTimeFormat(locale, {
          year: 'numeric',
          month: '2-digit',
          day: '2-digit',
          timeZone: 'UTC',
        });
  const day = (d: string): string => (days && DAY.test(d) ? days.format(new Date(`${d}T00:00:00Z`)) : d);
  const instants =
    locale === null && timeZone === null
      ? null
      : new Intl.DateTimeFormat(locale ?? 'en-US', {
          year: 'numeric',
          month: '2-digit',
          day: '2-digit',
          hour: '2-digit',
          minute: '2-digit',
          hourCycle: locale === null ? 'h23' : undefined,
          timeZone: timeZone ?? 'UTC',
          timeZoneName: 'short',
        });
  /** A zone without a locale: the ISO order the page's days keep (2026-11-10 04:04 GMT+1). */
  const isoInZone = (f: Intl.DateTimeFormat, ms: number): string => {
    const part = Object.fromEntries(f.formatToParts(ms).map((p) => [p.type, p.value]));
    return `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute} ${part.timeZoneName}`;
  };
  const instant = (t: string): string => {
    const ms = Date.parse(t);
    if (!instants || !Number.isFinite(ms)) return t;
    return locale === null ? isoInZone(instants, ms) : instants.format(ms);
  };
  const when = (t: string): string => (DAY.test(t) ? day(t) : instant(t));
  return { number, day, instant, when };
}
