// Numbers and dates of the HTML report in the workspace's locale and time zone (Intl). report.json
// stays locale-free and unrounded; only the page a person reads is formatted: scores and
// percentages at one decimal (docs/reports.md, "Precision"). Without a locale: 53.4, 2026-11-01,
// 2026-11-01 05:24 UTC. The words around them come from the locale's catalogue (src/report/i18n/):
// `t`, the "n/a" mark, engine display names and the period's name travel with the number formats so
// every part of the page takes one object.
import type { Period } from '../../history/period.js';
import { gregorianDates } from '../i18n/calendar.js';
import { engineName } from '../i18n/engines.js';
import { dayRangeName, periodName } from '../i18n/period-name.js';
import { type Translate, translator } from '../i18n/translate.js';
import type { ReportStyle } from '../style.js';

export interface Formatters {
  /** A number with the API's precision: 53.4 keeps one decimal, 53 none, in the locale's digits. */
  number: (n: number) => string;
  /** A score, mean or percentage on the page: one decimal (18.308 -> 18.3, 53 -> 53.0), half away from zero. */
  one: (n: number) => string;
  /** A rate at two decimals (a goal's change per day: 0.04, de-DE 0,04), half away from zero. */
  two: (n: number) => string;
  /** A percentage at one decimal with its sign (35.0%, de-DE 35,0 %). */
  percent: (n: number) => string;
  /** A calendar day (`YYYY-MM-DD`) as the locale writes it; other text unchanged. */
  day: (d: string) => string;
  /** A calendar day in words (`30 November 2026`, de-DE `30. November 2026`). */
  longDay: (d: string) => string;
  /** An instant (ISO time) in the locale and time zone, with the zone's name. */
  instant: (t: string) => string;
  /** A day or an instant, whichever the text is. */
  when: (t: string) => string;
  /** The page's words in the locale's language (English without a catalogue). */
  t: Translate;
  /** `<html lang>`: the locale when its language has a catalogue, else `en`. */
  htmlLang: string;
  /** What a missing figure reads ("n/a", "k. A."). */
  na: string;
  /** An engine id's display name (`ai_overviews` -> "Google AI Overviews", or `reports.engineNames`). */
  engine: (id: string) => string;
  /** A period named as the locale says it (src/report/i18n/period-name.ts). */
  period: (p: Period, end?: string, running?: boolean) => string;
  /** A string from the API with the client's name as the agency set it (`clientName`) where it names the brand. */
  api: (s: string) => string;
}

