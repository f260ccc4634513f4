// The words of a report's e-mail in the client's language (the `mail` catalogue area, src/report/i18n/):
// a subject and a body per kind of period (a month, an ISO week, a range of days) naming the client,
// the period as the locale says it and the report's headline (the period mean of the overall score
// and its change, as the summary and the first card say them), in the locale's number format. A
// figure that is missing is said to be missing (never 0); docs/reports.md, "The e-mail". A report of
// a period still running says so in the subject, the body and the attachment's name ("month to
// date"), never as if the period were over. The body carries the summary and the account manager's
// note; an agency's own wording (`reports.mail.templates`, ./template.ts) replaces the subject, the
// body or both.
import type { MailTemplates } from '../../config/mail-templates.js';
import type { Period } from '../../history/period.js';
import { dayRangeName, periodName } from '../../report/i18n/period-name.js';
import { translator } from '../../report/i18n/translate.js';
import { escapeText } from '../../report/render/pdf.js';
import type { Headline as ReportHeadline } from '../../report/summary/headline.js';
import type { Sentence } from '../../report/summary/sentences.js';
import { expiryWords, linkValue, noteValue, summaryValue } from './report-words.js';
import { renderBodyHtml, renderBodyText, renderSubject, textValue, type Values } from './template.js';

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
  /** The summary's sentences (src/report/summary/sentences.ts); absent: the report has no report.json. */
  summary?: readonly Sentence[] | undefined;
  /** The account manager's note of the period (Markdown, report.json's `manager_note`); absent: none. */
  note?: string | null | undefined;
  /** The report's presigned link and when it stops working; absent: no link. */
  link?: { url: string; expires: Date } | null | undefined;
  /** The time zone the link's expiry is said in (UTC without one) and the engines' display names. */
  timeZone?: string | null | undefined;
  engineNames?: Readonly<Record<string, string>> | undefined;
  /** `reports.mail.templates`: the agency's own subject and body per locale. */
  templates?: MailTemplates | undefined;
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

/** The agency's template for this locale: its own, then its language's, then `default`. */
export function templateFor(templates: MailTemplates | undefined, locale: string | null) {
  if (!templates) return {};
  const canon = (k: string) => (k === 'default' ? k : (Intl.getCanonicalLocales(k)[0] ?? k));
  const byKey = new Map(Object.entries(templates).map(([k, t]) => [canon(k), t]));
  const full = locale === null ? undefined : canon(locale);
  const language = full?.split('-')[0];
  return {
    subject: [full, language, 'default'].map((k) => k && byKey.get(k)?.subject).find(Boolean),
    body: [full, language, 'default'].map((k) => k && byKey.get(k)?.body).find(Boolean),
  };
}

/** Every placeholder's value; one without a value (no note, no link) is left out. */
function valuesOf(
  w: MailWords,
  params: { client: string; period: string },
  figures: ReturnType<typeof headlineLines>,
): Values {
  const v: Values = {
    client: textValue(params.client),
    period: textValue(params.period),
    headline: textValue(figures.short ?? ''),
    score: textValue(figures.score),
    change: textValue(figures.change),
    file: textValue(w.fileName),
    agency: textValue(w.agency ?? ''),
    contact: textValue(w.contact ?? ''),
  };
  if (w.summary?.length) v.summary = summaryValue(w.summary, w);
  if (w.note) v.note = noteValue(w.note);
  if (w.link) {
    v.link = linkValue(w.link.url);
    v.expires = textValue(expiryWords(w.link.expires, w));
  }
  return v;
}

const htmlPage = (lang: string, subject: string, body: string) =>
  `<!doctype html><html lang="${escapeText(lang)}"><head><meta charset="utf-8"><title>${escapeText(subject)}</title></head><body>${body}</body></html>`;

/** Subject, plain text and HTML (every configured or API string escaped) of one report's e-mail. */
export function composeMail(w: MailWords): ComposedMail {
  const { t, htmlLang: lang } = translator(w.locale);
  const params = { client: w.clientName, period: periodWords(w.period, w.locale, w.through) };
  const figures = headlineLines(w);
  const values = valuesOf(w, params, figures);
  const own = templateFor(w.templates, w.locale);
  const subject = own.subject
    ? renderSubject(own.subject, values)
    : [t(`mail:subject.${w.period.kind}`, params), figures.short].filter(Boolean).join(' \u2013 ');
  if (own.body)
    return {
      subject,
      text: renderBodyText(own.body, values),
      html: htmlPage(lang, subject, renderBodyHtml(own.body, values)),
    };
  // A paragraph: lines of text, or a heading line and a value's own blocks.
  type Paragraph = { lines: string[] } | { title: string; value: NonNullable<Values['note']> };
  const paragraphs: Paragraph[] = [
    { lines: [t('mail:greeting')] },
    { lines: [t(`mail:intro.${w.period.kind}`, params)] },
    { lines: [figures.score, figures.change] },
    ...(values.summary ? [{ title: t('summary:title'), value: values.summary }] : []),
    ...(values.note ? [{ title: t('summary:notes_title'), value: values.note }] : []),
    {
      lines: [
        t('mail:attachment', { file: w.fileName }),
        ...(w.through ? [t('mail:toDate', { day: dayRangeName(w.through, w.through, w.locale) })] : []),
      ],
    },
    ...(values.link && values.expires
      ? [{ title: t('mail:link', { date: values.expires.text }), value: values.link }]
      : []),
    { lines: [t('mail:closing'), ...(w.agency ? [w.agency] : []), ...(w.contact ? [w.contact] : [])] },
  ];
  const text = `${paragraphs.map((p) => ('lines' in p ? p.lines : [p.title, p.value.text]).join('\n')).join('\n\n')}\n`;
  const html = htmlPage(
    lang,
    subject,
    paragraphs
      .map((p) =>
        'lines' in p
          ? `<p>${p.lines.map(escapeText).join('<br>')}</p>`
          : p.value.block !== undefined
            ? `<p><strong>${escapeText(p.title)}</strong></p>${p.value.block}`
            : `<p>${escapeText(p.title)}<br>${p.value.inline}</p>`,
      )
      .join(''),
  );
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
