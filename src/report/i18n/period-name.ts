// A report period named once, as the client's locale says it (docs/reports.md, "Language"): a
// month "November 2026" / "novembre 2026", an ISO week "KW 47 2026" / "Week 47, 2026", a range of
// days "1.–28. November 2026" / "1–28 novembre 2026" (Intl.DateTimeFormat.formatRange), and a period
// still running says so ("…, month to date"). Without a locale: British English, day before month.
// Always in the Gregorian calendar, in the locale's language and digits (./calendar.ts).
import type { Period } from '../../history/period.js';
import { gregorianDates } from './calendar.js';
import type { Translate } from './translate.js';

const utc = (day: string) => new Date(`${day}T00:00:00Z`);

// Built once per locale: an Intl formatter costs far more to make than to use, and a report names
// periods many times (bench:report, docs/benchmarks.md).
const formatters = new Map<string, { days: Intl.DateTimeFormat; month: Intl.DateTimeFormat }>();

function dates(locale: string | null) {
  const tag = locale ?? 'en-GB';
  let f = formatters.get(tag);
  if (!f) {
    f = {
      days: gregorianDates(tag, { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }),
      month: gregorianDates(tag, { month: 'long', year: 'numeric', timeZone: 'UTC' }),
    };
    formatters.set(tag, f);
  }
  return f;
}

/** Days from `from` to `to` as one range in the locale (`29 October – 28 November 2026`). */
export function dayRangeName(from: string, to: string, locale: string | null): string {
  const { days } = dates(locale);
  return from === to ? days.format(utc(from)) : days.formatRange(utc(from), utc(to));
}

/**
 * The period's name. `end`: its effective last day (the newest day with data while it runs);
 * `running`: the period is not over yet, and the name says "to date".
 */
export function periodName(
  p: Period,
  t: Translate,
  locale: string | null,
  end: string = p.to,
  running = false,
): string {
  const last = running ? end : p.to;
  let name: string;
  if (p.kind === 'month' && !running) name = dates(locale).month.format(utc(p.from));
  else if (p.kind === 'week') {
    const [year, week] = p.label.split('-W');
    name = t('page:period.week', { week: Number(week), year });
  } else name = dayRangeName(p.from, last, locale);
  if (!running) return name;
  const kind = p.kind === 'month' ? 'month' : p.kind === 'week' ? 'week' : 'range';
  return t(`page:period.to_date_${kind}`, { period: name });
}
