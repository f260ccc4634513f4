// Revised figures on the page (docs/reports.md, "Revised figures"): one line above the cards saying
// how many figures of the previous period changed since its final report, and the details at the end
// of the page, each value at the page's precision with its unit, so the cards keep page 1. Figures an
// earlier release's report stated by a rule changed since (../model/compare.ts) are said once, in
// one line above the cards, not listed as revised.
import { KPI_KEYS, type ReportModel, type Revision } from '../model/report-shape.js';
import type { Formatters } from './format.js';
import { fig, type Html, html, share, whole } from './html-parts.js';

const KPIS: ReadonlySet<string> = new Set(KPI_KEYS);
const COUNTS: ReadonlySet<string> = new Set([
  'open_recommendations',
  'suspected_false_claims',
  'engine_conflicts',
]);

/** "the report of 31 October 2026": the previous report is a final one, ending on its period's last day. */
const reportDay = (f: Formatters, r: ReportModel) => f.longDay(r.previous_period.to);

/** Page 1: "2 figures revised since the report of 31 October 2026; see the end." Nothing without revisions. */
export function revisionLine(f: Formatters, r: ReportModel): Html {
  const n = r.revisions.length;
  if (n === 0) return html``;
  return html`<p class="note">${f.t('page:revised.line', { count: n, n: f.number(n), day: reportDay(f, r) })}</p>\n`;
}

/**
 * Page 1: "Figures for October 2026 on buyer intent, ... follow the new period rule from this report
 * on, so some differ from the report of 31 October 2026." Nothing when no figure moved by a rule.
 */
export function restatedLine(f: Formatters, r: ReportModel): Html {
  if (r.restated.length === 0) return html``;
  return html`<p class="note">${f.t('page:restated.line', { period: f.period(r.previous_period), day: reportDay(f, r) })}</p>\n`;
}

function figureName(f: Formatters, r: ReportModel, x: Revision): string {
  if (x.figure.startsWith('engine:'))
    return f.t('page:figure.engine_mean', { engine: f.engine(x.figure.slice('engine:'.length)) });
  if (!KPIS.has(x.figure)) return x.figure;
  return f.t(`page:card.${x.figure}`, { day: reportDay(f, r) });
}

/** A revised value as the page shows its figure: a count whole, a share with %, a score at one decimal. */
function shownValue(f: Formatters, r: ReportModel, x: Revision, v: number | null): string {
  if (v === null) return f.t('page:not_available');
  if (COUNTS.has(x.figure)) return whole(f, v);
  if (x.figure === 'share_of_voice') return share(f, v, r.trend.share_of_voice_unit);
  return fig(f, v);
}

/** The end of the page: each revised figure, what the earlier report said and what it is now. */
export function revisionsSection(f: Formatters, r: ReportModel): Html {
  if (r.revisions.length === 0) return html``;
  const period = f.period(r.previous_period);
  const day = reportDay(f, r);
  return html`<section class="revisions"><h2>${f.t('page:revised.title')}</h2>
<ul>${r.revisions.map(
    (x) =>
      html`<li>${f.t('page:revised.detail', {
        figure: figureName(f, r, x),
        period,
        was: shownValue(f, r, x, x.was),
        day,
        now: shownValue(f, r, x, x.now),
      })}</li>`,
  )}</ul>
</section>
`;
}
