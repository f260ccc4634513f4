// The report model: one workspace, one period, every figure from the curated rows (account-data.ts)
// and nothing else: no clock, no random ids, keys in a fixed order, so the same rows give the same
// report.json bytes. Every field is documented in docs/reports.md. A value that is missing or drifted
// is null (the HTML says "n/a"), never 0. Pure.
import type { Row } from '../catalogue/types.js';
import { type ChangeState, type Changes, closedRecommendations, diffStates } from '../history/changes.js';
import { compareText, delta, mean, num, shareOfVoiceUnit } from '../history/figures.js';
import { type Period, periodDays } from '../history/period.js';
import { isSuspect, type Loss, losses } from '../history/snapshot.js';
import type { SnapshotSet, WorkspaceData } from './account-data.js';
import { changeLines } from './change-lines.js';
import { notAvailable } from './not-read.js';
import { KNOWN_PAYLOAD_KEYS as KNOWN } from './payload-keys.js';
import {
  type Claim,
  type Conflict,
  type Kpi,
  MODEL_VERSION,
  type Recommendation,
  type Report,
} from './report-shape.js';
import type { ReportStyle } from './style.js';
import { unrecognisedFields } from './unrecognised.js';

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const rowsOf = (s: SnapshotSet, t: keyof SnapshotSet): Row[] | undefined => s[t]?.rows;
const count = (rows: Row[] | undefined, keep: (r: Row) => boolean = () => true): number | null =>
  rows === undefined ? null : rows.filter(keep).length;
const kpi = (value: number | null, previous: number | null): Kpi => ({
  value,
  previous,
  delta: delta(value, previous),
});

const PRIORITY_RANK: Record<string, number> = { high: 0, medium: 1, low: 2 };

/** The buyer-intent window closest to the period's length (the longer one on a tie). */
function buyerIntentRow(rows: Row[] | undefined, days: number): Row | undefined {
  return [...(rows ?? [])].sort((a, b) => {
    const da = Math.abs(Number(a.window_days) - days);
    const db = Math.abs(Number(b.window_days) - days);
    return da - db || Number(b.window_days) - Number(a.window_days);
  })[0];
}

function inPeriod(rows: readonly Row[], p: Period): Row[] {
  return rows.filter((r) => String(r.date) >= p.from && String(r.date) <= p.to);
}

function lastValue(rows: readonly Row[], column: string): number | null {
  for (let i = rows.length - 1; i >= 0; i--) {
    const v = num(rows[i]?.[column]);
    if (v !== null) return v;
  }
  return null;
}

function engineMeans(rows: readonly Row[]): Map<string, number | null> {
  const by = new Map<string, (number | null)[]>();
  for (const r of rows) {
    const e = String(r.engine);
    const scores = by.get(e);
    if (scores) scores.push(num(r.score));
    else by.set(e, [num(r.score)]);
  }
  return new Map([...by].map(([e, xs]) => [e, mean(xs)]));
}

function topCompetitors(ls: readonly Loss[]): { name: string; losses: number }[] {
  const n = new Map<string, number>();
  for (const l of ls) if (l.winner_name !== null) n.set(l.winner_name, (n.get(l.winner_name) ?? 0) + 1);
  return [...n]
    .map(([name, losses]) => ({ name, losses }))
    .sort((a, b) => b.losses - a.losses || compareText(a.name, b.name));
}

function recommendation(r: Row): Recommendation {
  return {
    id: String(r.recommendation_id),
    title: str(r.title),
    priority: str(r.priority),
    category: str(r.category),
    status: str(r.status),
    impact_score: num(r.impact_score),
    updated_at: str(r.updated_at),
  };
}

function byPriority(a: Recommendation, b: Recommendation): number {
  const rank = (r: Recommendation) => PRIORITY_RANK[r.priority ?? ''] ?? 3;
  return rank(a) - rank(b) || (b.impact_score ?? -1) - (a.impact_score ?? -1) || compareText(a.id, b.id);
}

function claims(rows: Row[] | undefined): Claim[] {
  return (rows ?? [])
    .filter(isSuspect)
    .map((r) => ({
      engine: String(r.engine),
      claim_id: String(r.claim_id),
      claim: str(r.claim),
      sentiment: str(r.sentiment),
      flag_reason: str(r.flag_reason),
    }))
    .sort((a, b) => compareText(a.engine, b.engine) || compareText(a.claim_id, b.claim_id));
}

