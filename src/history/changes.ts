// What changed between two states of a workspace: recommendations opened and closed, suspected-false
// claims flagged and cleared, engine conflicts new and resolved, winning competitors new and gone,
// the engines that moved most. One computation for a report's "what changed" (against the previous
// report or the previous period's data) and for the `brand_events` of each run (src/events/detect.ts).
// Pure: no I/O, no clock.
import { compareText, delta } from './figures.js';

export interface ChangeState {
  open_recommendations: { id: string; title: string | null }[];
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
  closed_recommendations: { id: string; title: string | null }[];
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

export function diffStates(before: ChangeState, after: ChangeState): Changes {
  const rec = (r: { id: string }) => r.id;
  const flag = (f: { engine: string; claim_id: string }) => `${f.engine}\u0000${f.claim_id}`;
  const name = (s: string) => s;
  return {
    new_recommendations: added(before.open_recommendations, after.open_recommendations, rec),
    closed_recommendations: added(after.open_recommendations, before.open_recommendations, rec),
    new_flags: added(before.flags, after.flags, flag),
    cleared_flags: added(after.flags, before.flags, flag),
    new_conflicts: added(before.conflicts, after.conflicts, rec),
    resolved_conflicts: added(after.conflicts, before.conflicts, rec),
    new_competitors: added(before.competitors, after.competitors, name),
    gone_competitors: added(after.competitors, before.competitors, name),
    engine_movers: engineMoves(before.engines, after.engines).slice(0, MOVERS),
  };
}
