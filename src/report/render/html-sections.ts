// The sections of the report page (./html.ts), each in the locale's words and number formats
// (`Formatters`); the API's own strings keep their words, engine ids read as display names.
import { html as escapedHtml, raw } from 'hono/html';
import type { ReportSection } from '../../config/schema.js';
import { moneyCompetitorsSection } from '../competitors/section.js';
import { competitorTrendSection } from '../competitors/trend-section.js';
import { goalsBlock } from '../goals/section.js';
import { gregorianDates } from '../i18n/calendar.js';
import { onePerTitle } from '../model/recommendation-titles.js';
import type { ReportModel } from '../model/report-shape.js';
import type { ReportStyle } from '../style.js';
import { type Formatters, shownDelta } from './format.js';
import { changeTable, enumWord, notRead, unrecognised } from './html-notes.js';
import { card, deltaCell, fig, type Html, html, share, table, text, whole } from './html-parts.js';
import { restatedLine, revisionLine } from './html-revisions.js';
import { engineReason, kpiReason, noEarlierNote } from './reasons.js';
import { snapshotNote, unknownState } from './snapshot-note.js';

export interface Charts {
  scoreSvg: string;
  sovSvg: string;
  enginesSvg: string;
  claimsSvg: string;
}

const svg = (s: string): Html => html`<div class="chart">${raw(s)}</div>`;

/** The section headings' keys, in page order (the cover has none). */
export const SECTION_KEYS = [
  'kpis',
  'trend',
  'engines',
  'buyer_intent',
  'recommendations',
  'reputation',
  'changes',
] as const;

const heading = (f: Formatters, key: (typeof SECTION_KEYS)[number]) => f.t(`page:section.${key}`);

/** The period as the cover and title name it: once, as the locale says it. */
export function periodOf(f: Formatters, r: ReportModel): string {
  return f.period(r.period, r.period_status.end, r.period_status.in_progress);
}

/** The day of an instant in the page's zone, as the locale writes days (no raw timestamp). */
function dayOf(f: Formatters, instant: string, timeZone: string | null): string {
  const ms = Date.parse(instant);
  if (!Number.isFinite(ms)) return f.na;
  const iso = gregorianDates('en-CA', {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    timeZone: timeZone ?? 'UTC',
  }).format(ms);
  return f.day(iso);
}

function days(f: Formatters, n: number | null): string {
  return f.t('page:days', { count: n ?? Number.NaN, n: whole(f, n) });
}

function prompts(f: Formatters, n: number | null): string {
  return f.t('page:prompts', { count: n ?? Number.NaN, n: whole(f, n) });
}

/** What every section is drawn from. */
interface Page {
  r: ReportModel;
  style: ReportStyle;
  f: Formatters;
}

const engineName = (f: Formatters, id: string) => html`<bdi>${f.engine(id)}</bdi>`;

function coverSection({ r, style, f }: Page): Html {
  const t = f.t;
  const yearAgo = r.comparison.basis === 'year';
  const compared = r.comparison.earlier_period
    ? t(yearAgo ? 'page:cover.compared_year' : 'page:cover.compared', {
        previous: f.period(r.previous_period),
      })
    : yearAgo
      ? noEarlierNote(f, r)
      : t('page:cover.first');
  return html`<header class="cover">
${style.logoDataUri ? escapedHtml`<img class="logo" alt="" src="${style.logoDataUri}">` : ''}
${style.agencyName === null ? '' : html`<p class="agency">${style.agencyName}</p>`}
<h1>${r.cover.client_name === null ? text(f, null) : html`<bdi>${r.cover.client_name}</bdi>`}</h1>
<p class="domain">${text(f, r.cover.client_domain)}</p>
${style.contact === null ? '' : html`<p class="contact">${style.contact}</p>\n`}<p>${t('page:cover.report', { period: periodOf(f, r) })}. ${compared}</p>
<p class="muted">${t('page:cover.as_of', { day: r.cover.data_as_of === null ? f.na : dayOf(f, r.cover.data_as_of, style.timeZone) })}</p>
</header>`;
}

/**
 * The day of the period's last overall score, as the end card names it ("on 30 November 2026"): the
 * headline is the period mean (../summary/headline.ts); this card is that one day's figure.
 */
function lastScoreDay(f: Formatters, r: ReportModel): string {
  const day = r.trend.series.filter((d) => d.overall_score !== null).at(-1)?.date ?? r.period_status.end;
  return f.longDay(day);
}

