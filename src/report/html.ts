// report.json -> one self-contained HTML page: inline CSS, inline SVG charts each followed by its data
// table, no script, a Content-Security-Policy that forbids every fetch but inline styles and data:
// images. Every string from the API goes through hono/html's escaping `html` template (a string
// longer than a page cut, with a note) and is wrapped in <bdi> so right-to-left text cannot reorder
// the page around it. Null and non-finite figures read "n/a".
import { html as escapedHtml, raw } from 'hono/html';
import type { ReportSection } from '../config/schema.js';
import type { ChangeKind, ChangeLine, Direction } from './change-lines.js';
import { type BarPoint, beginReportCharts, chartSvg, type LinePoint } from './charts.js';
import { moneyCompetitorsSection } from './competitors/section.js';
import { type Formats, formatsOf } from './format.js';
import {
  card,
  deltaCell,
  fig,
  type Html,
  html,
  NA,
  NOT_AVAILABLE,
  share,
  signed,
  table,
  text,
  toPercent,
  whole,
} from './html-parts.js';
import type { NotAvailable } from './not-read.js';
import type { Report } from './report-shape.js';
import { DELTA_COLOURS, type ReportStyle } from './style.js';
import { summarySection } from './summary/section.js';
import type { Unrecognised } from './unrecognised.js';

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

/** Section headings, in page order (the browser test looks for each). */
export const SECTION_TITLES = [
  'Key figures',
  'Trend',
  'Engines',
  'Buyer intent',
  'Recommendations',
  'Reputation',
  'What changed',
] as const;

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * The period in words: `period_status.title` (`1-28 November 2026, month to date`), or with a
 * locale its first and last day as the locale writes them, and whether it is still running.
 */
function periodText(r: Report, f: Formats): string {
  const title = r.period_status.title;
  if (f.day(r.period.from) === r.period.from) return title;
  const running = title.includes(', ') ? title.slice(title.indexOf(', ')) : '';
  return `${f.day(r.period.from)} to ${f.day(r.period_status.end)}${running}`;
}

function unrecognised(list: readonly Unrecognised[]): Html {
  if (list.length === 0) return html``;
  return html`<div class="drift"><p><strong>Shape not recognised:</strong> the API sent fields this
version of visync does not know; they are listed as sent.</p>
${table(
  ['table', 'field', 'example'],
  list.map((u) => [html`${u.table}`, text(u.field), text(u.example)]),
)}</div>`;
}

/** What a section could not read: the reason, and the data as it was sent (escaped). */
function notRead(what: string, n: NotAvailable | null): Html {
  if (n === null) return html``;
  return html`<div class="drift"><p><strong>${what}: ${NOT_AVAILABLE}.</strong> ${n.endpoint} was sent in a shape
this version of visync does not read (${n.reason}). The data as sent:</p>
<pre class="as-sent">${n.data}</pre></div>`;
}

const svg = (s: string): Html => html`<div class="chart">${raw(s)}</div>`;

/** `notes`: the account manager's Markdown for this workspace and period (./summary/notes.ts). */
export async function renderHtml(
  r: Report,
  style: ReportStyle,
  notes: string | null = null,
): Promise<string> {
  beginReportCharts();
  const colours = { primary: style.primaryColour, accent: style.accentColour };
  const line = (key: 'overall_score' | 'share_of_voice'): LinePoint[] =>
    r.trend.series.flatMap((d) =>
      [
        { date: d.date, series: 'this period', value: d[key] },
        {
          date: d.date,
          series: 'previous period',
          value: key === 'overall_score' ? d.previous_overall_score : d.previous_share_of_voice,
        },
      ].map((p) =>
        key === 'share_of_voice' ? { ...p, value: toPercent(p.value, r.trend.share_of_voice_unit) } : p,
      ),
    );
  const bars = (xs: { label: string; value: number | null }[]): BarPoint[] => xs;
  const [scoreSvg, sovSvg, enginesSvg, claimsSvg] = await Promise.all([
    chartSvg('score', line('overall_score'), colours),
    chartSvg('share_of_voice', line('share_of_voice'), colours),
    chartSvg('engines', bars(r.engines.map((e) => ({ label: e.engine, value: e.score }))), colours),
    chartSvg(
      'claims',
      bars(r.reputation.claims_per_engine.map((c) => ({ label: c.engine, value: c.claims }))),
      colours,
    ),
  ]);
  const sections = sectionsOf(r, style, formatsOf(style), {
    scoreSvg,
    sovSvg,
    enginesSvg,
    claimsSvg,
  });
  // At the top of every report: under the cover, or first when the cover is not shown.
  const summary = summarySection(r, style, notes);
  const page = html`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${r.cover.client_name ?? r.brand_id} \u2013 AI visibility report ${periodText(r, formatsOf(style))}</title>
<style>${raw(css(style))}</style></head>
<body><main>
${style.sections.includes('cover') ? '' : html`${summary}\n\n`}${style.sections.map((key, i) => html`${i ? '\n\n' : ''}${sections[key]}${key === 'cover' ? html`\n\n${summary}` : ''}`)}
<footer>${style.footer ? html`<p>${style.footer}</p>` : ''}${style.agencyName === null ? '' : html`<p class="muted">Prepared by ${style.agencyName}.</p>`}</footer>
</main></body></html>
`;
  return (await page).toString();
}

