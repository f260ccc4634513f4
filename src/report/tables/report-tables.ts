// The report's tables for spreadsheets (docs/reports.md, "Spreadsheets"): every table the page
// shows, from the same model, as typed cells for ./csv.ts and ./xlsx.ts. Headers and sheet names are
// the page's words in the report's locale; values stay machine-readable (numbers unrounded as
// report.json has them, days as `YYYY-MM-DD`, instants as ISO UTC). A value that is missing or not
// comparable is an empty cell, and the row's note (or the "Report" table) says why: never a 0.
// Only the sections the page shows (`reports.sections`) give tables. Pure.
import { KPI_KEYS, type Kpi, type KpiKey, type ReportModel } from '../model/report-shape.js';
import { formattersOf } from '../render/format.js';
import { signedWithUnit } from '../render/html-parts.js';
import { engineReason, kpiReason } from '../render/reasons.js';
import type { ReportStyle } from '../style.js';
import { buyerIntentTables, recommendationTables, reputationTables } from './state-tables.js';
import {
  type CellValue,
  type ColumnKind,
  type Ctx,
  col,
  head,
  notReadNote,
  plain,
  type SheetTable,
  TABLE_NAMES,
  type WorkbookFacts,
} from './table-shape.js';

export { TABLE_NAMES };

/** A share of voice in percent, whichever unit the API sent it in. */
function percentOf(r: ReportModel, v: number | null): number | null {
  if (v === null) return null;
  return r.trend.share_of_voice_unit === 'fraction' ? Number((v * 100).toPrecision(12)) : v;
}

function kpiRow(c: Ctx, key: KpiKey, k: Kpi): CellValue[] {
  const { r, f } = c;
  const share = key === 'share_of_voice';
  const v = share ? (x: number | null) => percentOf(r, x) : (x: number | null) => x;
  const day = k.coverage.current.snapshot_date ?? r.period_status.end;
  const label =
    key === 'overall_score_end'
      ? f.t('page:card.overall_score_end', { day: f.day(day) })
      : f.t(`page:card.${key}`);
  const earlier = r.comparison.earlier_period;
  const reason = k.value === null ? f.t('sheets:missing') : k.comparable ? null : kpiReason(f, r, k);
  return [
    plain(label),
    v(k.value),
    earlier ? v(k.previous) : null,
    earlier && k.comparable ? v(k.delta) : null,
    reason ?? (earlier ? null : plain(f.t('page:note.no_earlier', { period: f.period(r.previous_period) }))),
  ];
}

/** The first table: what the workbook is about, and why a table is empty or a cell blank. */
function reportTable(c: Ctx, shown: SheetTable[]): SheetTable {
  const { r, f } = c;
  const rows: CellValue[][] = [
    [f.t('sheets:client'), r.cover.client_name],
    [f.t('sheets:period'), f.period(r.period, r.period_status.end, r.period_status.in_progress)],
    [f.t('sheets:compared'), f.period(r.previous_period)],
    [f.t('sheets:as_of'), r.cover.data_as_of === null ? null : f.instant(r.cover.data_as_of)],
  ];
  const notes: string[] = [];
  const kinds = new Set(shown.flatMap((t) => [...t.columns.map((x) => x.kind), ...(t.kinds ?? []).flat()]));
  if (kinds.has('percent') || kinds.has('percent_delta'))
    notes.push(f.t('sheets:share_unit', { value: '35.2', shown: f.percent(35.2) }));
  // A change of a share is in percentage points (the KPI table's change column mixes units).
  if (kinds.has('percent_delta'))
    notes.push(f.t('sheets:share_delta_unit', { value: '-4.5', shown: signedWithUnit(f, -4.5, 'pp') }));
  if (kinds.has('instant')) notes.push(f.t('sheets:times_utc'));
  for (const n of notes) rows.push([f.t('sheets:col_note'), n]);
  return {
    name: 'report',
    title: f.t('sheets:about'),
    columns: [
      { header: f.t('sheets:col_item'), kind: 'text' },
      { header: f.t('sheets:col_value'), kind: 'text' },
    ],
    rows,
  };
}

const COUNT_ROW: ColumnKind[] = ['text', 'count', 'count', 'count_delta', 'text'];
const SHARE_ROW: ColumnKind[] = ['text', 'percent', 'percent', 'percent_delta', 'text'];
/** The KPI rows that are not scores: counts are whole, the share of voice a percentage. */
const KPI_KINDS: Partial<Record<KpiKey, ColumnKind[]>> = {
  share_of_voice: SHARE_ROW,
  open_recommendations: COUNT_ROW,
  suspected_false_claims: COUNT_ROW,
  engine_conflicts: COUNT_ROW,
};

function kpisTable(c: Ctx): SheetTable {
  return {
    name: 'kpis',
    title: head(c, 'page:section.kpis'),
    columns: [
      { header: c.f.t('sheets:col_figure'), kind: 'text' },
      { header: c.f.t('sheets:col_value'), kind: 'number' },
      col(c, 'page:col.previous', 'number'),
      col(c, 'page:col.change', 'delta'),
      { header: c.f.t('sheets:col_note'), kind: 'text' },
    ],
    rows: KPI_KEYS.map((k) => kpiRow(c, k, c.r.kpis[k])),
    kinds: KPI_KEYS.map((k) => KPI_KINDS[k]),
  };
}

