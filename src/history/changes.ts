// What changed between two states of a workspace: recommendations opened, closed (done or dismissed)
// and no longer listed, suspected-false claims flagged and cleared, engine conflicts new and
// resolved, winning competitors new and gone, the engines that moved most. One computation for a report's "what changed" (against the previous
// report or the previous period's data) and for the `brand_events` of each run (src/events/detect.ts).
// Pure: no I/O, no clock.
import { compareText, delta } from './figures.js';

export interface ChangeState {
  open_recommendations: { id: string; title: string | null }[];
  /**
   * Recommendations the API lists as done or dismissed. A recommendation open before is "closed"
   * only when the later state lists it here; one the API no longer lists at all is "no longer
   * listed" (unlisted_recommendations), never closed. Absent (a report.json's state): none known.
   */
  closed_recommendations?: { id: string; title: string | null; status: string }[];
  flags: { engine: string; claim_id: string; claim: string | null }[];
  conflicts: { id: string; topic: string | null }[];
  /** Names of competitors that won at least one money prompt. */
  competitors: string[];
  engines: { engine: string; score: number | null }[];
}

export interface EngineMove {
  engine: string;
  before: number;
  after: number;
  delta: number;
}

export interface Changes {
  new_recommendations: { id: string; title: string | null }[];
  /** Open before, listed as done or dismissed now (`status` says which). */
  closed_recommendations: { id: string; title: string | null; status: string }[];
  /** Open before, and now neither open nor listed as done or dismissed: the API no longer lists it. */
  unlisted_recommendations: { id: string; title: string | null }[];
  new_flags: { engine: string; claim_id: string; claim: string | null }[];
  cleared_flags: { engine: string; claim_id: string; claim: string | null }[];
  new_conflicts: { id: string; topic: string | null }[];
  resolved_conflicts: { id: string; topic: string | null }[];
  new_competitors: string[];
  gone_competitors: string[];
  /** Largest absolute score changes first (at most MOVERS). */
  engine_movers: EngineMove[];
}

export const MOVERS = 5;

function added<T>(before: readonly T[], after: readonly T[], key: (x: T) => string): T[] {
  const seen = new Set(before.map(key));
  return after.filter((x) => !seen.has(key(x)));
}

/** Every engine whose score moved (both scores known), the largest absolute change first. */
export function engineMoves(before: ChangeState['engines'], after: ChangeState['engines']): EngineMove[] {
  const prior = new Map(before.map((e) => [e.engine, e.score]));
  const movers: EngineMove[] = [];
  for (const e of after) {
    const b = prior.get(e.engine) ?? null;
    const d = delta(e.score, b);
    if (d !== null && d !== 0 && b !== null && e.score !== null)
      movers.push({ engine: e.engine, before: b, after: e.score, delta: d });
  }
  return movers.sort((a, b) => Math.abs(b.delta) - Math.abs(a.delta) || compareText(a.engine, b.engine));
}

/** A recommendation's status that closes it: the API said it was done or dismissed. */
export const CLOSED_STATUSES: ReadonlySet<string> = new Set(['done', 'dismissed']);

/** The rows of a recommendations snapshot the API lists as done or dismissed, by id. */
export function closedRecommendations(
  rows: readonly Record<string, unknown>[],
): NonNullable<ChangeState['closed_recommendations']> {
  return rows
    .filter((r) => typeof r.status === 'string' && CLOSED_STATUSES.has(r.status))
    .map((r) => ({
      id: String(r.recommendation_id),
      title: typeof r.title === 'string' ? r.title : null,
      status: String(r.status),
    }))
    .sort((a, b) => compareText(a.id, b.id));
}

export function diffStates(before: ChangeState, after: ChangeState): Changes {
  const rec = (r: { id: string }) => r.id;
  const flag = (f: { engine: string; claim_id: string }) => `${f.engine}\u0000${f.claim_id}`;
  const name = (s: string) => s;
  const noLongerOpen = added(after.open_recommendations, before.open_recommendations, rec);
  const closedNow = new Map((after.closed_recommendations ?? []).map((r) => [r.id, r]));
  return {
    new_recommendations: added(before.open_recommendations, after.open_recommendations, rec),
    closed_recommendations: noLongerOpen.flatMap((r) => {
      const c = closedNow.get(r.id);
      return c ? [{ id: r.id, title: c.title ?? r.title, status: c.status }] : [];
    }),
    unlisted_recommendations: noLongerOpen.filter((r) => !closedNow.has(r.id)),
    new_flags: added(before.flags, after.flags, flag),
    cleared_flags: added(after.flags, before.flags, flag),
    new_conflicts: added(before.conflicts, after.conflicts, rec),
    resolved_conflicts: added(after.conflicts, before.conflicts, rec),
    new_competitors: added(before.competitors, after.competitors, name),
    gone_competitors: added(after.competitors, before.competitors, name),
    engine_movers: engineMoves(before.engines, after.engines).slice(0, MOVERS),
  };
}