interface Charts {
  scoreSvg: string;
  sovSvg: string;
  enginesSvg: string;
  claimsSvg: string;
}

/** Each section's block; the page shows those of style.sections in that order. */
function sectionsOf(r: Report, style: ReportStyle, f: Formats, charts: Charts): Record<ReportSection, Html> {
  const { scoreSvg, sovSvg, enginesSvg, claimsSvg } = charts;
  const k = r.kpis;
  const bi = r.buyer_intent;
  const w = r.what_changed;
  const earlier = r.comparison.earlier_period;
  const day = f.day;
  const sov = r.trend.share_of_voice_unit;
  return {
    cover: html`<header class="cover">
${style.logoDataUri ? escapedHtml`<img class="logo" alt="" src="${style.logoDataUri}">` : ''}
${style.agencyName === null ? '' : html`<p class="agency">${style.agencyName}</p>`}
<h1>${text(r.cover.client_name)}</h1>
<p class="domain">${text(r.cover.client_domain)}</p>
${style.contact === null ? '' : html`<p class="contact">${style.contact}</p>\n`}<p>AI visibility report, ${periodText(r, f)} (${r.period.label}), ${r.comparison.earlier_period ? html`compared with ${day(r.previous_period.from)} to ${day(r.previous_period.to)}` : html`the first period with data`}.</p>
<p class="muted">Data as of ${r.cover.data_as_of === null ? NA : f.instant(r.cover.data_as_of)}. Workspace <bdi>${r.brand_id}</bdi>, account <bdi>${r.account}</bdi>.</p>
</header>`,
    kpis: html`<section><h2>${SECTION_TITLES[0]}</h2>
${r.comparison.note === null ? '' : html`<p class="note">${capitalised(r.comparison.note)}.</p>\n`}${r.revisions.map((x) => html`<p class="note">${capitalised(x.note)}.</p>\n`)}<div class="cards">
${card(f, 'Overall score (period end)', k.overall_score_end, 'score', earlier)}
${card(f, 'Overall score (period mean)', k.overall_score_mean, 'score', earlier)}
${card(f, 'Share of voice (mean)', k.share_of_voice, sov, earlier)}
${card(f, 'Money-prompt visibility', k.money_visibility, 'score', earlier)}
${card(f, 'Money/informational gap', k.visibility_gap, 'score', earlier, false)}
${card(f, 'Open recommendations', k.open_recommendations, 'count', earlier, false)}
${card(f, 'Suspected false claims', k.suspected_false_claims, 'count', earlier, false, r.reputation.not_available)}
${card(f, 'Engine conflicts', k.engine_conflicts, 'count', earlier, false)}
</div></section>`,
    trend: html`<section><h2>${SECTION_TITLES[1]}</h2>
<p class="note">Data on ${r.trend.coverage}; days without data are gaps. The previous period is dashed.</p>
${svg(scoreSvg)}${svg(sovSvg)}
${table(
  ['day', 'overall score', 'share of voice', 'previous day', 'previous score', 'previous share'],
  r.trend.series.map((d) => [
    html`${day(d.date)}`,
    html`${fig(f, d.overall_score)}`,
    html`${share(f, d.share_of_voice, sov)}`,
    html`${day(d.previous_date)}`,
    html`${fig(f, d.previous_overall_score)}`,
    html`${share(f, d.previous_share_of_voice, sov)}`,
  ]),
  'Daily figures',
)}
${unrecognised(r.trend.unrecognised)}
</section>`,
    engines: html`<section><h2>${SECTION_TITLES[2]}</h2>
${svg(enginesSvg)}
${table(
  ['engine', 'score (mean)', 'latest score', 'previous', 'change'],
  r.engines.map((e) => [
    text(e.engine),
    html`${fig(f, e.score)}`,
    e.latest === null ? html`<span class="na">${NOT_AVAILABLE}</span>` : html`${fig(f, e.latest)}`,
    html`${fig(f, e.previous)}`,
    !earlier
      ? html``
      : e.comparable
        ? deltaCell(f, e.delta, ' pts')
        : html`<span class="delta na" title="${e.reason ?? ''}">not comparable</span>`,
  ]),
)}
</section>`,
    'buyer-intent': html`<section><h2>${SECTION_TITLES[3]}</h2>
<p>Window of ${whole(f, bi.window_days)} days: money prompts ${fig(f, bi.money_visibility)} (${whole(f, bi.money_prompt_count)} prompts),
informational prompts ${fig(f, bi.informational_visibility)} (${whole(f, bi.informational_prompt_count)} prompts), gap ${fig(f, bi.visibility_gap)}.</p>
${moneyCompetitorsSection(r, style)}
<h3>Losses</h3>
${notRead('Losses', bi.not_available)}
${
  bi.not_available
    ? ''
    : table(
        ['prompt', 'engine', 'winner', 'winner domain'],
        bi.losses.map((l) => [text(l.prompt), text(l.engine), text(l.winner_name), text(l.winner_domain)]),
      )
}
<h3>Why you lose</h3>
<p>${text(bi.why_you_lose.summary)}</p>
${bi.why_you_lose.reasons.length ? html`<ul>${bi.why_you_lose.reasons.map((x) => html`<li>${text(x)}</li>`)}</ul>` : ''}
${unrecognised(bi.unrecognised)}
</section>`,
    recommendations: html`<section><h2>${SECTION_TITLES[4]}</h2>
<h3>Open, by priority</h3>
${table(
  ['priority', 'recommendation', 'category', 'impact'],
  r.recommendations.open.map((x) => [
    text(x.priority),
    text(x.title),
    text(x.category),
    html`${fig(f, x.impact_score)}`,
  ]),
)}
<h3>Done or dismissed in the period</h3>
${table(
  ['status', 'recommendation', 'when'],
  r.recommendations.closed_in_period.map((x) => [
    text(x.status),
    text(x.title),
    text(x.updated_at === null ? null : f.when(x.updated_at)),
  ]),
)}
${unrecognised(r.recommendations.unrecognised)}
</section>`,
    reputation: html`<section><h2>${SECTION_TITLES[5]}</h2>
${notRead('Claims', r.reputation.not_available)}
<h3>Suspected false claims</h3>
${
  r.reputation.not_available
    ? html`<p class="na">${NOT_AVAILABLE}</p>`
    : table(
        ['engine', 'claim', 'reason'],
        r.reputation.suspected_false.map((c) => [text(c.engine), text(c.claim), text(c.flag_reason)]),
      )
}
<h3>Conflicts between engines</h3>
${table(
  ['topic', 'engines', 'description'],
  r.reputation.conflicts.map((c) => [text(c.topic), text(c.engines.join(', ')), text(c.description)]),
)}
<h3>Claims per engine</h3>
${r.reputation.not_available ? html`<p class="na">${NOT_AVAILABLE}</p>` : html`${svg(claimsSvg)}`}
${
  r.reputation.not_available
    ? ''
    : table(
        ['engine', 'claims', 'suspected false'],
        r.reputation.claims_per_engine.map((c) => [
          text(c.engine),
          html`${c.claims}`,
          html`${c.suspected_false}`,
        ]),
      )
}
${unrecognised(r.reputation.unrecognised)}
</section>`,
    changes: html`<section><h2>${SECTION_TITLES[6]}</h2>
<p class="muted">${
      w.basis === 'data'
        ? `Since the synced data of ${day(`${w.since}`)}.`
        : 'Nothing to compare with yet: no earlier run.'
    }</p>
${changeTable(f, w.lines)}
</section>`,
  };
}