/** On `--compare year`, the line over the cards that says what every delta is against. */
function yearNote(f: Formatters, r: ReportModel): Html | string {
  return r.comparison.basis === 'year'
    ? html`<p class="note">${f.t('page:note.year', { period: f.period(r.previous_period) })}</p>\n`
    : '';
}

function kpiSection({ r, f }: Page): Html {
  const k = r.kpis;
  const earlier = r.comparison.earlier_period;
  const kpiCard = (
    key: keyof ReportModel['kpis'],
    shown: Parameters<typeof card>[2]['shown'],
    higherIsBetter = true,
    missing: ReportModel['reputation']['not_available'] = null,
  ) =>
    card(f, k[key], {
      label: f.t(`page:card.${key}`, key === 'overall_score_end' ? { day: lastScoreDay(f, r) } : {}),
      shown,
      earlier,
      higherIsBetter,
      reason: kpiReason(f, r, k[key]),
      missing,
    });
  return html`<section><h2>${heading(f, 'kpis')}</h2>
${earlier ? yearNote(f, r) : html`<p class="note">${noEarlierNote(f, r)}</p>\n`}${revisionLine(f, r)}${restatedLine(f, r)}<div class="cards">
${kpiCard('overall_score_mean', 'score')}
${kpiCard('overall_score_end', 'score')}
${kpiCard('share_of_voice', r.trend.share_of_voice_unit)}
${kpiCard('money_visibility', 'score')}
${kpiCard('visibility_gap', 'score', false)}
${kpiCard('open_recommendations', 'count', false)}
${kpiCard('suspected_false_claims', 'count', false, r.reputation.not_available)}
${kpiCard('engine_conflicts', 'count', false)}
</div>${goalsBlock(f, r)}</section>`;
}

function trendSection({ r, f }: Page, charts: Charts): Html {
  const { t, day } = f;
  const sov = r.trend.share_of_voice_unit;
  return html`<section><h2>${heading(f, 'trend')}</h2>
<p class="note">${t(r.comparison.earlier_period ? (r.comparison.basis === 'year' ? 'page:trend.note_year' : 'page:trend.note') : 'page:trend.note_first', { with: whole(f, r.trend.days_with_data), days: days(f, r.trend.days) })}</p>
${svg(charts.scoreSvg)}${svg(charts.sovSvg)}
${table(
  f,
  ['day', 'overall_score', 'share_of_voice', 'previous_day', 'previous_score', 'previous_share'],
  r.trend.series.map((d) => [
    html`${day(d.date)}`,
    html`${fig(f, d.overall_score)}`,
    html`${share(f, d.share_of_voice, sov)}`,
    html`${day(d.previous_date)}`,
    html`${fig(f, d.previous_overall_score)}`,
    html`${share(f, d.previous_share_of_voice, sov)}`,
  ]),
  t('page:trend.caption'),
)}
${unrecognised(f, r.trend.unrecognised)}
</section>`;
}

function engineSection({ r, f }: Page, charts: Charts): Html {
  const earlier = r.comparison.earlier_period;
  return html`<section><h2>${heading(f, 'engines')}</h2>
${snapshotNote(f, r, 'engines')}${svg(charts.enginesSvg)}
${table(
  f,
  ['engine', 'score_mean', 'latest_score', r.comparison.basis === 'year' ? 'year_ago' : 'previous', 'change'],
  r.engines.map((e) => [
    engineName(f, e.engine),
    html`${fig(f, e.score)}`,
    e.latest === null
      ? html`<span class="na">${f.t('page:not_available')}</span>`
      : html`${fig(f, e.latest)}`,
    html`${fig(f, e.previous)}`,
    !earlier
      ? html``
      : e.comparable
        ? deltaCell(f, e.delta === null ? null : shownDelta(e.score, e.previous), 'pts')
        : html`<span class="delta na" title="${engineReason(f, r, e) ?? ''}">${f.t('page:not_comparable')}</span>`,
  ]),
)}
</section>`;
}

function buyerIntentSection({ r, style, f }: Page): Html {
  const t = f.t;
  const bi = r.buyer_intent;
  return html`<section><h2>${heading(f, 'buyer_intent')}</h2>
${snapshotNote(f, r, 'buyer_intent')}<p>${t('page:buyer.window', {
    days: days(f, bi.window_days),
    money: fig(f, bi.money_visibility),
    moneyPrompts: prompts(f, bi.money_prompt_count),
    info: fig(f, bi.informational_visibility),
    infoPrompts: prompts(f, bi.informational_prompt_count),
    gap: fig(f, bi.visibility_gap),
  })}</p>
${moneyCompetitorsSection(r, style)}
${competitorTrendSection(r, style)}
<h3>${t('page:buyer.losses')}</h3>
${notRead(f, t('page:buyer.losses'), bi.not_available)}
${
  bi.not_available
    ? ''
    : table(
        f,
        ['prompt', 'engine', 'winner', 'winner_domain'],
        bi.losses.map((l) => [
          text(f, l.prompt),
          l.engine === null ? text(f, null) : engineName(f, l.engine),
          text(f, l.winner_name),
          text(f, l.winner_domain),
        ]),
      )
}
<h3>${t('page:buyer.why')}</h3>
<p>${text(f, bi.why_you_lose.summary)}</p>
${bi.why_you_lose.reasons.length ? html`<ul>${bi.why_you_lose.reasons.map((x) => html`<li>${text(f, x)}</li>`)}</ul>` : ''}
${unrecognised(f, bi.unrecognised)}
</section>`;
}

