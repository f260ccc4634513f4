// The words of a report's e-mail in the client's language (the `mail` catalogue area, src/report/i18n/):
// a subject and a body per kind of period (a month, an ISO week, a range of days) naming the client,
// the period as the locale says it and the report's headline (the period mean of the overall score
// and its change, as the summary and the first card say them), in the locale's number format. A
// figure that is missing is said to be missing (never 0); docs/reports.md, "The e-mail". A report of
// a period still running says so in the subject, the body and the attachment's name ("month to
// date"), never as if the period were over.
import type { Period } from '../../history/period.js';
import { dayRangeName, periodName } from '../../report/i18n/period-name.js';
import { translator } from '../../report/i18n/translate.js';
import { escapeText } from '../../report/render/pdf.js';
import type { Headline as ReportHeadline } from '../../report/summary/headline.js';

/** The two figures the mail leads with: the report's headline (src/report/summary/headline.ts headlineOf). */
export type Headline = Pick<ReportHeadline, 'score' | 'delta' | 'earlier' | 'comparable' | 'yearAgo'>;

export interface MailWords {
  clientName: string;
  period: Period;
  /** BCP 47; null: English words, numbers as en-US writes them. */
  locale: string | null;
  headline: Headline;
  /** The attachment's file name, said in the body. */
  fileName: string;
  /** A to-date report: the newest day it shows (YYYY-MM-DD); null or absent: the final report. */
  through?: string | null | undefined;
  agency?: string | undefined;
  contact?: string | undefined;
}

export interface ComposedMail {
  subject: string;
  text: string;
  html: string;
}

const fullLocale = (locale: string | null) => locale ?? 'en-US';

/**
 * The period as the page names it (src/report/i18n/period-name.ts): `November 2026`, `1.–28. November 2026`;
 * a week in the sentence's own case from the mail catalogue (`KW 47 2026`, `week 47 of 2026`).
 */
export function periodWords(period: Period, locale: string | null, through?: string | null): string {
  const { t } = translator(locale);
  if (period.kind !== 'week') return periodName(period, t, locale, through ?? period.to, !!through);
  const [year, week] = period.label.split('-W') as [string, string];
  const name = t('mail:period.week', { week: Number(week), year });
  return through ? t('page:period.to_date_week', { period: name }) : name;
}

/** The headline lines: the score and its change, each said when it is missing. */
function headlineLines(w: MailWords): { score: string; change: string; short: string | null } {
  const { t } = translator(w.locale);
  const one = new Intl.NumberFormat(fullLocale(w.locale), {
    minimumFractionDigits: 1,
    maximumFractionDigits: 1,
  });
  const signed = new Intl.NumberFormat(fullLocale(w.locale), {
    minimumFractionDigits: 1,
    maximumFractionDigits: 1,
    signDisplay: 'exceptZero',
  });
  const h = w.headline;
  const day = w.through ? dayRangeName(w.through, w.through, w.locale) : null;
  const has = (n: number | null): n is number => n !== null && Number.isFinite(n);
  const score = has(h.score) ? one.format(h.score) : null;
  const delta = h.earlier && h.comparable && has(h.delta) ? signed.format(h.delta) : null;
  // Year on year the change is against last year's period, and the mail names it.
  const year = h.yearAgo ? { suffix: 'Year', period: periodWords(h.yearAgo, w.locale) } : null;
  const change =
    delta !== null
      ? t(`mail:headline.change${year?.suffix ?? ''}`, {
          change: t('mail:points', { value: delta }),
          period: year?.period,
        })
      : !h.earlier && !year
        ? t('mail:headline.changeFirst')
        : t(`mail:headline.changeNotComparable${year?.suffix ?? ''}`, { period: year?.period });
  return {
    score:
      day !== null
        ? score === null
          ? t('mail:headline.scoreMissingToDate', { day })
          : t('mail:headline.scoreToDate', { day, score })
        : score === null
          ? t('mail:headline.scoreMissing')
          : t('mail:headline.score', { score }),
    change,
    short:
      score === null
        ? null
        : delta === null
          ? t('mail:subject.score', { score })
          : t(`mail:subject.scoreChange${year?.suffix ?? ''}`, {
              score,
              change: delta,
              period: year?.period,
            }),
  };
}

/** Subject, plain text and HTML (every configured or API string escaped) of one report's e-mail. */
export function composeMail(w: MailWords): ComposedMail {
  const { t } = translator(w.locale);
  const params = { client: w.clientName, period: periodWords(w.period, w.locale, w.through) };
  const figures = headlineLines(w);
  const subject = [t(`mail:subject.${w.period.kind}`, params), figures.short]
    .filter(Boolean)
    .join(' \u2013 ');
  const paragraphs: string[][] = [
    [t('mail:greeting')],
    [t(`mail:intro.${w.period.kind}`, params)],
    [figures.score, figures.change],
    [
      t('mail:attachment', { file: w.fileName }),
      ...(w.through ? [t('mail:toDate', { day: dayRangeName(w.through, w.through, w.locale) })] : []),
    ],
    [t('mail:closing'), ...(w.agency ? [w.agency] : []), ...(w.contact ? [w.contact] : [])],
  ];
  const text = `${paragraphs.map((p) => p.join('\n')).join('\n\n')}\n`;
  const lang = translator(w.locale).htmlLang;
  const html = `<!doctype html><html lang="${escapeText(lang)}"><head><meta charset="utf-8"><title>${escapeText(subject)}</title></head><body>${paragraphs
    .map((p) => `<p>${p.map(escapeText).join('<br>')}</p>`)
    .join('')}</body></html>`;
  return { subject, text, html };
}

/**
 * `acme-gmbh-2026-11.pdf`: the client's name as a safe file name (ASCII letters, digits, dashes), then
 * the period; a to-date report's says so and through which day: `acme-gmbh-2026-12-to-date-2026-12-06.pdf`.
 */
export function attachmentName(
  clientName: string,
  period: string,
  ext: string,
  through?: string | null,
): string {
  const slug = clientName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ß/g, 'ss')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return `${slug || 'report'}-${period}${through ? `-to-date-${through}` : ''}.${ext}`;
}