const CHANGE_LABELS: Record<ChangeKind, string> = {
  recommendation_new: 'new recommendation',
  recommendation_closed: 'recommendation closed',
  recommendation_unlisted: 'recommendation no longer listed (not done or dismissed)',
  recommendation_reissued: 'recommendation listed again under a new id',
  flag_new: 'new suspected false claim',
  flag_cleared: 'cleared claim',
  conflict_new: 'new engine conflict',
  conflict_resolved: 'resolved engine conflict',
  competitor_new: 'new winning competitor',
  competitor_gone: 'competitor no longer winning',
  engine_moved: 'engine moved',
};

/** Good or bad news, as a sign, a word and the fixed delta colour. */
const NEWS: Record<Direction, { sign: string; word: string; css: string }> = {
  better: { sign: '+', word: 'better', css: 'up' },
  worse: { sign: '\u2212', word: 'worse', css: 'down' },
  neutral: { sign: '\u00b7', word: 'neutral', css: 'flat' },
};

/** The "what changed" lines; a recommendation title on more than one line shows each line's id. */
function changeTable(f: Formats, lines: readonly ChangeLine[]): Html {
  const recs = lines.filter((l) => l.change.startsWith('recommendation_'));
  const repeated = (l: ChangeLine) =>
    l.change.startsWith('recommendation_') && recs.filter((x) => x.what === l.what).length > 1;
  return html`<div class="changes">${table(
    ['news', 'change', 'what'],
    lines.map((l) => {
      const n = NEWS[l.direction];
      // Closed: done or dismissed; a claim: its engine.
      const noted = ['recommendation_closed', 'flag_new', 'flag_cleared'].includes(l.change);
      const label =
        noted && l.note !== null ? `${CHANGE_LABELS[l.change]} (${l.note})` : CHANGE_LABELS[l.change];
      const what =
        l.change === 'engine_moved'
          ? html`<bdi>${l.what}</bdi>: ${fig(f, l.before)} \u2192 ${fig(f, l.after)} (${l.delta === null ? NA : signed(f, l.delta)} pts)`
          : l.change === 'recommendation_reissued'
            ? html`<bdi>${l.what}</bdi> <span class="muted">(<bdi>${l.note ?? ''}</bdi> \u2192 <bdi>${l.id ?? ''}</bdi>)</span>`
            : repeated(l)
              ? html`<bdi>${l.what}</bdi> <span class="muted">(<bdi>${l.id ?? ''}</bdi>)</span>`
              : text(l.what);
      return [html`<span class="delta ${n.css}">${n.sign} ${n.word}</span>`, html`${label}`, what];
    }),
  )}</div>`;
}

