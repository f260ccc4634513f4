// The report model: one workspace, one period, every figure from the curated rows (account-data.ts)
// and nothing else: no clock, no random ids, keys in a fixed order, so the same rows give the same
// report.json bytes (fields: docs/reports.md). Numbers and codes only: the renderings word them
// (../render/reasons.ts, ../render/report-json.ts). A missing or drifted value is null, never 0.
// Pure.
import type { Row } from '../../catalogue/types.js';
import { type ChangeState, type Changes, closedRecommendations, diffStates } from '../../history/changes.js';
import { type Basis, dailyBasis, dailySide, snapshotBasis } from '../../history/comparison.js';
import { compareText, mean, num, shareOfVoiceUnit } from '../../history/figures.js';
import { type CompareBasis, type Period, periodDays } from '../../history/period.js';
import { isSuspect } from '../../history/snapshot.js';
import { moneyCompetitors } from '../competitors/money-competitors.js';
import { competitorTrend } from '../competitors/trend.js';
import { goalsProgress } from '../goals/progress.js';
import type { ReportStyle } from '../style.js';
import type { SnapshotSet, WorkspaceData } from './account-data.js';
import { changeLines } from './change-lines.js';
import { kpi, statedOtherwise } from './compare.js';
import { KNOWN_PAYLOAD_KEYS as KNOWN } from './payload-keys.js';
import type { StatedFigures } from './previous-report.js';
import { openTitles } from './recommendation-titles.js';
import { MODEL_VERSION, type ReportModel } from './report-shape.js';
import { inPeriod, lastValue } from './section-rows.js';
import { snapshotsShown } from './snapshots-shown.js';
import { rowsOf, type Sections, stateSections } from './state-sections.js';
import { unrecognisedFields } from './unrecognised.js';

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const count = (rows: Row[] | undefined, keep: (r: Row) => boolean = () => true): number | null =>
  rows === undefined ? null : rows.filter(keep).length;

/** What a period's state is for "what changed": the same fields whether from data or a report.json. */
export function changeState(
  r: Pick<ReportModel, 'recommendations' | 'reputation' | 'buyer_intent' | 'engines'>,
  closed: ChangeState['closed_recommendations'] = [],
): ChangeState {
  return {
    open_recommendations: r.recommendations.open.map((x) => ({ id: x.id, title: x.title })),
    closed_recommendations: closed,
    flags: r.reputation.suspected_false.map((c) => ({
      engine: c.engine,
      claim_id: c.claim_id,
      claim: c.claim,
    })),
    conflicts: r.reputation.conflicts.map((c) => ({ id: c.id, topic: c.topic })),
    competitors: r.buyer_intent.top_competitors.map((c) => c.name).sort(compareText),
    engines: r.engines.map((e) => ({ engine: e.engine, score: e.score })),
  };
}

/** A section not read on either side is not compared: its claims or losses are unknown, not gone. */
function unreadLeftOut(
  c: Changes,
  now: Sections,
  before: Pick<ReportModel, 'reputation' | 'buyer_intent'>,
): Changes {
  const reputation =
    now.reputation.not_available !== null || (before.reputation.not_available ?? null) !== null;
  const buyer =
    now.buyer_intent.not_available !== null || (before.buyer_intent.not_available ?? null) !== null;
  return {
    ...c,
    ...(reputation ? { new_flags: [], cleared_flags: [] } : {}),
    ...(buyer ? { new_competitors: [], gone_competitors: [] } : {}),
  };
}

export interface ReportInput {
  account: string;
  workspace: WorkspaceData;
  period: Period;
  previous: Period;
  style: ReportStyle;
  /**
   * No complete run is dated after the period's last day (src/history/comparison.ts inProgress):
   * the period is named "to date" and ends on its newest day with data.
   */
  inProgress?: boolean | undefined;
  /**
   * What the previous period's report.json stated, of whichever release: only to say which figures
   * were revised, or moved by a rule changed since (./compare.ts).
   */
  previousReport?: StatedFigures | undefined;
  /**
   * What `previous` is (`year`: the same period a year earlier) and, on `year`, the first day of the
   * history when no complete run reaches into it (src/report/make.ts); unset: the period before.
   */
  comparison?: { basis: CompareBasis; historyBegins: string | null } | undefined;
}

/** Days with a value in `column`. */
const datesOf = (rows: readonly Row[], column: string) =>
  new Set(rows.filter((r) => num(r[column]) !== null).map((r) => String(r.date)));

/** What the model's parts share: the rows of the period (as far as it goes) and of the one before. */
interface Frame {
  i: ReportInput;
  w: WorkspaceData;
  /** The period as far as it goes: 1 to 28 November on the 28th while November runs. */
  current: Period;
  /** visibility_daily: all rows read, those of `current`, those of the previous period. */
  vis: readonly Row[];
  cur: Row[];
  prev: Row[];
  /** The state sections at the period's end. */
  now: Sections;
}

