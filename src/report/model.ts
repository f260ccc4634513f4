// The report model: one workspace, one period, every figure from the curated rows (account-data.ts)
// and nothing else: no clock, no random ids, keys in a fixed order, so the same rows give the same
// report.json bytes (fields: docs/reports.md). A missing or drifted value is null, never 0. Pure.
import type { Row } from '../catalogue/types.js';
import { type ChangeState, type Changes, closedRecommendations, diffStates } from '../history/changes.js';
import {
  buyerIntentRow,
  dailyBasis,
  dailySide,
  longDay,
  periodTitle,
  snapshotBasis,
} from '../history/comparison.js';
import { compareText, delta, mean, num, shareOfVoiceUnit } from '../history/figures.js';
import { type Period, periodDays } from '../history/period.js';
import { isSuspect, losses } from '../history/snapshot.js';
import type { SnapshotSet, WorkspaceData } from './account-data.js';
import { changeLines } from './change-lines.js';
import { kpi, revisions } from './compare.js';
import { moneyCompetitors } from './competitors/money-competitors.js';
import { notAvailable } from './not-read.js';
import { KNOWN_PAYLOAD_KEYS as KNOWN } from './payload-keys.js';
import { MODEL_VERSION, type Report } from './report-shape.js';
import {
  byPriority,
  claims,
  conflicts,
  engineMeans,
  inPeriod,
  lastValue,
  recommendation,
  topCompetitors,
} from './section-rows.js';
import type { ReportStyle } from './style.js';
import { unrecognisedFields } from './unrecognised.js';

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const rowsOf = (s: SnapshotSet, t: keyof SnapshotSet): Row[] | undefined => s[t]?.rows;
const count = (rows: Row[] | undefined, keep: (r: Row) => boolean = () => true): number | null =>
  rows === undefined ? null : rows.filter(keep).length;

