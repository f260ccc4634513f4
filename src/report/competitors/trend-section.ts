// "Money prompts won over time" (src/report/render/html-sections.ts, buyer intent, after who wins
// them): the brand's and its top competitors' share of the money prompts at the end of each of the
// last six periods (./trend.ts), as a line chart followed by its table. A period without a state is
// a gap in the lines, "n/a" in the table and a line saying why; never 0.
import { raw } from 'hono/html';
import type { TopLevelSpec } from 'vega-lite';
import { translator } from '../i18n/translate.js';
import type { ReportModel } from '../model/report-shape.js';
import { specSvg } from '../render/charts.js';
import { formattersOf } from '../render/format.js';
import { type Html, html, text } from '../render/html-parts.js';
import type { ReportStyle } from '../style.js';

const OTHER_COLOURS = ['#8c959f', '#bf8700', '#8250df', '#1a7f37', '#cf222e'];

function spec(axis: string, periods: string[], names: string[], colours: string[]): TopLevelSpec {
  return {
    width: 560,
    height: 200,
    data: { name: 'points' },
    // A missing period breaks the lines, and keeps its place on the axis.
    mark: { type: 'line', point: { size: 24 }, invalid: 'break-paths-show-domains' },
    encoding: {
      x: {
        field: 'period',
        type: 'ordinal',
        sort: periods,
        scale: { domain: periods },
        // A range's name on two lines at its dash ("11. Juni –" / "10. Juli 2026"), so it is not cut.
        axis: {
          title: null,
          labelAngle: 0,
          labelLimit: 140,
          labelExpr:
            "indexof(datum.label, '–') < 0 ? datum.label : [split(datum.label, '–')[0] + '–', trim(split(datum.label, '–')[1])]",
        },
      },
      y: { field: 'share', type: 'quantitative', axis: { title: axis } },
      color: {
        field: 'name',
        type: 'nominal',
        scale: { domain: names, range: colours },
        legend: { orient: 'top', title: null, labelLimit: 160, columns: 3 },
      },
    },
    config: { font: 'sans-serif' },
  };
}

export async function competitorTrendSection(r: ReportModel, style: ReportStyle): Promise<Html> {
  const { t } = translator(style.locale);
  const f = formattersOf(style);
  const c = r.competitor_trend;
  const title = html`<h3>${t('competitors:trend_title')}</h3>`;
  if (c.periods.length === 0 || c.periods.every((p) => p.missing !== null))
    return html`${title}\n<p class="na">${t('competitors:trend_none')}</p>`;
  const own = r.cover.client_name ?? t('competitors:trend_own');
  const names = c.series.map((s) => (s.own ? own : (s.name ?? '')));
  // The period's name as the page writes it, to the period's last day (a running one is not named "to date" here).
  const periods = c.periods.map((p) =>
    f.period({ label: p.label, kind: r.period.kind, from: p.from, to: p.to }),
  );
  const points = c.series.flatMap((s, i) =>
    s.shares.map((share, k) => ({ name: names[i], period: periods[k], share })),
  );
  const colours = [style.primaryColour, ...OTHER_COLOURS].slice(0, names.length);
  const axis = t('competitors:trend_axis');
  const key = `competitor-trend|${axis}|${periods.join('|')}|${names.join('|')}|${colours.join('|')}`;
  const svg = await specSvg(key, () => spec(axis, periods, names, colours), style.locale, points);
  // One line per reason, naming its periods: six "missing" lines would crowd out the table.
  const missing = new Map<string, string[]>();
  c.periods.forEach((p, k) => {
    if (p.missing !== null) missing.set(p.missing, [...(missing.get(p.missing) ?? []), periods[k] as string]);
  });
  const cell = (v: number | null) => (v === null ? f.na : f.percent(v));
  return html`${title}
<p class="note">${t('competitors:trend_note')}</p>
<div class="chart">${raw(svg)}</div>
<table class="trend"><thead><tr><th>${t('competitors:col_competitor')}</th>${periods.map((p) => html`<th>${p}</th>`)}</tr></thead>
<tbody>${c.series.map(
    (s, i) =>
      html`<tr><td>${s.own ? html`<strong>${text(f, own)}</strong>` : text(f, names[i] ?? null)}</td>${s.shares.map((v) => html`<td>${cell(v)}</td>`)}</tr>`,
  )}</tbody></table>
${[...missing].map(([why, names]) => html`<p class="muted">${t(`competitors:trend_missing_${why}`, { periods: names.join('; ') })}</p>\n`)}`;
}