/** One line in the page (the rules stay readable here). */
function css(s: ReportStyle): string {
  return `
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#fff;overflow-wrap:anywhere;word-break:break-word}
main{max-width:960px;margin:0 auto;padding:24px}
h1,h2,h3{color:${s.primaryColour};margin:.8em 0 .3em}
h1{font-size:28px}h2{font-size:20px;border-bottom:2px solid ${s.primaryColour};padding-bottom:4px}h3{font-size:16px}
.cover{border-left:6px solid ${s.accentColour};padding-left:16px}
.agency{font-weight:600;color:${s.accentColour};margin:0}.logo{max-height:48px;max-width:200px}
.muted,.note{color:#57606a}.na{color:#57606a;font-style:italic}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:12px}
.card{border:1px solid #d0d7de;border-radius:6px;padding:10px 12px;min-width:0}
.card .label{color:#57606a;font-size:12px}.card .value{font-size:24px;font-weight:600}
.delta{font-weight:600}.delta.up{color:${DELTA_COLOURS.up}}.delta.down{color:${DELTA_COLOURS.down}}.delta.flat{color:${DELTA_COLOURS.flat}}
table{width:100%;border-collapse:collapse;table-layout:fixed;margin:8px 0 16px}
caption{text-align:left;color:#57606a;padding:4px 0}
th,td{border-bottom:1px solid #d0d7de;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f6f8fa}
.changes th:nth-child(1){width:12%}.changes th:nth-child(2){width:26%}
.chart{overflow:hidden}.chart svg{max-width:100%;height:auto}
.drift{border:1px dashed #9a6700;background:#fff8c5;padding:8px;margin:8px 0}
.as-sent{white-space:pre-wrap;overflow-wrap:anywhere;font-size:11px;max-height:none}
footer{margin-top:32px;border-top:1px solid #d0d7de}
@media print{section{break-inside:avoid-page}}
`
    .trim()
    .replaceAll('\n', '');
}