const withValue = (r: Row) => num(r.overall_score) !== null || num(r.share_of_voice) !== null;

/** A period in progress is what it holds so far: it ends on its newest day with data. */
function effectiveEnd(i: ReportInput): string {
  const newestDay = inPeriod(i.workspace.daily.visibility_daily, i.period).filter(withValue).at(-1)?.date;
  return i.inProgress && typeof newestDay === 'string' ? newestDay : i.period.to;
}

/** The daily series, day k of the period beside day k of the previous one. */
function trendOf(x: Frame): ReportModel['trend'] {
  const days = periodDays(x.current);
  const prevDays = periodDays(x.i.previous);
  const byDay = new Map(x.vis.map((r) => [String(r.date), r]));
  const series = days.map((date, k) => {
    const d = byDay.get(date);
    const pd = prevDays[k] ?? '';
    const p = byDay.get(pd);
    return {
      date,
      overall_score: num(d?.overall_score),
      share_of_voice: num(d?.share_of_voice),
      previous_date: pd,
      previous_overall_score: num(p?.overall_score),
      previous_share_of_voice: num(p?.share_of_voice),
    };
  });
  return {
    days: days.length,
    days_with_data: series.filter((d) => d.overall_score !== null || d.share_of_voice !== null).length,
    share_of_voice_unit: shareOfVoiceUnit(
      series.flatMap((d) => [d.share_of_voice, d.previous_share_of_voice]),
    ),
    series,
    unrecognised: unrecognisedFields('visibility_daily', [...x.prev, ...x.cur], KNOWN.visibility_daily),
  };
}

/** What each KPI's comparison stands on (src/history/comparison.ts): days with data, snapshot dates. */
function bases(x: Frame) {
  const { i, w } = x;
  const daily = (column: string) =>
    dailyBasis(
      i.previous,
      dailySide(x.current, datesOf(x.cur, column)),
      dailySide(i.previous, datesOf(x.prev, column)),
    );
  const snapshot = (t: keyof SnapshotSet) =>
    snapshotBasis(i.previous, w.end[t]?.runDate ?? null, w.previousEnd[t]?.runDate ?? null);
  // Anything known of the previous period: else it is a first report, and nothing compares.
  const earlier =
    x.prev.some(withValue) ||
    (['brands', 'recommendations', 'buyer_intent', 'reputation_claims'] as const).some(
      (t) => snapshot(t).comparable,
    );
  const only = (b: Basis): Basis => (earlier ? b : { ...b, comparable: false });
  return {
    earlier,
    daily: (column: string) => only(daily(column)),
    snapshot: (t: keyof SnapshotSet) => only(snapshot(t)),
    /** Whether the previous buyer-intent state may stand beside this one, first report or not. */
    buyerIntentComparable: snapshot('buyer_intent').comparable,
  };
}

function kpisOf(x: Frame, before: Sections, b: ReturnType<typeof bases>): ReportModel['kpis'] {
  const { w, cur, prev, now } = x;
  const means = (rows: Row[], column: string) => mean(rows.map((r) => num(r[column])));
  return {
    overall_score_end: kpi(
      lastValue(cur, 'overall_score'),
      lastValue(prev, 'overall_score'),
      b.daily('overall_score'),
    ),
    overall_score_mean: kpi(
      means(cur, 'overall_score'),
      means(prev, 'overall_score'),
      b.daily('overall_score'),
    ),
    share_of_voice: kpi(
      means(cur, 'share_of_voice'),
      means(prev, 'share_of_voice'),
      b.daily('share_of_voice'),
    ),
    money_visibility: kpi(
      now.buyer_intent.money_visibility,
      before.buyer_intent.money_visibility,
      b.snapshot('buyer_intent'),
    ),
    visibility_gap: kpi(
      now.buyer_intent.visibility_gap,
      before.buyer_intent.visibility_gap,
      b.snapshot('buyer_intent'),
    ),
    // One per title, as the page lists them (./recommendation-titles.ts).
    open_recommendations: kpi(
      openTitles(rowsOf(w.end, 'recommendations')),
      openTitles(rowsOf(w.previousEnd, 'recommendations')),
      b.snapshot('recommendations'),
    ),
    // A snapshot not read is "not available" (null), never a count of 0.
    suspected_false_claims: kpi(
      now.reputation.not_available ? null : count(rowsOf(w.end, 'reputation_claims'), isSuspect),
      before.reputation.not_available ? null : count(rowsOf(w.previousEnd, 'reputation_claims'), isSuspect),
      b.snapshot('reputation_claims'),
    ),
    engine_conflicts: kpi(
      count(rowsOf(w.end, 'reputation_conflicts')),
      count(rowsOf(w.previousEnd, 'reputation_conflicts')),
      b.snapshot('reputation_conflicts'),
    ),
  };
}

