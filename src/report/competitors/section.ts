// "Who wins your money prompts" (src/report/render/html.ts, buyer intent): per competitor, the money prompts
// it wins at this period's end beside the previous period's end (./money-competitors.ts), as a
// grouped bar chart followed by its table. Where the data has no such counts the section says why in
// the report's language; it never draws an empty chart.
import { raw } from 'hono/html';
import type { TopLevelSpec } from 'vega-lite';
import { type Translate, translator } from '../i18n/translate.js';
import type { ReportModel } from '../model/report-shape.js';
import { specSvg } from '../render/charts.js';
import { formattersOf } from '../render/format.js';
import { type Html, html, text } from '../render/html-parts.js';
import type { ReportStyle } from '../style.js';

/** Competitors shown; the others are counted in a line under the table. */
export const SHOWN = 10;
const PREVIOUS_COLOUR = '#8c959f';

function spec(axis: string, series: string[], colour: string): TopLevelSpec {
  return {
    width: 420,
    height: { step: 26 },
    data: { name: 'points' },
    mark: { type: 'bar' },
    encoding: {
      y: { field: 'label', type: 'nominal', sort: null, axis: { title: null, labelLimit: 180 } },
      yOffset: { field: 'series', type: 'nominal', scale: { domain: series } },
      x: { field: 'value', type: 'quantitative', axis: { title: axis, tickMinStep: 1, format: 'd' } },
      color: {
        field: 'series',
        type: 'nominal',
        scale: { domain: series, range: [colour, PREVIOUS_COLOUR] },
        legend: { orient: 'top', title: null },
      },
    },
    config: { font: 'sans-serif' },
  };
}

/** `series`: this period's name, and the previous period's when it has counts (else no legend entry). */
function chart(
  t: Translate,
  locale: string | null,
  colour: string,
  series: string[],
  points: { label: string; series: string; value: number }[],
): Promise<string> {
  const axis = t('competitors:axis');
  const key = `competitors|${axis}|${series.join('|')}|${colour}`;
  return specSvg(key, () => spec(axis, series, colour), locale, points);
}

export async function moneyCompetitorsSection(r: ReportModel, style: ReportStyle): Promise<Html> {
  const { t } = translator(style.locale);
  const f = formattersOf(style);
  const m = r.money_competitors;
  const title = html`<h3>${t('competitors:title')}</h3>`;
  if (m.missing !== null) return html`${title}\n<p class="na">${t(`competitors:missing_${m.missing}`)}</p>`;
  const shown = m.competitors.slice(0, SHOWN);
  const before = m.previous_missing === null;
  // Year on year the other side is the same period a year earlier, and says so.
  const year = r.comparison.basis === 'year' ? '_year' : '';
  const now = t('competitors:col_now');
  const was = t(`competitors:col_before${year}`);
  const points = shown.flatMap((c) => [
    { label: c.name, series: now, value: c.won },
    ...(before ? [{ label: c.name, series: was, value: c.previous_won ?? 0 }] : []),
  ]);
  const svg = await chart(t, style.locale, style.accentColour, before ? [now, was] : [now], points);
  const more = m.competitors.length - shown.length;
  const count = (key: 'unnamed' | 'more', n: number) =>
    n > 0 ? html`<p class="muted">${t(`competitors:${key}`, { count: n, n: f.number(n) })}</p>` : '';
  return html`${title}
<p class="note">${t(before ? `competitors:note${year}` : 'competitors:note_now_only')}</p>
${before ? '' : html`<p class="note">${t(`competitors:previous${year}_${m.previous_missing}`)}</p>\n`}<div class="chart">${raw(svg)}</div>
<table><thead><tr><th>${t('competitors:col_competitor')}</th><th>${now}</th>${before ? html`<th>${was}</th>` : ''}</tr></thead>
<tbody>${shown.map(
    (c) =>
      html`<tr><td>${text(f, c.name)}</td><td>${f.number(c.won)}</td>${before ? html`<td>${c.previous_won === null ? f.na : f.number(c.previous_won)}</td>` : ''}</tr>`,
  )}</tbody></table>
${count('more', more)}${count('unnamed', m.unnamed)}`;
}
