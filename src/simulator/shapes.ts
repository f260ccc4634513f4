// The shape knob (the `shape` option, `visync simulate --shape`, docs/simulator.md): the spec shows
// field names only for the workspace list, so the real API may name or nest the undocumented
// records otherwise. `assumed` serves our assumptions (data.ts); `alternative` serves the other
// plausible shapes the normalisers recognise; `unknown` serves reputation claims and buyer-intent
// losses they do not recognise, so a test sees what a client sees then. Applied after the scripted
// data changes and before faults; pure apart from structured cloning.
import type { RawEndpoint } from '../api/endpoints.js';
import type { BuyerIntent, ModelScores, Reputation, VisibilityEntry, WorkspaceRecord } from './data.js';

export const SHAPES = ['assumed', 'alternative', 'unknown'] as const;
export type Shape = (typeof SHAPES)[number];

/** `model_scores` as a list of `{engine, score}` instead of a map. */
function scoreList(scores: ModelScores): { engine: string; score: number }[] {
  return Object.entries(scores).map(([engine, score]) => ({ engine, score }));
}

function alternative(endpoint: RawEndpoint, body: unknown): unknown {
  if (endpoint === 'brands' || endpoint === 'brand') {
    const w = structuredClone(body) as WorkspaceRecord;
    const latest = w.latest_score as unknown as Record<string, unknown>;
    latest.model_scores = scoreList(w.latest_score.model_scores);
    return w;
  }
  if (endpoint === 'visibility') {
    const list = structuredClone(body) as { data: VisibilityEntry[]; count: number };
    for (const e of list.data)
      (e as unknown as Record<string, unknown>).model_scores = scoreList(e.model_scores);
    return list;
  }
  if (endpoint === 'buyer-intent') {
    const b = structuredClone(body) as BuyerIntent;
    return { ...b, losses: b.losses.map((l) => ({ ...l, winner: l.winner.name })) };
  }
  if (endpoint === 'reputation') {
    // One flat list, each claim with its engine and its boolean; no separate flags list.
    const r = body as Reputation;
    return {
      generated_at: r.generated_at,
      claims: r.engines.flatMap((e) => e.claims.map((c) => ({ engine: e.engine, ...c }))),
      conflicts: structuredClone(r.conflicts),
    };
  }
  return body;
}

function unknown(endpoint: RawEndpoint, body: unknown): unknown {
  if (endpoint === 'buyer-intent') {
    const { losses, ...rest } = structuredClone(body) as BuyerIntent;
    return {
      ...rest,
      lost_to: losses.map((l) => ({ query: l.prompt, model: l.engine, rival: l.winner.name })),
    };
  }
  if (endpoint !== 'reputation') return body;
  const r = body as Reputation;
  return {
    generated_at: r.generated_at,
    statements: r.engines.flatMap((e) =>
      e.claims.map((c) => ({ model: e.engine, ref: c.id, text: c.claim, likely_false: c.suspected_false })),
    ),
    conflicts: structuredClone(r.conflicts),
  };
}

/** The body of a reply (or one workspace record of the list) in the given shape. */
export function reshape(shape: Shape, endpoint: RawEndpoint, body: unknown): unknown {
  if (shape === 'alternative') return alternative(endpoint, body);
  if (shape === 'unknown') return unknown(endpoint, body);
  return body;
}
