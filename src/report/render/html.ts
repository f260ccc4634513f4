// report.json -> one self-contained HTML page: inline CSS, inline SVG charts each followed by its data
// table, no script, a Content-Security-Policy that forbids every fetch but inline styles and data:
// images. Every string from the API goes through hono/html's escaping `html` template (a string
// longer than a page cut, with a note) and is wrapped in <bdi> so right-to-left text cannot reorder
// the page around it. Every other word is the locale's (src/report/i18n/, `<html lang>` says which),
// every number in its formats; null and non-finite figures read "n/a" in the locale.
import { raw } from 'hono/html';
import { chartTargets } from '../goals/chart-targets.js';
import { translator } from '../i18n/translate.js';
import type { ReportModel } from '../model/report-shape.js';
import type { ReportStyle } from '../style.js';
import { summarySection } from '../summary/section.js';
import { beginReportCharts, chartSvg, type LinePoint } from './charts.js';
import { type Formatters, formattersOf } from './format.js';
import { type Html, html, toPercent } from './html-parts.js';
import { revisionsSection } from './html-revisions.js';
import { periodOf, SECTION_KEYS, sectionsOf } from './html-sections.js';
import { css } from './page-css.js';

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

/** The section headings of a page in `locale`, in page order (the browser tests look for each). */
export function sectionTitles(locale: string | null = null): string[] {
  const { t } = translator(locale);
  return SECTION_KEYS.map((k) => t(`page:section.${k}`));
}

/** Section headings of a page without a locale (English). */
export const SECTION_TITLES = sectionTitles();

/**
 * The closing "Data details" (reports.dataDetails, off by default): the ids and times a client does
 * not need but an account manager checking a figure may.
 */
function dataDetails(r: ReportModel, f: Formatters): Html {
  const rows: [string, string][] = [
    ['details.workspace', r.brand_id],
    ['details.account', r.account],
    ['details.period', r.period.label],
    ['details.runs', r.runs.join(', ')],
    ['details.as_of', r.cover.data_as_of === null ? f.na : f.instant(r.cover.data_as_of)],
  ];
  return html`<section class="details"><h2>${f.t('page:section.details')}</h2>
<table><tbody>${rows.map(([k, v]) => html`<tr><th>${f.t(`page:${k}`)}</th><td><bdi>${v}</bdi></td></tr>`)}</tbody></table>
</section>`;
}

/**
 * The page. `brandName`: the brand's name in the data; with `clientName` set, the API's texts that
 * name the brand name the client as the agency does (docs/reports.md, "Language"). `notes`: the
 * account manager's Markdown for this workspace and period (../summary/notes.ts).
 */
export async function renderHtml(
  r: ReportModel,
  style: ReportStyle,
  o: { brandName?: string | null; notes?: string | null } = {},
): Promise<string> {
  beginReportCharts();
  const rename = style.clientName && o.brandName ? { from: o.brandName, to: style.clientName } : null;
  const f = formattersOf(style, rename);
  const colours = { primary: style.primaryColour, accent: style.accentColour };
  const yearAgo = r.comparison.basis === 'year';
  const series = {
    current: f.t('charts:series.this'),
    previous: f.t(yearAgo ? 'charts:series.year_ago' : 'charts:series.previous'),
  };
  // A first report has no previous period: its charts draw, and their legend names, this period only.
  const earlier = r.comparison.earlier_period;
  const line = (key: 'overall_score' | 'share_of_voice'): LinePoint[] =>
    r.trend.series.flatMap((d) =>
      [
        { date: d.date, series: series.current, value: d[key] },
        ...(earlier
          ? [
              {
                date: d.date,
                series: series.previous,
                value: key === 'overall_score' ? d.previous_overall_score : d.previous_share_of_voice,
              },
            ]
          : []),
      ].map((p) =>
        key === 'share_of_voice' ? { ...p, value: toPercent(p.value, r.trend.share_of_voice_unit) } : p,
      ),
    );
  const chart = { colours, locale: style.locale, previous: earlier, yearAgo };
  const [scoreSvg, sovSvg, enginesSvg, claimsSvg] = await Promise.all([
    chartSvg('score', line('overall_score'), { ...chart, targets: chartTargets(f, r, 'overall_score') }),
    chartSvg('share_of_voice', line('share_of_voice'), {
      ...chart,
      targets: chartTargets(f, r, 'share_of_voice'),
    }),
    chartSvg(
      'engines',
      r.engines.map((e) => ({ label: f.engine(e.engine), value: e.score })),
      chart,
    ),
    chartSvg(
      'claims',
      r.reputation.claims_per_engine.map((c) => ({ label: f.engine(c.engine), value: c.claims })),
      chart,
    ),
  ]);
  const sections = sectionsOf(r, style, f, { scoreSvg, sovSvg, enginesSvg, claimsSvg });
  // A client the data does not name is "unnamed client", as on the agency overview: never its id.
  const client = r.cover.client_name ?? f.t('overview:unnamed');
  // At the top of every report: under the cover, or first when the cover is not shown.
  const summary = summarySection(r, style, o.notes ?? null);
  const page = html`<!DOCTYPE html>
<html lang="${f.htmlLang}"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${f.t('page:title', { client, period: periodOf(f, r) })}</title>${style.agencyName === null ? '' : html`\n<meta name="author" content="${style.agencyName}">`}
<style>${raw(css(style))}</style></head>
<body><main>
${style.sections.includes('cover') ? '' : html`${summary}\n\n`}${style.sections.map((key, i) => html`${i ? '\n\n' : ''}${sections[key]}${key === 'cover' ? html`\n\n${summary}` : ''}`)}
${revisionsSection(f, r)}${style.dataDetails ? html`\n${dataDetails(r, f)}\n` : ''}<footer>${style.footer ? html`<p>${style.footer}</p>` : ''}${style.agencyName === null ? '' : html`<p class="muted">${f.t('page:footer.prepared', { agency: style.agencyName })}</p>`}</footer>
</main></body></html>
`;
  return (await page).toString();
}
