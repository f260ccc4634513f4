// The pieces of the report page (./html.ts): hono/html's escaping template with the long-string cut,
// and the page's precision for figures, deltas and KPI cards (docs/reports.md, "Precision").
import { html as escapedHtml } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { cutNote, cutText } from './cut-text.js';
import { type Formats, oneDecimal } from './format.js';
import type { NotAvailable } from './not-read.js';
import type { Kpi, Report } from './report-shape.js';

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/**
 * hono/html's escaping `html`, each string longer than a page can hold cut (src/report/cut-text.ts)
 * with a note saying so: one place for every string of the page.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  return escapedHtml(strings, ...values.map((v) => (typeof v === 'string' ? shown(v) : v)));
}

export function shown(s: string): string | Html {
  const { head, cut } = cutText(s);
  return cut ? escapedHtml`${head}<span class="cut">${cutNote(cut)}</span>` : s;
}

export const NA = 'n/a';
export const NOT_AVAILABLE = 'not available';

export const text = (s: string | null | undefined): Html =>
  s == null ? html`<span class="na">${NA}</span>` : html`<bdi>${s}</bdi>`;
/**
 * The page's precision (docs/reports.md, "Precision"): a score, mean or percentage at one decimal
 * (`fig`), a count whole (`whole`), a share of voice with its unit (`share`); null, and a
 * non-finite figure, read "n/a". report.json keeps the values unrounded.
 */
export const fig = (f: Formats, n: number | null | undefined): string =>
  n == null || !Number.isFinite(n) ? NA : f.one(n);
export const whole = (f: Formats, n: number | null | undefined): string =>
  n == null || !Number.isFinite(n) ? NA : f.number(n);
/** A share of voice as a percentage: ×100 when the API sends fractions (trend.share_of_voice_unit). */
export const toPercent = (n: number | null | undefined, unit: Report['trend']['share_of_voice_unit']) =>
  n == null ? null : unit === 'fraction' ? n * 100 : n;
export const share = (
  f: Formats,
  n: number | null | undefined,
  unit: Report['trend']['share_of_voice_unit'],
) => {
  const p = toPercent(n, unit);
  return p === null || !Number.isFinite(p) ? NA : f.percent(p);
};

/** A delta as shown: one decimal (a count whole); what rounds to 0.0 reads ±0. */
export function signed(f: Formats, n: number, isWhole = false): string {
  const r = isWhole ? n : oneDecimal(n);
  const show = (x: number) => (isWhole ? f.number(x) : f.one(x));
  return r > 0 ? `+${show(r)}` : r < 0 ? `\u2212${show(Math.abs(r))}` : `\u00b1${show(0)}`;
}

/** A delta with its fixed colour, taken from the delta as shown; `higherIsBetter` false for counts of problems. */
export function deltaCell(
  f: Formats,
  d: number | null,
  unit: string,
  higherIsBetter = true,
  isWhole = false,
): Html {
  if (d === null || !Number.isFinite(d)) return html`<span class="delta na">${NA}</span>`;
  const r = isWhole ? d : oneDecimal(d);
  const better = r === 0 ? 'flat' : r > 0 === higherIsBetter ? 'up' : 'down';
  const arrow = r > 0 ? '\u25b2' : r < 0 ? '\u25bc' : '';
  return html`<span class="delta ${better}">${arrow} ${signed(f, d, isWhole)}${unit}</span>`;
}

export type Shown = 'score' | 'count' | Report['trend']['share_of_voice_unit'];

/**
 * A KPI card: its value and, when the previous period compares, the coloured delta; a comparison
 * that does not stand (too thin, too old) reads "not comparable" with its reason, in grey; a first
 * report (no earlier period, `earlier` false) shows no comparison at all: the section says so once.
 * A figure not read (`missing`) reads "not available" with the endpoint and the reason.
 */
export function card(
  f: Formats,
  label: string,
  k: Kpi,
  shown: Shown,
  earlier: boolean,
  higherIsBetter = true,
  missing?: NotAvailable | null,
): Html {
  if (missing)
    return html`<div class="card"><div class="label">${label}</div><div class="value na">${NOT_AVAILABLE}</div>
<div class="muted">${missing.endpoint}: ${missing.reason}</div></div>`;
  const isWhole = shown === 'count';
  const show = (n: number | null) =>
    shown === 'score' ? fig(f, n) : isWhole ? whole(f, n) : share(f, n, shown);
  const d = shown === 'score' || isWhole ? k.delta : toPercent(k.delta, shown);
  const unit = shown === 'score' ? ' pts' : isWhole ? '' : ' pp';
  const compared = !earlier
    ? ''
    : k.comparable
      ? html`\n<div>${deltaCell(f, d, unit, higherIsBetter, isWhole)} <span class="muted">vs ${show(k.previous)}</span></div>`
      : html`\n<div><span class="delta na">not comparable</span> <span class="muted">${k.reason ?? ''}</span></div>`;
  return html`<div class="card"><div class="label">${label}</div><div class="value">${show(k.value)}</div>${compared}</div>`;
}

/** Rows a table may have and still be kept whole on one printed page. */
export const SHORT_TABLE_ROWS = 10;

export function table(head: readonly string[], rows: readonly Html[][], caption?: string): Html {
  if (rows.length === 0) return html`<p class="muted">None.</p>`;
  // A short table is kept on one page in print (./html.ts, PRINT_CSS); a long one flows on.
  const short = rows.length <= SHORT_TABLE_ROWS;
  return html`<table${short ? html` class="short"` : ''}>${caption ? html`<caption>${caption}</caption>` : ''}<thead><tr>${head.map((h) => html`<th>${h}</th>`)}</tr></thead>
<tbody>${rows.map((r) => html`<tr>${r.map((c) => html`<td>${c}</td>`)}</tr>`)}</tbody></table>`;
}