/** What a period's state is for "what changed": the same fields whether from data or a report.json. */
export function changeState(
  r: Pick<Report, 'recommendations' | 'reputation' | 'buyer_intent' | 'engines'>,
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

interface Sections {
  engines: Report['engines'];
  buyer_intent: Report['buyer_intent'];
  recommendations: Report['recommendations'];
  reputation: Report['reputation'];
}

/** The sections that describe the state at a period's end (also built for the previous period). */
function stateSections(
  s: SnapshotSet,
  engineRows: readonly Row[],
  previousEngineRows: readonly Row[],
  p: Period,
  allRecs: readonly Row[],
  previousPeriod: Period,
): Sections {
  const bi = buyerIntentRow(rowsOf(s, 'buyer_intent'));
  const ls = losses(bi);
  const latest = new Map(
    (rowsOf(s, 'brand_engine_scores') ?? []).map((r) => [String(r.engine), num(r.score)]),
  );
  const reputationRows = rowsOf(s, 'reputation') ?? [];
  const now = engineMeans(engineRows);
  const before = engineMeans(previousEngineRows);
  const recs = rowsOf(s, 'recommendations') ?? [];
  const claimRows = rowsOf(s, 'reputation_claims') ?? [];
  const perEngine = new Map<string, { claims: number; suspected_false: number }>();
  for (const r of claimRows) {
    const e = perEngine.get(String(r.engine)) ?? { claims: 0, suspected_false: 0 };
    e.claims += 1;
    if (isSuspect(r)) e.suspected_false += 1;
    perEngine.set(String(r.engine), e);
  }
  return {
    engines: [...new Set([...now.keys(), ...latest.keys()])].sort(compareText).map((engine) => {
      const score = now.get(engine) ?? null;
      const previous = before.get(engine) ?? null;
      const dates = new Set(
        previousEngineRows
          .filter((r) => String(r.engine) === engine && num(r.score) !== null)
          .map((r) => String(r.date)),
      );
      const side = dailySide(previousPeriod, dates);
      const b = dailyBasis(previousPeriod, side, side);
      return {
        engine,
        score,
        latest: latest.get(engine) ?? null,
        previous,
        delta: b.comparable ? delta(score, previous) : null,
        comparable: b.comparable,
        reason: b.reason,
        coverage: { current: b.current, previous: b.previous },
      };
    }),
    buyer_intent: {
      window_days: num(bi?.window_days),
      money_visibility: num(bi?.money_visibility),
      informational_visibility: num(bi?.informational_visibility),
      visibility_gap: num(bi?.visibility_gap),
      money_prompt_count: num(bi?.money_prompt_count),
      informational_prompt_count: num(bi?.informational_prompt_count),
      losses: ls,
      top_competitors: topCompetitors(ls),
      why_you_lose: {
        summary: str(bi?.why_you_lose_summary),
        reasons: Array.isArray(bi?.why_you_lose_reasons)
          ? (bi.why_you_lose_reasons as unknown[]).map(String)
          : [],
        generated_at: str(bi?.why_you_lose_generated_at),
      },
      not_available: notAvailable('buyer_intent', bi) ?? null,
      unrecognised: unrecognisedFields('buyer_intent', bi ? [bi] : [], KNOWN.buyer_intent),
    },
    recommendations: {
      open: recs
        .filter((r) => r.status === 'open')
        .map(recommendation)
        .sort(byPriority),
      closed_in_period: allRecs
        .filter(
          (r) =>
            (r.status === 'done' || r.status === 'dismissed') &&
            typeof r.updated_at === 'string' &&
            r.updated_at.slice(0, 10) >= p.from &&
            r.updated_at.slice(0, 10) <= p.to,
        )
        .map(recommendation)
        .sort(byPriority),
      unrecognised: unrecognisedFields('recommendations', recs, KNOWN.recommendations),
    },
    reputation: {
      suspected_false: claims(claimRows),
      conflicts: conflicts(rowsOf(s, 'reputation_conflicts')),
      claims_per_engine: [...perEngine]
        .map(([engine, c]) => ({ engine, ...c }))
        .sort((a, b) => compareText(a.engine, b.engine)),
      not_available: notAvailable('reputation', reputationRows[0]) ?? null,
      unrecognised: [
        ...unrecognisedFields('reputation', reputationRows, KNOWN.reputation),
        ...unrecognisedFields('reputation_claims', claimRows, KNOWN.reputation_claims),
        ...unrecognisedFields(
          'reputation_conflicts',
          rowsOf(s, 'reputation_conflicts') ?? [],
          KNOWN.reputation_conflicts,
        ),
      ],
    },
  };
}

/** A section not read on either side is not compared: its claims or losses are unknown, not gone. */
function unreadLeftOut(
  c: Changes,
  now: Sections,
  before: Pick<Report, 'reputation' | 'buyer_intent'>,
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
  /** The previous period's report.json, when there is one: only to say which figures were revised. */
  previousReport?: Report | undefined;
}

/** Days with a value in `column`. */
const datesOf = (rows: readonly Row[], column: string) =>
  new Set(rows.filter((r) => num(r[column]) !== null).map((r) => String(r.date)));

export function buildReport(i: ReportInput): Report {
  const w = i.workspace;
  const vis = w.daily.visibility_daily;
  const withValue = (r: Row) => num(r.overall_score) !== null || num(r.share_of_voice) !== null;
  const newestDay = inPeriod(vis, i.period).filter(withValue).at(-1)?.date;
  const end = i.inProgress && typeof newestDay === 'string' ? newestDay : i.period.to;
  // A period in progress is what it holds so far: 1 to 28 November on the 28th.
  const current: Period = { ...i.period, to: end };
  const cur = inPeriod(vis, current);
  const prev = inPeriod(vis, i.previous);
  const engCur = inPeriod(w.daily.visibility_engine_daily, current);
  const engPrev = inPeriod(w.daily.visibility_engine_daily, i.previous);
  // The previous period's own deltas are never shown: no period before it is read.
  const engPrevPrev: Row[] = [];
  const recsNow = rowsOf(w.end, 'recommendations') ?? [];
  const recsBefore = rowsOf(w.previousEnd, 'recommendations') ?? [];
  const now = stateSections(w.end, engCur, engPrev, current, recsNow, i.previous);
  const before = stateSections(w.previousEnd, engPrev, engPrevPrev, i.previous, recsBefore, i.previous);
  const baseline = stateSections(w.baseline, engPrev, engPrevPrev, i.previous, [], i.previous);

  const days = periodDays(current);
  const prevDays = periodDays(i.previous);
  const byDay = new Map(vis.map((r) => [String(r.date), r]));
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
  const withData = series.filter((d) => d.overall_score !== null || d.share_of_voice !== null).length;
  // What each comparison stands on (src/history/comparison.ts): days with data, snapshot dates.
  const daily = (column: string) =>
    dailyBasis(
      i.previous,
      dailySide(current, datesOf(cur, column)),
      dailySide(i.previous, datesOf(prev, column)),
    );
  const snapshot = (t: keyof SnapshotSet) =>
    snapshotBasis(i.previous, w.end[t]?.runDate ?? null, w.previousEnd[t]?.runDate ?? null);
  const earlier =
    prev.some(withValue) ||
    (['brands', 'recommendations', 'buyer_intent', 'reputation_claims'] as const).some(
      (t) => snapshot(t).comparable,
    );
  const noEarlier = `there is no earlier period to compare with: nothing is known for ${longDay(i.previous.from)} to ${longDay(i.previous.to)}`;
  const basis = (b: ReturnType<typeof daily>) =>
    earlier ? b : { ...b, comparable: false, reason: noEarlier };

  const brand = rowsOf(w.end, 'brands')?.[0];
  const reputationEnd = rowsOf(w.end, 'reputation_claims');
  const reputationBefore = rowsOf(w.previousEnd, 'reputation_claims');
  const used = [
    ...[w.end, w.previousEnd, w.baseline].flatMap((set) => Object.values(set).flatMap((s) => s?.rows ?? [])),
    ...vis,
    ...w.daily.visibility_engine_daily,
  ];
  const asOf =
    used
      .map((r) => str(r.extracted_at))
      .filter((x): x is string => x !== null)
      .sort(compareText)
      .at(-1) ?? null;
  const runs = [...new Set(used.map((r) => String(r.run_id)))].sort(compareText);

  // "What changed" is the same comparison as the KPIs and the engine table: the state at the
  // previous period's end (or the oldest other run within the period), engines by their means. A
  // section not read (not available) on either side is left out of it.
  const fromSections = w.baselineDate ? baseline : now;
  const from = changeState(fromSections);
  from.engines = now.engines.map((e) => ({ engine: e.engine, score: e.comparable ? e.previous : null }));
  const changes = unreadLeftOut(
    diffStates(from, changeState(now, closedRecommendations(recsNow))),
    now,
    fromSections,
  );

  const report: Omit<Report, 'revisions'> = {
    model_version: MODEL_VERSION,
    account: i.account,
    brand_id: w.brandId,
    period: i.period,
    previous_period: i.previous,
    period_status: {
      in_progress: i.inProgress === true,
      end,
      title: periodTitle(i.period, end, i.inProgress === true),
    },
    comparison: {
      earlier_period: earlier,
      note: earlier ? null : noEarlier,
    },
    cover: {
      client_name: i.style.clientName ?? str(brand?.name),
      client_domain: i.style.clientDomain ?? str(brand?.domain),
      agency_name: i.style.agencyName,
      data_as_of: asOf,
    },
    kpis: {
      overall_score_end: kpi(
        lastValue(cur, 'overall_score'),
        lastValue(prev, 'overall_score'),
        basis(daily('overall_score')),
      ),
      overall_score_mean: kpi(
        mean(cur.map((r) => num(r.overall_score))),
        mean(prev.map((r) => num(r.overall_score))),
        basis(daily('overall_score')),
      ),
      share_of_voice: kpi(
        mean(cur.map((r) => num(r.share_of_voice))),
        mean(prev.map((r) => num(r.share_of_voice))),
        basis(daily('share_of_voice')),
      ),
      money_visibility: kpi(
        now.buyer_intent.money_visibility,
        before.buyer_intent.money_visibility,
        basis(snapshot('buyer_intent')),
      ),
      visibility_gap: kpi(
        now.buyer_intent.visibility_gap,
        before.buyer_intent.visibility_gap,
        basis(snapshot('buyer_intent')),
      ),
      open_recommendations: kpi(
        count(rowsOf(w.end, 'recommendations'), (r) => r.status === 'open'),
        count(rowsOf(w.previousEnd, 'recommendations'), (r) => r.status === 'open'),
        basis(snapshot('recommendations')),
      ),
      // A snapshot not read is "not available" (null), never a count of 0.
      suspected_false_claims: kpi(
        now.reputation.not_available ? null : count(reputationEnd, isSuspect),
        before.reputation.not_available ? null : count(reputationBefore, isSuspect),
        basis(snapshot('reputation_claims')),
      ),
      engine_conflicts: kpi(
        count(rowsOf(w.end, 'reputation_conflicts')),
        count(rowsOf(w.previousEnd, 'reputation_conflicts')),
        basis(snapshot('reputation_conflicts')),
      ),
    },
    trend: {
      days: days.length,
      days_with_data: withData,
      coverage: `${withData} of ${days.length} days`,
      share_of_voice_unit: shareOfVoiceUnit(
        series.flatMap((d) => [d.share_of_voice, d.previous_share_of_voice]),
      ),
      series,
      unrecognised: unrecognisedFields('visibility_daily', [...prev, ...cur], KNOWN.visibility_daily),
    },
    engines: now.engines,
    buyer_intent: now.buyer_intent,
    money_competitors: moneyCompetitors(w.end, w.previousEnd, snapshot('buyer_intent').comparable),
    recommendations: now.recommendations,
    reputation: now.reputation,
    what_changed: {
      basis: w.baselineDate ? 'data' : 'none',
      since: w.baselineDate ?? null,
      ...changes,
      lines: changeLines(changes),
    },
    runs,
  };
  // Key order as documented: revisions after comparison.
  const { cover, kpis, trend, engines, buyer_intent, recommendations, reputation, what_changed } = report;
  return {
    model_version: report.model_version,
    account: report.account,
    brand_id: report.brand_id,
    period: report.period,
    previous_period: report.previous_period,
    period_status: report.period_status,
    comparison: report.comparison,
    revisions: revisions(report, i.previousReport),
    cover,
    kpis,
    trend,
    engines,
    buyer_intent,
    money_competitors: report.money_competitors,
    recommendations,
    reputation,
    what_changed,
    runs,
  };
}