function conflicts(rows: Row[] | undefined): Conflict[] {
  return (rows ?? [])
    .map((r) => ({
      id: String(r.conflict_id),
      topic: str(r.topic),
      engines: Array.isArray(r.engines) ? (r.engines as unknown[]).map(String) : [],
      description: str(r.description),
    }))
    .sort((a, b) => compareText(a.id, b.id));
}

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
): Sections {
  const bi = buyerIntentRow(rowsOf(s, 'buyer_intent'), periodDays(p).length);
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
      return { engine, score, latest: latest.get(engine) ?? null, previous, delta: delta(score, previous) };
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
  /** The previous period's report.json, when there is one: "what changed" diffs against it. */
  previousReport?: Report | undefined;
}

export function buildReport(i: ReportInput): Report {
  const w = i.workspace;
  const vis = w.daily.visibility_daily;
  const cur = inPeriod(vis, i.period);
  const prev = inPeriod(vis, i.previous);
  const engCur = inPeriod(w.daily.visibility_engine_daily, i.period);
  const engPrev = inPeriod(w.daily.visibility_engine_daily, i.previous);
  // The previous period's own deltas are never shown: no period before it is read.
  const engPrevPrev: Row[] = [];
  const recsNow = rowsOf(w.end, 'recommendations') ?? [];
  const recsBefore = rowsOf(w.previousEnd, 'recommendations') ?? [];
  const now = stateSections(w.end, engCur, engPrev, i.period, recsNow);
  const before = stateSections(w.previousEnd, engPrev, engPrevPrev, i.previous, recsBefore);
  const baseline = stateSections(w.baseline, engPrev, engPrevPrev, i.previous, []);

  const days = periodDays(i.period);
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

  const basis = i.previousReport ? 'previous report' : w.baselineDate ? 'data' : 'none';
  const changes = unreadLeftOut(
    diffStates(
      changeState(i.previousReport ?? (w.baselineDate ? baseline : now)),
      changeState(now, closedRecommendations(recsNow)),
    ),
    now,
    i.previousReport ?? (w.baselineDate ? baseline : now),
  );

  return {
    model_version: MODEL_VERSION,
    account: i.account,
    brand_id: w.brandId,
    period: i.period,
    previous_period: i.previous,
    cover: {
      client_name: i.style.clientName ?? str(brand?.name),
      client_domain: i.style.clientDomain ?? str(brand?.domain),
      agency_name: i.style.agencyName,
      data_as_of: asOf,
    },
    kpis: {
      overall_score_end: kpi(lastValue(cur, 'overall_score'), lastValue(prev, 'overall_score')),
      overall_score_mean: kpi(
        mean(cur.map((r) => num(r.overall_score))),
        mean(prev.map((r) => num(r.overall_score))),
      ),
      share_of_voice: kpi(
        mean(cur.map((r) => num(r.share_of_voice))),
        mean(prev.map((r) => num(r.share_of_voice))),
      ),
      money_visibility: kpi(now.buyer_intent.money_visibility, before.buyer_intent.money_visibility),
      visibility_gap: kpi(now.buyer_intent.visibility_gap, before.buyer_intent.visibility_gap),
      open_recommendations: kpi(
        count(rowsOf(w.end, 'recommendations'), (r) => r.status === 'open'),
        count(rowsOf(w.previousEnd, 'recommendations'), (r) => r.status === 'open'),
      ),
      // A snapshot not read is "not available" (null), never a count of 0.
      suspected_false_claims: kpi(
        now.reputation.not_available ? null : count(reputationEnd, isSuspect),
        before.reputation.not_available ? null : count(reputationBefore, isSuspect),
      ),
      engine_conflicts: kpi(
        count(rowsOf(w.end, 'reputation_conflicts')),
        count(rowsOf(w.previousEnd, 'reputation_conflicts')),
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
    recommendations: now.recommendations,
    reputation: now.reputation,
    what_changed: {
      basis,
      since: i.previousReport ? i.previousReport.period.label : (w.baselineDate ?? null),
      ...changes,
      lines: changeLines(changes),
    },
    runs,
  };
}
