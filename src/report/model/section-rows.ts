// The rows of a report's sections, as the model (./model.ts) shows them: recommendations in priority
// order, suspected-false claims, conflicts, competitors by losses, per-engine means. Pure.
import type { Row } from '../../catalogue/types.js';
import { compareText, mean, num } from '../../history/figures.js';
import type { Period } from '../../history/period.js';
import { isSuspect, type Loss } from '../../history/snapshot.js';
import type { Claim, Conflict, Recommendation } from './report-shape.js';

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

const PRIORITY_RANK: Record<string, number> = { high: 0, medium: 1, low: 2 };

export function inPeriod(rows: readonly Row[], p: Period): Row[] {
  return rows.filter((r) => String(r.date) >= p.from && String(r.date) <= p.to);
}

export function lastValue(rows: readonly Row[], column: string): number | null {
  for (let i = rows.length - 1; i >= 0; i--) {
    const v = num(rows[i]?.[column]);
    if (v !== null) return v;
  }
  return null;
}

export function engineMeans(rows: readonly Row[]): Map<string, number | null> {
  const by = new Map<string, (number | null)[]>();
  for (const r of rows) {
    const e = String(r.engine);
    const scores = by.get(e);
    if (scores) scores.push(num(r.score));
    else by.set(e, [num(r.score)]);
  }
  return new Map([...by].map(([e, xs]) => [e, mean(xs)]));
}

export function topCompetitors(ls: readonly Loss[]): { name: string; losses: number }[] {
  const n = new Map<string, number>();
  for (const l of ls) if (l.winner_name !== null) n.set(l.winner_name, (n.get(l.winner_name) ?? 0) + 1);
  return [...n]
    .map(([name, losses]) => ({ name, losses }))
    .sort((a, b) => b.losses - a.losses || compareText(a.name, b.name));
}

export function recommendation(r: Row): Recommendation {
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

export function byPriority(a: Recommendation, b: Recommendation): number {
  const rank = (r: Recommendation) => PRIORITY_RANK[r.priority ?? ''] ?? 3;
  return rank(a) - rank(b) || (b.impact_score ?? -1) - (a.impact_score ?? -1) || compareText(a.id, b.id);
}

export function claims(rows: Row[] | undefined): Claim[] {
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

export function conflicts(rows: Row[] | undefined): Conflict[] {
  return (rows ?? [])
    .map((r) => ({
      id: String(r.conflict_id),
      topic: str(r.topic),
      engines: Array.isArray(r.engines) ? (r.engines as unknown[]).map(String) : [],
      description: str(r.description),
    }))
    .sort((a, b) => compareText(a.id, b.id));
}
