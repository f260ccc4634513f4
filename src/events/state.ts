// A workspace's watched state in one run, built from its curated rows (the same rows whether they
// were just curated or read back from the store), and which sections of it the run landed.
import type { RawEndpoint } from '../api/endpoints.js';
import type { Row } from '../catalogue/types.js';
import type { ChangeState } from '../history/changes.js';
import { buyerIntentRow } from '../history/comparison.js';
import { compareText, num } from '../history/figures.js';
import { isSuspect, losses } from '../history/snapshot.js';

/** The parts of a workspace compared between runs: each from its own endpoint and tables. */
export const SECTIONS = {
  scores: { endpoints: ['brands'], tables: ['brands', 'brand_engine_scores'] },
  recommendations: { endpoints: ['recommendations'], tables: ['recommendations'] },
  reputation: { endpoints: ['reputation'], tables: ['reputation_claims', 'reputation_conflicts'] },
  buyer_intent: { endpoints: ['buyer-intent'], tables: ['buyer_intent'] },
} as const satisfies Record<string, { endpoints: readonly RawEndpoint[]; tables: readonly string[] }>;
export type Section = keyof typeof SECTIONS;
export const SECTION_NAMES = Object.keys(SECTIONS) as Section[];
export const WATCHED_TABLES: ReadonlySet<string> = new Set(SECTION_NAMES.flatMap((s) => SECTIONS[s].tables));

export interface WatchState extends ChangeState {
  overall: number | null;
  share_of_voice: number | null;
  /** Per winning competitor, the money prompts it wins (for the event's `after`). */
  wins: Map<string, string[]>;
}

interface Collected {
  brand?: Row;
  engines: Row[];
  recommendations: Row[];
  claims: Row[];
  conflicts: Row[];
  buyerIntent: Row[];
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** Collects a run's watched rows per workspace, as they stream past (curate) or are read back. */
export class WatchRows {
  readonly #by = new Map<string, Collected>();
  /** Workspace ids GET /brands listed in the run (brands.in_list). */
  readonly listed = new Set<string>();

  add(table: string, row: Row): void {
    if (!WATCHED_TABLES.has(table)) return;
    const id = String(row.brand_id);
    let c = this.#by.get(id);
    if (!c) {
      c = { engines: [], recommendations: [], claims: [], conflicts: [], buyerIntent: [] };
      this.#by.set(id, c);
    }
    if (table === 'brands') {
      c.brand = row;
      if (row.in_list === true) this.listed.add(id);
    } else if (table === 'brand_engine_scores') c.engines.push(row);
    else if (table === 'recommendations') c.recommendations.push(row);
    else if (table === 'reputation_claims') c.claims.push(row);
    else if (table === 'reputation_conflicts') c.conflicts.push(row);
    else c.buyerIntent.push(row);
  }

  workspaces(): string[] {
    return [...this.#by.keys()].sort(compareText);
  }

  /** Whether the run has the workspace's scores (a brands row for it). */
  hasScores(brandId: string): boolean {
    return this.#by.get(brandId)?.brand !== undefined;
  }

  state(brandId: string): WatchState {
    const c = this.#by.get(brandId) ?? {
      engines: [],
      recommendations: [],
      claims: [],
      conflicts: [],
      buyerIntent: [],
    };
    const wins = competitorWins(c.buyerIntent);
    return {
      overall: num(c.brand?.overall_score),
      share_of_voice: num(c.brand?.share_of_voice),
      engines: c.engines
        .map((r) => ({ engine: String(r.engine), score: num(r.score) }))
        .sort((a, b) => compareText(a.engine, b.engine)),
      open_recommendations: c.recommendations
        .filter((r) => r.status === 'open')
        .map((r) => ({ id: String(r.recommendation_id), title: str(r.title) }))
        .sort((a, b) => compareText(a.id, b.id)),
      flags: c.claims
        .filter(isSuspect)
        .map((r) => ({ engine: String(r.engine), claim_id: String(r.claim_id), claim: str(r.claim) }))
        .sort((a, b) => compareText(a.engine, b.engine) || compareText(a.claim_id, b.claim_id)),
      conflicts: c.conflicts
        .map((r) => ({ id: String(r.conflict_id), topic: str(r.topic) }))
        .sort((a, b) => compareText(a.id, b.id)),
      competitors: [...wins.keys()].sort(compareText),
      wins,
    };
  }
}

/**
 * Losses of the buyer-intent window that reports read too (src/history/comparison.ts
 * buyerIntentRow): the competitors that win money prompts, each with its prompts.
 */
function competitorWins(rows: readonly Row[]): Map<string, string[]> {
  const row = buyerIntentRow(rows);
  const wins = new Map<string, string[]>();
  for (const l of losses(row)) {
    if (l.winner_name === null) continue;
    const prompts = wins.get(l.winner_name) ?? [];
    if (l.prompt !== null && !prompts.includes(l.prompt)) prompts.push(l.prompt);
    wins.set(l.winner_name, prompts.sort(compareText));
  }
  return wins;
}

/** The state with only the given sections: what the other run did not land is not compared. */
export function restrict(s: WatchState, sections: ReadonlySet<Section>): WatchState {
  const has = (x: Section) => sections.has(x);
  return {
    overall: has('scores') ? s.overall : null,
    share_of_voice: has('scores') ? s.share_of_voice : null,
    engines: has('scores') ? s.engines : [],
    open_recommendations: has('recommendations') ? s.open_recommendations : [],
    flags: has('reputation') ? s.flags : [],
    conflicts: has('reputation') ? s.conflicts : [],
    competitors: has('buyer_intent') ? s.competitors : [],
    wins: has('buyer_intent') ? s.wins : new Map(),
  };
}
