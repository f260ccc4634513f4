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

type Rec = { id: string; title: string | null };

/** The recommendation lines of one title, or of one id when it has no title. */
interface TitleChanges {
  opened: Rec[];
  closed: (Rec & { status: string })[];
  unlisted: Rec[];
}

/** The recommendation changes grouped by title (an untitled one by its id), in the order met. */
function byTitle(c: Changes): TitleChanges[] {
  const groups = new Map<string, TitleChanges>();
  const group = (r: Rec) => {
    const key = r.title === null ? `id\u0000${r.id}` : `title\u0000${r.title}`;
    const g = groups.get(key) ?? { opened: [], closed: [], unlisted: [] };
    groups.set(key, g);
    return g;
  };
  for (const r of c.new_recommendations) group(r).opened.push(r);
  for (const r of c.closed_recommendations) group(r).closed.push(r);
  for (const r of c.unlisted_recommendations) group(r).unlisted.push(r);
  return [...groups.values()];
}

/**
 * One line per recommendation title, with its latest state: a title the API no longer lists (or
 * lists done) under one id and lists again, open, under another is "reissued"; a title that went
 * under two ids, one done or dismissed and one no longer listed, is closed (what the API last said
 * of it), never both. `id` is the id whose state the line tells; a reissued line's `note` the old id.
 */
function recommendationLines(c: Changes): ChangeLine[] {
  const titleOf = (r: Rec) => r.title ?? r.id;
  const out: Record<'opened' | 'closed' | 'unlisted' | 'reissued', ChangeLine[]> = {
    opened: [],
    closed: [],
    unlisted: [],
    reissued: [],
  };
  for (const g of byTitle(c)) {
    const gone = g.closed[0] ?? g.unlisted[0];
    const opened = g.opened[0];
    const closed = g.closed.find((r) => r.status === 'done') ?? g.closed[0];
    if (opened && gone)
      out.reissued.push(line('recommendation_reissued', 'neutral', titleOf(opened), opened.id, gone.id));
    else if (opened) out.opened.push(line('recommendation_new', 'neutral', titleOf(opened), opened.id));
    else if (closed)
      out.closed.push(
        line(
          'recommendation_closed',
          closed.status === 'done' ? 'better' : 'neutral',
          titleOf(closed),
          closed.id,
          closed.status,
        ),
      );
    else if (gone) out.unlisted.push(line('recommendation_unlisted', 'neutral', titleOf(gone), gone.id));
  }
  return [...out.opened, ...out.closed, ...out.unlisted, ...out.reissued];
}

/** An engine's move as the page shows it (one decimal): one under the precision is neither news. */
const newsOf = (shown: number): Direction => (shown > 0 ? 'better' : shown < 0 ? 'worse' : 'neutral');

/**
 * Good news: a recommendation done, a claim cleared, a conflict resolved, a competitor no longer
 * winning, an engine up. Bad news: a new suspected-false claim, conflict or winning competitor, an
 * engine down. Neither: a new recommendation (something to do), one dismissed, one the API no
 * longer lists (it did not say done or dismissed), one listed again under a new id. Recommendations
 * are told by title, one line each (recommendationLines).
 */
export function changeLines(c: Changes): ChangeLine[] {
  return [
    ...recommendationLines(c),
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
