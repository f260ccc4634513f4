// "What changed" as the lines a client reads, each saying whether it is good or bad news
// (docs/reports.md, "What changed"). Pure: from the change lists of src/history/changes.ts.
import type { Changes } from '../../history/changes.js';
import { shownDelta } from '../render/format.js';

export type Direction = 'better' | 'worse' | 'neutral';

export type ChangeKind =
  | 'recommendation_new'
  | 'recommendation_closed'
  | 'recommendation_unlisted'
  | 'recommendation_reissued'
  | 'flag_new'
  | 'flag_cleared'
  | 'conflict_new'
  | 'conflict_resolved'
  | 'competitor_new'
  | 'competitor_gone'
  | 'engine_moved';

export interface ChangeLine {
  change: ChangeKind;
  direction: Direction;
  /** What the line is about, as the API names it: a title, claim, topic, competitor or engine. */
  what: string;
  /** The record's id (recommendation, claim, conflict); null for competitors and engines. */
  id: string | null;
  /**
   * recommendation_closed: `done` or `dismissed`; recommendation_reissued: the id no longer listed;
   * flag_new, flag_cleared: the engine; otherwise null.
   */
  note: string | null;
  /** engine_moved: the scores compared and after − before (from unrounded values); else null. */
  before: number | null;
  after: number | null;
  delta: number | null;
}

const line = (
  change: ChangeKind,
  direction: Direction,
  what: string,
  id: string | null = null,
  note: string | null = null,
): ChangeLine => ({ change, direction, what, id, note, before: null, after: null, delta: null });

/** An engine's move as the page shows it (one decimal): one under the precision is neither news. */
const newsOf = (shown: number): Direction => (shown > 0 ? 'better' : shown < 0 ? 'worse' : 'neutral');

/**
 * Good news: a recommendation done, a claim cleared, a conflict resolved, a competitor no longer
 * winning, an engine up. Bad news: a new suspected-false claim, conflict or winning competitor, an
 * engine down. Neither: a new recommendation (something to do), one dismissed, one the API no
 * longer lists (it did not say done or dismissed). A recommendation no longer listed whose title is
 * that of exactly one new one is one line, "reissued" (the API listed it again under a new id).
 */
export function changeLines(c: Changes): ChangeLine[] {
  const titleOf = (r: { id: string; title: string | null }) => r.title ?? r.id;
  const count = (xs: readonly { title: string | null }[], t: string | null) =>
    t === null ? 0 : xs.filter((x) => x.title === t).length;
  const reissued = c.unlisted_recommendations.flatMap((gone) => {
    const again = c.new_recommendations.filter((n) => gone.title !== null && n.title === gone.title);
    return again.length === 1 && count(c.unlisted_recommendations, gone.title) === 1
      ? [{ gone, again: again[0] as { id: string; title: string | null } }]
      : [];
  });
  const pairedNew = new Set(reissued.map((p) => p.again.id));
  const pairedGone = new Set(reissued.map((p) => p.gone.id));
  return [
    ...c.new_recommendations
      .filter((r) => !pairedNew.has(r.id))
      .map((r) => line('recommendation_new', 'neutral', titleOf(r), r.id)),
    ...c.closed_recommendations.map((r) =>
      line('recommendation_closed', r.status === 'done' ? 'better' : 'neutral', titleOf(r), r.id, r.status),
    ),
    ...c.unlisted_recommendations
      .filter((r) => !pairedGone.has(r.id))
      .map((r) => line('recommendation_unlisted', 'neutral', titleOf(r), r.id)),
    ...reissued.map((p) =>
      line('recommendation_reissued', 'neutral', titleOf(p.again), p.again.id, p.gone.id),
    ),
    ...c.new_flags.map((f) => line('flag_new', 'worse', f.claim ?? f.claim_id, f.claim_id, f.engine)),
    ...c.cleared_flags.map((f) =>
      line('flag_cleared', 'better', f.claim ?? f.claim_id, f.claim_id, f.engine),
    ),
    ...c.new_conflicts.map((x) => line('conflict_new', 'worse', x.topic ?? x.id, x.id)),
    ...c.resolved_conflicts.map((x) => line('conflict_resolved', 'better', x.topic ?? x.id, x.id)),
    ...c.new_competitors.map((n) => line('competitor_new', 'worse', n)),
    ...c.gone_competitors.map((n) => line('competitor_gone', 'better', n)),
    ...c.engine_movers.map((m) => ({
      ...line('engine_moved', newsOf(shownDelta(m.after, m.before) ?? 0), m.engine),
      before: m.before,
      after: m.after,
      delta: m.delta,
    })),
  ];
}