/** The brand's name in the data, and the name the agency gave the client (`reports.clientName`). */
export interface ClientRename {
  from: string;
  to: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * `n` at one decimal, half away from zero as the number reads (1.45 -> 1.5, though its double is
 * 1.4499...); -0 reads 0. A value too large to scale is returned as it is.
 */
export function oneDecimal(n: number): number {
  return atScale(n, 10);
}

/** `n` at two decimals, half away from zero as the number reads (a goal's change per day); -0 reads 0. */
export function twoDecimals(n: number): number {
  return atScale(n, 100);
}

/** `n` rounded to 1/`scale`, half away from zero as the number reads; -0 reads 0. */
function atScale(n: number, scale: number): number {
  const scaled = Math.abs(n) * scale;
  if (!Number.isFinite(scaled)) return n;
  const r = (Math.sign(n) * Math.round(Number(scaled.toPrecision(12)))) / scale;
  return r === 0 ? 0 : r;
}

/**
 * The difference of two values as the page shows them (docs/reports.md, "Precision"): each at one
 * decimal first, then the difference, so "35.5 to 39.1 (+3.6)" always adds up and a change under the
 * page's precision is 0 (unchanged). Null when either is missing or not a finite number.
 */
export function shownDelta(value: number | null, previous: number | null): number | null {
  if (value === null || previous === null || !Number.isFinite(value) || !Number.isFinite(previous))
    return null;
  const d = oneDecimal(oneDecimal(value) - oneDecimal(previous));
  return Number.isFinite(d) ? d : null;
}

/** Decimals as JavaScript prints the value (the shortest that reads back the same number). */
function decimalsOf(n: number): number | null {
  const s = String(Math.abs(n));
  if (s.includes('e')) return null;
  return s.split('.')[1]?.length ?? 0;
}

const oneDigit = { minimumFractionDigits: 1, maximumFractionDigits: 1, useGrouping: false } as const;

type FormatStyle = Pick<ReportStyle, 'locale' | 'timeZone'> & Partial<Pick<ReportStyle, 'engineNames'>>;

// Formatters are pure, and the Intl formatters behind them cost far more to make than to use: one per
// locale, zone, engine names and client name, however many sections of however many reports ask.
const made = new Map<string, Formatters>();

export function formattersOf(style: FormatStyle, rename: ClientRename | null = null): Formatters {
  const key = JSON.stringify([style.locale, style.timeZone, style.engineNames ?? {}, rename]);
  let f = made.get(key);
  if (!f) {
    f = buildFormatters(style, rename);
    // A long-running worker meets only the configured workspaces' styles; the cap keeps it bounded.
    if (made.size >= 1000) made.clear();
    made.set(key, f);
  }
  return f;
}

function buildFormatters(style: FormatStyle, rename: ClientRename | null): Formatters {
  const { locale, timeZone } = style;
  const words = translator(locale);
  const names = style.engineNames ?? {};
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
  const fixed = locale === null ? null : new Intl.NumberFormat(locale, oneDigit);
  const percents =
    locale === null ? null : new Intl.NumberFormat(locale, { ...oneDigit, style: 'unit', unit: 'percent' });
  const one = (n: number): string => {
    if (!Number.isFinite(n)) return String(n);
    const r = oneDecimal(n);
    if (Math.abs(r) >= 1e21) return String(r);
    return fixed ? fixed.format(r) : r.toFixed(1);
  };
  const twos =
    locale === null
      ? null
      : new Intl.NumberFormat(locale, {
          minimumFractionDigits: 2,
          maximumFractionDigits: 2,
          useGrouping: false,
        });
  const two = (n: number): string => {
    if (!Number.isFinite(n)) return String(n);
    const r = twoDecimals(n);
    if (Math.abs(r) >= 1e21) return String(r);
    return twos ? twos.format(r) : r.toFixed(2);
  };
  const percent = (n: number): string =>
    percents && Number.isFinite(n) && Math.abs(n) < 1e21 ? percents.format(oneDecimal(n)) : `${one(n)}%`;
  const days =
    locale === null
      ? null
      : gregorianDates(locale, {
          year: 'numeric',
          month: '2-digit',
          day: '2-digit',
          timeZone: 'UTC',
        });
  const day = (d: string): string => (days && DAY.test(d) ? days.format(new Date(`${d}T00:00:00Z`)) : d);
  // Always formatted: a raw ISO timestamp is not for a client (docs/reports.md, "Language"). Days
  // and instants in the Gregorian calendar, as the period (../i18n/calendar.ts).
  const instants = gregorianDates(locale ?? 'en-US', {
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
    if (!Number.isFinite(ms)) return t;
    return locale === null ? isoInZone(instants, ms) : instants.format(ms);
  };
  const when = (t: string): string => (DAY.test(t) ? day(t) : instant(t));
  return {
    number,
    one,
    two,
    percent,
    day,
    longDay: (d) => (DAY.test(d) ? dayRangeName(d, d, locale) : d),
    instant,
    when,
    t: words.t,
    htmlLang: words.htmlLang,
    na: words.t('page:na'),
    engine: (id) => engineName(id, names),
    period: (p, end, running) => periodName(p, words.t, locale, end, running),
    api: (s) =>
      rename && rename.from !== '' && rename.from !== rename.to ? s.replaceAll(rename.from, rename.to) : s,
  };
}