function trendTable(c: Ctx): SheetTable {
  const { r } = c;
  return {
    name: 'trend',
    title: head(c, 'page:section.trend'),
    columns: [
      col(c, 'page:col.day', 'date'),
      col(c, 'page:col.overall_score', 'number'),
      col(c, 'page:col.share_of_voice', 'percent'),
      col(c, 'page:col.previous_day', 'date'),
      col(c, 'page:col.previous_score', 'number'),
      col(c, 'page:col.previous_share', 'percent'),
    ],
    rows: r.trend.series.map((d) => [
      d.date,
      d.overall_score,
      percentOf(r, d.share_of_voice),
      d.previous_date,
      d.previous_overall_score,
      percentOf(r, d.previous_share_of_voice),
    ]),
  };
}

function enginesTable(c: Ctx): SheetTable {
  const { r, f } = c;
  const earlier = r.comparison.earlier_period;
  return {
    name: 'engines',
    title: head(c, 'page:section.engines'),
    columns: [
      col(c, 'page:col.engine', 'text'),
      col(c, 'page:col.score_mean', 'number'),
      col(c, 'page:col.latest_score', 'number'),
      col(c, 'page:col.previous', 'number'),
      col(c, 'page:col.change', 'delta'),
      { header: f.t('sheets:col_note'), kind: 'text' },
    ],
    rows: r.engines.map((e) => [
      f.engine(e.engine),
      e.score,
      e.latest,
      e.previous,
      earlier && e.comparable ? e.delta : null,
      e.score === null ? f.t('sheets:missing') : e.comparable ? null : engineReason(f, r, e),
    ]),
  };
}

function changesTable(c: Ctx): SheetTable {
  const { r, f } = c;
  return {
    name: 'what_changed',
    title: head(c, 'page:section.changes'),
    columns: [
      col(c, 'page:col.news', 'text'),
      col(c, 'page:col.change', 'text'),
      col(c, 'page:col.what', 'text'),
      col(c, 'page:col.previous', 'number'),
      { header: f.t('sheets:col_value'), kind: 'number' },
      { header: head(c, 'page:col.change'), kind: 'delta' },
    ],
    rows: r.what_changed.lines.map((l) => [
      f.t(`page:news.${l.direction}`),
      f.t(`page:change.${l.change}`),
      l.change === 'engine_moved'
        ? f.engine(l.what)
        : l.id !== null && l.what === l.id
          ? null
          : f.api(l.what),
      l.before,
      l.after,
      l.delta,
    ]),
  };
}

/**
 * Why a shown section's table is empty or short, a row of the "Report" table each: no state known
 * for the period, data sent in a shape not read, no money-prompt counts.
 */
function sectionNotes(c: Ctx, sections: readonly string[]): string[] {
  const { r, f } = c;
  const out: string[] = [];
  const heading = (s: string) => plain(f.t(`page:section.${s}`));
  const none = (key: 'buyer_intent' | 'recommendations' | 'reputation') =>
    `${heading(key)}: ${f.t('page:snapshot.none')}`;
  if (sections.includes('buyer-intent')) {
    const bi = r.buyer_intent.not_available;
    const mc = r.money_competitors;
    if (r.snapshots.buyer_intent.kind === 'none') out.push(none('buyer_intent'));
    else {
      if (bi) out.push(notReadNote(c, f.t('page:buyer.losses'), bi.endpoint, bi.reason));
      if (mc.missing !== null) out.push(f.t(`competitors:missing_${mc.missing}`));
      else if (mc.previous_missing !== null) out.push(f.t(`competitors:previous_${mc.previous_missing}`));
    }
  }
  if (sections.includes('recommendations') && r.snapshots.recommendations.kind === 'none')
    out.push(none('recommendations'));
  if (sections.includes('reputation')) {
    const rep = r.reputation.not_available;
    if (r.snapshots.reputation.kind === 'none') out.push(none('reputation'));
    else if (rep) out.push(notReadNote(c, f.t('page:col.claims'), rep.endpoint, rep.reason));
  }
  return out;
}

/** The report's tables, in the workbook's order: those of the sections the page shows. */
export function reportTables(
  r: ReportModel,
  style: ReportStyle,
  brandName: string | null = null,
): SheetTable[] {
  const rename = style.clientName && brandName ? { from: brandName, to: style.clientName } : null;
  const f = formattersOf(style, rename);
  // The language whose rules upper-case a header's first letter.
  const c: Ctx = { r, f, lang: f.htmlLang };
  const by: Record<string, () => SheetTable[]> = {
    kpis: () => [kpisTable(c)],
    trend: () => [trendTable(c)],
    engines: () => [enginesTable(c)],
    'buyer-intent': () => (r.snapshots.buyer_intent.kind === 'none' ? [] : buyerIntentTables(c)),
    recommendations: () => (r.snapshots.recommendations.kind === 'none' ? [] : recommendationTables(c)),
    reputation: () => (r.snapshots.reputation.kind === 'none' ? [] : reputationTables(c)),
    changes: () => [changesTable(c)],
  };
  const shown = style.sections.flatMap((s) => by[s]?.() ?? []);
  const about = reportTable(c, shown);
  for (const n of sectionNotes(c, style.sections)) about.rows.push([f.t('sheets:col_note'), n]);
  return [about, ...shown];
}

/** The workbook's properties: dated the period's effective end, by the agency, titled by client and period. */
export function workbookFacts(r: ReportModel, style: ReportStyle): WorkbookFacts {
  const f = formattersOf(style);
  const client = r.cover.client_name ?? r.brand_id;
  // The page's own words for percentage points, split around the number they carry.
  const [before = '', after = ''] = f.t('page:unit.pp', { value: '\u0001' }).split('\u0001');
  return {
    day: r.period_status.end,
    author: style.agencyName,
    title: `${client}: ${f.period(r.period, r.period_status.end, r.period_status.in_progress)}`,
    points: { before, after },
  };
}
