// A workspace's watched state in one run, built from its curated rows (the same rows whether they
// were just curated or read back from the store), and which sections of it the run landed.
import type { RawEndpoint } from '../api/endpoints.js';
import type { Row } from '../catalogue/types.js';
import { type ChangeState, closedRecommendations } from '../history/changes.js';
import { buyerIntentRow } from '../history/comparison.js';
import { compareText, num } from '../history/figures.js';
import { addPayload, emptyShape, type PayloadShape } from '../history/payload-shape.js';
import { isSuspect, losses } from '../history/snapshot.js';

/** The parts of a workspace compared between runs: each from its own endpoint and tables. */
export const SECTIONS = {
  scores: { endpoints: ['brands'], tables: ['brands', 'brand_engine_scores'] },
  recommendations: { endpoints: ['recommendations'], tables: ['recommendations'] },
  reputation: {
    endpoints: ['reputation'],
    tables: ['reputation', 'reputation_claims', 'reputation_conflicts'],
  },
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
  /** Per endpoint of a section, the fields its payloads had (a `payload_changed` event). */
  shapes: Map<RawEndpoint, PayloadShape>;
  /**
   * Sections landed in a shape the normalisers did not recognise (a NULL count on the snapshot's
   * own row): their contents are unknown, not empty, so they are not compared.
   */
  unread: Set<Section>;
}

/** The rows whose payload is what an endpoint sent (a record, or the whole body). */
const SHAPE_OF: Record<Section, { table: string; endpoint: RawEndpoint }> = {
  scores: { table: 'brands', endpoint: 'brands' },
  recommendations: { table: 'recommendations', endpoint: 'recommendations' },
  reputation: { table: 'reputation', endpoint: 'reputation' },
  buyer_intent: { table: 'buyer_intent', endpoint: 'buyer-intent' },
};

interface Collected {
  brand?: Row;
  engines: Row[];
  recommendations: Row[];
  claims: Row[];
  conflicts: Row[];
  buyerIntent: Row[];
  reputation: Row[];
  shapes: Map<RawEndpoint, PayloadShape>;
}

function collected(): Collected {
  return {
    engines: [],
    recommendations: [],
    claims: [],
    conflicts: [],
    buyerIntent: [],
    reputation: [],
    shapes: new Map(),
  };
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
      c = collected();
      this.#by.set(id, c);
    }
    const shaped = SECTION_NAMES.find((s) => SHAPE_OF[s].table === table);
    if (shaped !== undefined) {
      const endpoint = SHAPE_OF[shaped].endpoint;
      const shape = c.shapes.get(endpoint) ?? emptyShape();
      addPayload(shape, row.payload);
      c.shapes.set(endpoint, shape);
    }
    if (table === 'reputation') {
      c.reputation.push(row);
      return;
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
    const c = this.#by.get(brandId) ?? collected();
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
      closed_recommendations: closedRecommendations(c.recommendations),
      flags: c.claims
        .filter(isSuspect)
        .map((r) => ({ engine: String(r.engine), claim_id: String(r.claim_id), claim: str(r.claim) }))
        .sort((a, b) => compareText(a.engine, b.engine) || compareText(a.claim_id, b.claim_id)),
      conflicts: c.conflicts
        .map((r) => ({ id: String(r.conflict_id), topic: str(r.topic) }))
        .sort((a, b) => compareText(a.id, b.id)),
      competitors: [...wins.keys()].sort(compareText),
      wins,
      shapes: c.shapes,
      unread: unreadSections(c),
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

/** Sections whose snapshot row says the body was not read: the reputation claims or the losses. */
function unreadSections(c: Collected): Set<Section> {
  const unread = new Set<Section>();
  if (c.reputation.some((r) => r.claim_count === null || r.claim_count === undefined))
    unread.add('reputation');
  if (c.buyerIntent.some((r) => r.loss_count === null || r.loss_count === undefined))
    unread.add('buyer_intent');
  return unread;
}

/** Of the sections both runs landed, those both runs could read (the rest: only their shapes compare). */
export function readableSections(
  sections: ReadonlySet<Section>,
  before: WatchState,
  after: WatchState,
): Set<Section> {
  return new Set([...sections].filter((x) => !before.unread.has(x) && !after.unread.has(x)));
}

/**
 * The state with only the given sections: what the other run did not land is not compared; of a
 * section landed but not `readable` (a shape not recognised), only the shape of its payload is.
 */
export function restrict(
  s: WatchState,
  sections: ReadonlySet<Section>,
  readable: ReadonlySet<Section> = sections,
): WatchState {
  const has = (x: Section) => readable.has(x);
  return {
    overall: has('scores') ? s.overall : null,
    share_of_voice: has('scores') ? s.share_of_voice : null,
    engines: has('scores') ? s.engines : [],
    open_recommendations: has('recommendations') ? s.open_recommendations : [],
    closed_recommendations: has('recommendations') ? (s.closed_recommendations ?? []) : [],
    flags: has('reputation') ? s.flags : [],
    conflicts: has('reputation') ? s.conflicts : [],
    competitors: has('buyer_intent') ? s.competitors : [],
    wins: has('buyer_intent') ? s.wins : new Map(),
    shapes: new Map(
      SECTION_NAMES.filter((x) => sections.has(x)).flatMap((x) => {
        const endpoint = SHAPE_OF[x].endpoint;
        const shape = s.shapes.get(endpoint);
        return shape ? [[endpoint, shape] as const] : [];
      }),
    ),
    unread: new Set([...s.unread].filter((x) => sections.has(x))),
  };
}
