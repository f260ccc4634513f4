// The agency overview as one self-contained HTML page (docs/reports.md, "Agency overview"): the same
// Content-Security-Policy, white label and locale as the workspace reports, every word from the
// `overview` catalogue area, every client name escaped, each report linked relative to the page.
// Headers break only between words (never "Chan/ge"); the client column is wide enough for a name's
// words and the domain that tells two clients of one name apart (on a line of its own), figures
// never wrap ("30,0 %"), and a comma stays with the event count before it. The closing "Prepared
// by" line is kept with the trend above it, so a printed page never holds it alone.
import { html as escapedHtml, raw } from 'hono/html';
import type { Period } from '../../history/period.js';
import { anyGoal, goalsCell } from '../goals/overview-cell.js';
import { type Translate, translator } from '../i18n/translate.js';
import { beginReportCharts, chartSvg, type LinePoint } from '../render/charts.js';
import { type Formatters, formattersOf } from '../render/format.js';
import { html, share, signed } from '../render/html-parts.js';
import { DELTA_COLOURS, type ReportStyle } from '../style.js';
import type { MissingAccount } from './book.js';
import { OVERVIEW_EVENT_KINDS } from './events.js';
import type { OverviewRow, PortfolioDay } from './rows.js';

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

export interface OverviewPage {
  period: Period;
  /** A period still running: its newest day with data; the page names it "to date" as the reports do. */
  toDate?: { through: string } | undefined;
  previous: Period;
  rows: readonly OverviewRow[];
  trend: readonly PortfolioDay[];
  style: ReportStyle;
  /** The whole book (./book.ts): an account column, and the accounts without rows with why. */
  book?: { missing: readonly MissingAccount[] } | undefined;
}

async function trendSvg(o: OverviewPage, series: [string, string]): Promise<string> {
  const points: LinePoint[] = o.trend.flatMap((d) => [
    { date: d.date, series: series[0], value: d.score },
    { date: d.date, series: series[1], value: d.previous },
  ]);
  beginReportCharts();
  return chartSvg('score', points, {
    colours: { primary: o.style.primaryColour, accent: o.style.accentColour },
    locale: o.style.locale,
  });
}

export async function renderOverview(o: OverviewPage): Promise<string> {
  const { t, htmlLang } = translator(o.style.locale);
  const f = formattersOf(o.style);
  const s = o.style;
  const missing = html`<span class="na">${t('overview:missing')}</span>`;
  const hasTrend = o.trend.some((d) => d.score !== null);
  const svg = hasTrend ? await trendSvg(o, [t('charts:series.this'), t('charts:series.previous')]) : '';
  const events = (r: OverviewRow) => {
    if (r.events === null) return html`<span class="na">${t('overview:events_missing')}</span>`;
    const kinds = OVERVIEW_EVENT_KINDS.filter((k) => (r.events?.[k] ?? 0) > 0);
    // The comma stays with the count before it: no line starts with one. Each count with its words
    // is one block, on a line of its own when it does not fit beside the last, and wraps inside
    // only when the column is narrower than it (then the table still fits the page).
    const parts = kinds.map((k, i) => {
      const n = r.events?.[k] ?? 0;
      return html`<span class="event">${t(`overview:events_${k}`, { count: n, n: f.number(n) })}${i < kinds.length - 1 ? ',' : ''}</span>`;
    });
    return parts.length
      ? html`${parts.map((p, i) => html`${i ? ' ' : ''}${p}`)}`
      : html`${t('overview:events_none')}`;
  };
  const change = (r: OverviewRow) => {
    if (!r.reported || r.score === null) return missing;
    if (r.delta === null) return html`<span class="na">${t('overview:not_comparable')}</span>`;
    const d = signed(f, r.delta);
    const cls = d.startsWith('+') ? 'up' : d.startsWith('\u2212') ? 'down' : 'flat';
    return html`<span class="delta ${cls}">${d}</span>`;
  };
  // A name another client has too is followed by what tells them apart (./told-apart.ts).
  const suffix = (r: OverviewRow) =>
    r.suffix === null
      ? ''
      : html` <span class="apart">(${'domain' in r.suffix ? html`<bdi>${r.suffix.domain}</bdi>` : f.number(r.suffix.n)})</span>`;
  // The whole book names each row's account first (./book.ts).
  const account = (r: OverviewRow) => (o.book ? html`<td class="account">${r.account ?? ''}</td>` : '');
  // A goal column only when some client has a goal (reports.goals): else the page as before.
  const goals = anyGoal(o.rows);
  const row = (
    r: OverviewRow,
  ) => html`<tr>${account(r)}<td>${r.client === null ? html`<span class="na">${t('overview:unnamed')}</span>` : html`<bdi>${r.client}</bdi>`}${suffix(r)}</td>
<td class="fig">${r.score === null ? missing : f.one(r.score)}</td><td class="fig">${change(r)}</td>
<td class="fig">${r.share === null ? missing : share(f, r.share, r.shareUnit)}</td>${goals ? html`<td>${goalsCell(f, r.goals)}</td>` : ''}<td>${events(r)}</td>
<td>${r.href === null ? html`<span class="na">${t('overview:no_report')}</span>` : escapedHtml`<a href="${r.href}">${t('overview:open_report')}</a>`}</td></tr>`;
  const page = html`<!DOCTYPE html>
<html lang="${htmlLang}"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${s.agencyName === null ? '' : `${s.agencyName} \u2013 `}${o.book ? t('overview:book_title') : t('overview:title')} \u2013 ${f.period(o.period, o.toDate?.through, o.toDate !== undefined)}</title>${s.agencyName === null ? '' : html`\n<meta name="author" content="${s.agencyName}">`}
<style>${raw(css(s))}${raw(goals ? goalsCss(o.book !== undefined) : '')}</style></head>
<body><main>
<header class="cover">
${s.logoDataUri ? escapedHtml`<img class="logo" alt="" src="${s.logoDataUri}">` : ''}
${s.agencyName === null ? '' : html`<p class="agency">${s.agencyName}</p>`}
<h1>${o.book ? t('overview:book_title') : t('overview:title')}</h1>
<p>${f.period(o.period, o.toDate?.through, o.toDate !== undefined)}. ${t('page:cover.compared', { previous: f.period(o.previous) })} ${t('overview:clients', { count: o.rows.length, n: f.number(o.rows.length) })}.</p>
</header>
<section><h2>${t('overview:clients_title')}</h2>
<table class="clients${o.book ? ' book' : ''}${goals ? ' with-goals' : ''}"><thead><tr>${o.book ? html`<th>${t('overview:col_account')}</th>` : ''}<th>${t('overview:col_client')}</th><th>${t('overview:col_score')}</th><th>${t('overview:col_delta')}</th><th>${t('overview:col_share')}</th>${goals ? html`<th>${t('goals:overview.col')}</th>` : ''}<th>${t('overview:col_events')}</th><th>${t('overview:col_report')}</th></tr></thead>
<tbody>${o.rows.map(row)}</tbody></table>
<p class="note events-note">${t('overview:events_note')}</p>
</section>${o.book?.missing.length ? bookMissing(o.book.missing, t, f) : ''}
<div class="closing"><section><h2>${t('overview:trend_title')}</h2>
${hasTrend ? html`<p class="note">${t('overview:trend_note')}</p>\n<div class="chart">${raw(svg)}</div>` : html`<p class="na">${t('overview:trend_missing')}</p>`}
</section>
${s.agencyName === null ? '' : html`<footer><p class="muted">${t('overview:prepared_by', { agency: s.agencyName })}</p></footer>`}
</div>
</main></body></html>
`;
  return (await page).toString();
}

