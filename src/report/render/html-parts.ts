// The pieces of the report page (./html.ts): hono/html's escaping template with the long-string cut,
// and the page's precision for figures, deltas and KPI cards (docs/reports.md, "Precision"), each
// in the locale's number formats and words (`Formatters`, ./format.ts).
import { html as escapedHtml } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { NotAvailable } from '../model/not-read.js';
import type { Kpi, ReportModel } from '../model/report-shape.js';
import { cutNote, cutText } from './cut-text.js';
import { type Formatters, oneDecimal, shownDelta } from './format.js';

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/**
 * hono/html's escaping `html`, each string longer than a page can hold cut (src/report/render/cut-text.ts)
 * with a note saying so: one place for every string of the page.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  return escapedHtml(strings, ...values.map((v) => (typeof v === 'string' ? shown(v) : v)));
}

/** `s`, or its head and a note saying how much was cut (`note`: in the page's words, else English). */
export function shown(s: string, note: (cut: number) => string = cutNote): string | Html {
  const { head, cut } = cutText(s);
  return cut ? escapedHtml`${head}<span class="cut">${note(cut)}</span>` : s;
}

/**
 * A string from the API in its own words (the client's name as the agency set it), isolated for
 * direction; a missing one reads "n/a" in the locale.
 */
export const text = (f: Formatters, s: string | null | undefined): Html =>
  s == null
    ? html`<span class="na">${f.na}</span>`
    : html`<bdi>${shown(f.api(s), (n) => f.t('page:cut', { n: f.number(n) }))}</bdi>`;
/**
 * The page's precision (docs/reports.md, "Precision"): a score, mean or percentage at one decimal
 * (`fig`), a count whole (`whole`), a share of voice with its unit (`share`); null, and a
 * non-finite figure, read "n/a". report.json keeps the values unrounded.
 */
export const fig = (f: Formatters, n: number | null | undefined): string =>
  n == null || !Number.isFinite(n) ? f.na : f.one(n);
export const whole = (f: Formatters, n: number | null | undefined): string =>
  n == null || !Number.isFinite(n) ? f.na : f.number(n);
/** A share of voice as a percentage: ×100 when the API sends fractions (trend.share_of_voice_unit). */
export const toPercent = (n: number | null | undefined, unit: ReportModel['trend']['share_of_voice_unit']) =>
  n == null ? null : unit === 'fraction' ? n * 100 : n;
export const share = (
  f: Formatters,
  n: number | null | undefined,
  unit: ReportModel['trend']['share_of_voice_unit'],
) => {
  const p = toPercent(n, unit);
  return p === null || !Number.isFinite(p) ? f.na : f.percent(p);
};

/** A delta as shown: one decimal (a count whole); what rounds to 0.0 reads ±0. */
export function signed(f: Formatters, n: number, isWhole = false): string {
  return withSign(isWhole ? n : oneDecimal(n), (x) => (isWhole ? f.number(x) : f.one(x)));
}

/** `r`, rounded as shown already, with its sign written by `show`: "+1.5", "\u22121.5", "±0.0". */
export const withSign = (r: number, show: (x: number) => string): string =>
  r > 0 ? `+${show(r)}` : r < 0 ? `\u2212${show(Math.abs(r))}` : `\u00b1${show(0)}`;

/** A delta's unit: score points, percentage points of a share, or none (a count). */
export type Unit = 'pts' | 'pp' | null;

/** A signed delta with its unit in the locale's words ("+1,5 Pkt."). */
export function signedWithUnit(f: Formatters, n: number, unit: Unit, isWhole = false): string {
  const value = signed(f, n, isWhole);
  return unit === null ? value : f.t(`page:unit.${unit}`, { value });
}

/** A delta with its fixed colour, taken from the delta as shown; `higherIsBetter` false for counts of problems. */
export function deltaCell(
  f: Formatters,
  d: number | null,
  unit: Unit,
  higherIsBetter = true,
  isWhole = false,
): Html {
  if (d === null || !Number.isFinite(d)) return html`<span class="delta na">${f.na}</span>`;
  const r = isWhole ? d : oneDecimal(d);
  const better = r === 0 ? 'flat' : r > 0 === higherIsBetter ? 'up' : 'down';
  const arrow = r > 0 ? '\u25b2' : r < 0 ? '\u25bc' : '';
  return html`<span class="delta ${better}">${arrow} ${signedWithUnit(f, d, unit, isWhole)}</span>`;
}

export type Shown = 'score' | 'count' | ReportModel['trend']['share_of_voice_unit'];

/**
 * A KPI card: its value and, when the previous period compares, the coloured delta; a comparison
 * that does not stand (too thin, too old) reads "not comparable" with its reason, in grey; a first
 * report (no earlier period, `earlier` false) shows no comparison at all: the section says so once.
 * A figure not read (`missing`) reads "not available" with the endpoint and the reason.
 */
export interface CardOptions {
  label: string;
  shown: Shown;
  /** The section compares with an earlier period at all. */
  earlier: boolean;
  higherIsBetter?: boolean;
  /** Why the comparison does not stand, in the locale's words (./reasons.ts). */
  reason: string | null;
  missing?: NotAvailable | null;
}

export function card(f: Formatters, k: Kpi, o: CardOptions): Html {
  const { label, shown, earlier, higherIsBetter = true, missing } = o;
  if (missing)
    return html`<div class="card"><div class="label">${label}</div><div class="value na">${f.t('page:not_available')}</div>
<div class="muted">${missing.endpoint}: ${missing.reason}</div></div>`;
  const isWhole = shown === 'count';
  const show = (n: number | null) =>
    shown === 'score' ? fig(f, n) : isWhole ? whole(f, n) : share(f, n, shown);
  // The difference of the values as shown (docs/reports.md, "Precision"): it adds up on the card.
  const asShown = (n: number | null) => (shown === 'score' || isWhole ? n : toPercent(n, shown));
  const d = k.delta === null ? null : isWhole ? k.delta : shownDelta(asShown(k.value), asShown(k.previous));
  const unit: Unit = shown === 'score' ? 'pts' : isWhole ? null : 'pp';
  const compared = !earlier
    ? ''
    : k.comparable
      ? html`\n<div>${deltaCell(f, d, unit, higherIsBetter, isWhole)} <span class="muted">${f.t('page:card.previous', { value: show(k.previous) })}</span></div>`
      : html`\n<div><span class="delta na">${f.t('page:not_comparable')}</span> <span class="muted">${o.reason ?? ''}</span></div>`;
  return html`<div class="card"><div class="label">${label}</div><div class="value">${show(k.value)}</div>${compared}</div>`;
}

/** A table with its column heads (catalogue keys `page:col.<key>`); no rows: "None." in the locale. */
/** Rows a table may have and still be kept whole on one printed page. */
export const SHORT_TABLE_ROWS = 5;

export function table(
  f: Formatters,
  head: readonly string[],
  rows: readonly Html[][],
  caption?: string,
): Html {
  if (rows.length === 0) return html`<p class="muted">${f.t('page:none')}</p>`;
  // A short table is kept on one page in print (./page-css.ts); a long one flows on.
  const short = rows.length <= SHORT_TABLE_ROWS;
  return html`<table${short ? html` class="short"` : ''}>${caption ? html`<caption>${caption}</caption>` : ''}<thead><tr>${head.map((h) => html`<th>${f.t(`page:col.${h}`)}</th>`)}</tr></thead>
<tbody>${rows.map((r) => html`<tr>${r.map((c) => html`<td>${c}</td>`)}</tr>`)}</tbody></table>`;
}