/** Every row the report used: the newest extraction among them, and their runs. */
function provenance(w: WorkspaceData): { asOf: string | null; runs: string[] } {
  const used = [
    ...[w.end, w.previousEnd, w.baseline].flatMap((set) => Object.values(set).flatMap((s) => s?.rows ?? [])),
    ...w.daily.visibility_daily,
    ...w.daily.visibility_engine_daily,
  ];
  const asOf =
    used
      .map((r) => str(r.extracted_at))
      .filter((x): x is string => x !== null)
      .sort(compareText)
      .at(-1) ?? null;
  return { asOf, runs: [...new Set(used.map((r) => String(r.run_id)))].sort(compareText) };
}

/**
 * "What changed" is the same comparison as the KPIs and the engine table: the state at the previous
 * period's end (or the oldest other run within the period), engines by their means. A section not
 * read (not available) on either side is left out of it.
 */
function whatChanged(x: Frame, baseline: Sections): ReportModel['what_changed'] {
  const { w, now } = x;
  const fromSections = w.baselineDate ? baseline : now;
  const from = changeState(fromSections);
  from.engines = now.engines.map((e) => ({ engine: e.engine, score: e.comparable ? e.previous : null }));
  const recsNow = rowsOf(w.end, 'recommendations') ?? [];
  const changes = unreadLeftOut(
    diffStates(from, changeState(now, closedRecommendations(recsNow))),
    now,
    fromSections,
  );
  return {
    basis: w.baselineDate ? 'data' : 'none',
    since: w.baselineDate ?? null,
    ...changes,
    lines: changeLines(changes),
  };
}

/** What the period is compared with; a history that does not reach back compares nothing. */
function comparisonOf(i: ReportInput, earlier: boolean): ReportModel['comparison'] {
  const begins = i.comparison?.historyBegins ?? null;
  return {
    earlier_period: earlier && begins === null,
    basis: i.comparison?.basis ?? 'previous',
    history_begins: begins,
  };
}

export function buildModel(i: ReportInput): ReportModel {
  const w = i.workspace;
  const vis = w.daily.visibility_daily;
  const end = effectiveEnd(i);
  const current: Period = { ...i.period, to: end };
  const engCur = inPeriod(w.daily.visibility_engine_daily, current);
  const engPrev = inPeriod(w.daily.visibility_engine_daily, i.previous);
  const state = (set: SnapshotSet, engines: [Row[], Row[]], period: Period, allRecommendations: Row[]) =>
    stateSections({
      set,
      engineRows: engines[0],
      previousEngineRows: engines[1],
      period,
      allRecommendations,
      previousPeriod: i.previous,
    });
  const now = state(w.end, [engCur, engPrev], current, rowsOf(w.end, 'recommendations') ?? []);
  // The previous period's own deltas are never shown: no period before it is read.
  const before = state(
    w.previousEnd,
    [engPrev, []],
    i.previous,
    rowsOf(w.previousEnd, 'recommendations') ?? [],
  );
  const baseline = state(w.baseline, [engPrev, []], i.previous, []);
  const x: Frame = { i, w, current, vis, cur: inPeriod(vis, current), prev: inPeriod(vis, i.previous), now };
  const b = bases(x);
  const brand = rowsOf(w.end, 'brands')?.[0];
  const { asOf, runs } = provenance(w);
  const kpis = kpisOf(x, before, b);
  const trend = trendOf(x);
  const status = { in_progress: i.inProgress === true, end };
  // Only a client with goals has the field: a report without goals keeps its bytes.
  const goals = goalsProgress({ kpis, trend, period: i.period, period_status: status }, i.style.goals);
  const model: Omit<ReportModel, 'revisions' | 'restated'> = {
    model_version: MODEL_VERSION,
    account: i.account,
    brand_id: w.brandId,
    period: i.period,
    previous_period: i.previous,
    period_status: status,
    comparison: comparisonOf(i, b.earlier),
    cover: {
      client_name: i.style.clientName ?? str(brand?.name),
      client_domain: i.style.clientDomain ?? str(brand?.domain),
      agency_name: i.style.agencyName,
      data_as_of: asOf,
    },
    kpis,
    ...(goals.length > 0 ? { goals } : {}),
    trend,
    engines: now.engines,
    buyer_intent: now.buyer_intent,
    money_competitors: moneyCompetitors(w.end, w.previousEnd, b.buyerIntentComparable),
    competitor_trend: competitorTrend(w.moneyTrend ?? []),
    recommendations: now.recommendations,
    reputation: now.reputation,
    what_changed: whatChanged(x, baseline),
    snapshots: snapshotsShown(w.end, i.period),
    runs,
  };
  // Key order as documented: revisions and restated after comparison.
  const { model_version, account, brand_id, period, previous_period, period_status, comparison, ...rest } =
    model;
  return {
    ...{ model_version, account, brand_id, period, previous_period, period_status, comparison },
    ...statedOtherwise(model, i.previousReport),
    ...rest,
  };
}
