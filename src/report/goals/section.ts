// The goals on the page (docs/reports.md "Goals"): under the key figures, one row per goal with its
// aim and days left, the value now, where this period's trend puts it on the goal's date (or, when
// the date is beyond what the trend can carry, the change per day needed and the trend's), and the
// status in words in the fixed delta colours; then a line saying what "on track" stands on. A
// client without goals has no block: its page keeps its bytes.
import type { ReportModel } from '../model/report-shape.js';
import type { Formatters } from '../render/format.js';
import { type Html, html } from '../render/html-parts.js';
import { goalAim, goalFigure, goalName, goalProjection, statusWord } from './words.js';

/** The columns' widths: inline, so a page without goals keeps its stylesheet byte for byte. */
const WIDTHS = ['22%', '27%', '11%', '25%', '15%'];

export function goalsBlock(f: Formatters, r: Pick<ReportModel, 'goals'>): Html | '' {
  const goals = r.goals ?? [];
  if (goals.length === 0) return '';
  const cols = ['goal', 'target', 'now', 'projected', 'status'] as const;
  const days = (n: number) => f.t('page:days', { count: n, n: f.number(n) });
  return html`<div class="goals"><h3>${f.t('goals:title')}</h3>
<table class="short"><colgroup>${WIDTHS.map((w) => html`<col style="width:${w}">`)}</colgroup><thead><tr>${cols.map((c) => html`<th>${f.t(`goals:col.${c}`)}</th>`)}</tr></thead>
<tbody>${goals.map(
    (
      g,
    ) => html`<tr><td>${goalName(f, g)}</td><td>${goalAim(f, g)}${g.days_left > 0 ? html` <span class="muted">(${f.t('goals:days_left', { days: days(g.days_left) })})</span>` : ''}</td><td style="white-space:nowrap">${goalFigure(f, g.metric, g.value)}</td><td>${goalProjection(f, g)}</td><td>${statusWord(f, g)}</td></tr>
`,
  )}</tbody></table>
<p class="note">${f.t('goals:note')}</p></div>
`;
}
