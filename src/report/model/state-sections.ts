// The sections that describe a workspace's state at a period's end, as the model (./model.ts) holds
// them: the engine table, buyer intent, recommendations, reputation. Built for the period and for the
// previous period (what "what changed" and the KPIs compare with). Pure.
import type { Row } from '../../catalogue/types.js';
import { buyerIntentRow, dailyBasis, dailySide } from '../../history/comparison.js';
import { compareText, delta, num } from '../../history/figures.js';
import type { Period } from '../../history/period.js';
import { isSuspect, losses } from '../../history/snapshot.js';
import type { SnapshotSet } from './account-data.js';
import { notAvailable } from './not-read.js';
import { KNOWN_PAYLOAD_KEYS as KNOWN } from './payload-keys.js';
import type { ReportModel } from './report-shape.js';
import {
  byPriority,
  claims,
  conflicts,
  engineMeans,
  recommendation,
  topCompetitors,
} from './section-rows.js';
import { unrecognisedFields } from './unrecognised.js';

export interface Sections {
  engines: ReportModel['engines'];
  buyer_intent: ReportModel['buyer_intent'];
  recommendations: ReportModel['recommendations'];
  reputation: ReportModel['reputation'];
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
export const rowsOf = (s: SnapshotSet, t: keyof SnapshotSet): Row[] | undefined => s[t]?.rows;

/** What the state sections of a period are built from. */
export interface StateInput {
  /** The snapshots at the period's end. */
  set: SnapshotSet;
  /** The engines' daily scores of the period and of the period before it. */
  engineRows: readonly Row[];
  previousEngineRows: readonly Row[];
  period: Period;
  /** The recommendations whose closing in the period is told (`closed_in_period`). */
  allRecommendations: readonly Row[];
  /** The report's previous period: an engine's previous mean needs data on half its days. */
  previousPeriod: Period;
}

/** Each engine's mean over the period, the one before, and its latest score from GET /brands. */
function engineSection(i: StateInput): ReportModel['engines'] {
  const latest = new Map(
    (rowsOf(i.set, 'brand_engine_scores') ?? []).map((r) => [String(r.engine), num(r.score)]),
  );
  const now = engineMeans(i.engineRows);
  const before = engineMeans(i.previousEngineRows);
  return [...new Set([...now.keys(), ...latest.keys()])].sort(compareText).map((engine) => {
    const score = now.get(engine) ?? null;
    const previous = before.get(engine) ?? null;
    const dates = (rows: readonly Row[]) =>
      new Set(
        rows.filter((r) => String(r.engine) === engine && num(r.score) !== null).map((r) => String(r.date)),
      );
    // Each side its own days: the current period's coverage is this period's, never the previous one's.
    const b = dailyBasis(
      i.previousPeriod,
      dailySide(i.period, dates(i.engineRows)),
      dailySide(i.previousPeriod, dates(i.previousEngineRows)),
    );
    return {
      engine,
      score,
      latest: latest.get(engine) ?? null,
      previous,
      delta: b.comparable ? delta(score, previous) : null,
      comparable: b.comparable,
      coverage: { current: b.current, previous: b.previous },
    };
  });
}

function buyerIntentSection(set: SnapshotSet): ReportModel['buyer_intent'] {
  const bi = buyerIntentRow(rowsOf(set, 'buyer_intent'));
  const ls = losses(bi);
  return {
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
  };
}

function recommendationSection(i: StateInput): ReportModel['recommendations'] {
  const recs = rowsOf(i.set, 'recommendations') ?? [];
  const p = i.period;
  return {
    open: recs
      .filter((r) => r.status === 'open')
      .map(recommendation)
      .sort(byPriority),
    closed_in_period: i.allRecommendations
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
  };
}

function reputationSection(set: SnapshotSet): ReportModel['reputation'] {
  const reputationRows = rowsOf(set, 'reputation') ?? [];
  const claimRows = rowsOf(set, 'reputation_claims') ?? [];
  const perEngine = new Map<string, { claims: number; suspected_false: number }>();
  for (const r of claimRows) {
    const e = perEngine.get(String(r.engine)) ?? { claims: 0, suspected_false: 0 };
    e.claims += 1;
    if (isSuspect(r)) e.suspected_false += 1;
    perEngine.set(String(r.engine), e);
  }
  return {
    suspected_false: claims(claimRows),
    conflicts: conflicts(rowsOf(set, 'reputation_conflicts')),
    claims_per_engine: [...perEngine]
      .map(([engine, c]) => ({ engine, ...c }))
      .sort((a, b) => compareText(a.engine, b.engine)),
    not_available: notAvailable('reputation', reputationRows[0]) ?? null,
    unrecognised: [
      ...unrecognisedFields('reputation', reputationRows, KNOWN.reputation),
      ...unrecognisedFields('reputation_claims', claimRows, KNOWN.reputation_claims),
      ...unrecognisedFields(
        'reputation_conflicts',
        rowsOf(set, 'reputation_conflicts') ?? [],
        KNOWN.reputation_conflicts,
      ),
    ],
  };
}

/** The sections that describe the state at a period's end (also built for the previous period). */
export function stateSections(i: StateInput): Sections {
  return {
    engines: engineSection(i),
    buyer_intent: buyerIntentSection(i.set),
    recommendations: recommendationSection(i),
    reputation: reputationSection(i.set),
  };
}