/** The book's accounts without rows of its period, each with why, in the book's words. */
function bookMissing(missing: readonly MissingAccount[], t: Translate, f: Formatters) {
  const line = (m: MissingAccount) =>
    t(`overview:book_missing_${m.reason}`, {
      account: m.account,
      period: m.period ? f.period(m.period) : '',
    });
  return html`
<section class="book-missing"><h2>${t('overview:book_missing_title')}</h2>
<ul>${missing.map((m) => html`<li>${line(m)}</li>`)}</ul></section>`;
}

/** The column widths with a goal column (../goals/overview-cell.ts), only on a page that has one. */
function goalsCss(book: boolean): string {
  const w = book ? [9, 18, 8, 9, 8, 15, 24, 9] : [22, 8, 10, 8, 17, 26, 9];
  const table = book ? 'table.book.with-goals' : 'table.with-goals';
  return [
    ...w.map((pct, i) => `${table} th:nth-child(${i + 1}){width:${pct}%}`),
    'table.with-goals .event{overflow-wrap:normal}',
    // A status on one line, a goal's name broken only between words: the column is as wide as its longest word.
    '.goal{display:block}.goal+.goal{margin-top:4px}.goal .delta{white-space:nowrap}.goal .apart{overflow-wrap:normal}',
  ].join('');
}

function css(s: ReportStyle): string {
  return `
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#fff;overflow-wrap:anywhere}
main{max-width:960px;margin:0 auto;padding:24px}
h1,h2{color:${s.primaryColour};margin:.8em 0 .3em}h1{font-size:28px}
h2{font-size:20px;border-bottom:2px solid ${s.primaryColour};padding-bottom:4px}
.cover{border-left:6px solid ${s.accentColour};padding-left:16px}
.agency{font-weight:600;color:${s.accentColour};margin:0}.logo{max-height:48px;max-width:200px}
.muted,.note{color:#57606a}.na{color:#57606a;font-style:italic}
table{width:100%;border-collapse:collapse;margin:8px 0 16px}
th,td{border-bottom:1px solid #d0d7de;padding:4px 6px;text-align:left;vertical-align:top}th{background:#f6f8fa}
th{overflow-wrap:normal;word-break:keep-all;hyphens:none}
table.clients{font-size:13px}table.clients th{font-size:12px}
table.clients th:nth-child(1){width:30%}table.clients th:nth-child(2),table.clients th:nth-child(4){width:10%}
table.clients th:nth-child(3){width:11%}table.clients th:nth-child(5){width:28%}table.clients th:nth-child(6){width:11%}
table.book th:nth-child(1){width:10%}table.book th:nth-child(2){width:24%}table.book th:nth-child(3),table.book th:nth-child(5){width:9%}
table.book th:nth-child(4){width:10%}table.book th:nth-child(6){width:27%}table.book th:nth-child(7){width:11%}
td.fig{white-space:nowrap}
.delta{font-weight:600}.delta.up{color:${DELTA_COLOURS.up}}.delta.down{color:${DELTA_COLOURS.down}}.delta.flat{color:${DELTA_COLOURS.flat}}
.event{display:inline-block}.apart{display:block;color:#57606a;font-size:12px}
.chart svg{max-width:100%;height:auto}
tr{break-inside:avoid}
.closing{break-inside:avoid-page}
`
    .trim()
    .replaceAll('\n', '');
}