function recommendationSection({ r, f }: Page): Html {
  const t = f.t;
  const shown = onePerTitle(r.recommendations.open, r.recommendations.closed_in_period);
  return html`<section><h2>${heading(f, 'recommendations')}</h2>
${snapshotNote(f, r, 'recommendations')}<h3>${t('page:recs.open')}</h3>
${table(
  f,
  ['priority', 'recommendation', 'category', 'impact'],
  shown.open.map((x) => [
    enumWord(f, 'priority', x.priority),
    text(f, x.title),
    text(f, x.category),
    html`${fig(f, x.impact_score)}`,
  ]),
)}
<h3>${t('page:recs.closed')}</h3>
${table(
  f,
  ['status', 'recommendation', 'when'],
  shown.closed.map((x) => [
    enumWord(f, 'status', x.status),
    text(f, x.title),
    text(f, x.updated_at === null ? null : f.when(x.updated_at)),
  ]),
)}
${unrecognised(f, r.recommendations.unrecognised)}
</section>`;
}

function reputationSection({ r, f }: Page, charts: Charts): Html {
  const t = f.t;
  const rep = r.reputation;
  const notAvailable = html`<p class="na">${t('page:not_available')}</p>`;
  return html`<section><h2>${heading(f, 'reputation')}</h2>
${snapshotNote(f, r, 'reputation')}${notRead(f, t('page:col.claims'), rep.not_available)}
<h3>${t('page:rep.suspected')}</h3>
${
  rep.not_available
    ? notAvailable
    : table(
        f,
        ['engine', 'claim', 'reason'],
        rep.suspected_false.map((c) => [engineName(f, c.engine), text(f, c.claim), text(f, c.flag_reason)]),
      )
}
<h3>${t('page:rep.conflicts')}</h3>
${table(
  f,
  ['topic', 'engines', 'description'],
  rep.conflicts.map((c) => [
    text(f, c.topic),
    text(f, c.engines.map(f.engine).join(', ')),
    text(f, c.description),
  ]),
)}
<h3>${t('page:rep.claims')}</h3>
${rep.not_available ? notAvailable : html`${svg(charts.claimsSvg)}`}
${
  rep.not_available
    ? ''
    : table(
        f,
        ['engine', 'claims', 'suspected_false'],
        rep.claims_per_engine.map((c) => [
          engineName(f, c.engine),
          html`${f.number(c.claims)}`,
          html`${f.number(c.suspected_false)}`,
        ]),
      )
}
${unrecognised(f, rep.unrecognised)}
</section>`;
}

function changesSection({ r, f }: Page): Html {
  const w = r.what_changed;
  return html`<section><h2>${heading(f, 'changes')}</h2>
<p class="muted">${w.basis === 'data' ? f.t('page:changes.since', { day: f.day(`${w.since}`) }) : f.t('page:changes.none')}</p>
${changeTable(f, w.lines)}
</section>`;
}

/** Each section's block; the page shows those of style.sections in that order. */
export function sectionsOf(
  r: ReportModel,
  style: ReportStyle,
  f: Formatters,
  charts: Charts,
): Record<ReportSection, Html> {
  const page: Page = { r, style, f };
  return {
    cover: coverSection(page),
    kpis: kpiSection(page),
    trend: trendSection(page, charts),
    engines: engineSection(page, charts),
    // A section no state is known for holds only the line saying so (./snapshot-note.ts).
    'buyer-intent':
      unknownState(f, r, 'buyer_intent', heading(f, 'buyer_intent')) ?? buyerIntentSection(page),
    recommendations:
      unknownState(f, r, 'recommendations', heading(f, 'recommendations')) ?? recommendationSection(page),
    reputation: unknownState(f, r, 'reputation', heading(f, 'reputation')) ?? reputationSection(page, charts),
    changes: changesSection(page),
  };
}
