// What changed for a workspace between two runs, as events: the one change computation of
// src/history/changes.ts (diffStates, engineMoves) plus the score thresholds of the table. Pure.
import type { EventType, Severity } from '../catalogue/brand-events.js';
import { diffStates, engineMoves } from '../history/changes.js';
import { compareText } from '../history/figures.js';
import { shapeChange } from '../history/payload-shape.js';
import type { WatchState } from './state.js';

/** Smallest move recorded: score points, and percentage points of share of voice. */
export const SCORE_FLOOR = 1;
export const SOV_FLOOR = 1;
/** An overall drop this large is high severity. */
const BIG_DROP = 10;

export interface Change {
  type: EventType;
  key: string;
  before: string | null;
  after: string | null;
  magnitude: number;
  severity: Severity;
}

const json = (v: unknown) => JSON.stringify(v);
const round2 = (n: number) => Math.round(n * 100) / 100;

function item(type: EventType, key: string, before: unknown, after: unknown): Change {
  return {
    type,
    key,
    before: before === null ? null : json(before),
    after: after === null ? null : json(after),
    magnitude: 1,
    severity: severityOf(type, 1),
  };
}

function move(type: EventType, key: string, before: number, after: number): Change {
  const magnitude = round2(after - before);
  return {
    type,
    key,
    before: String(before),
    after: String(after),
    magnitude,
    severity: severityOf(type, magnitude),
  };
}

export function severityOf(type: EventType, magnitude: number): Severity {
  if (type === 'false_claim_new' || type === 'workspace_removed') return 'high';
  if (type === 'score_drop') return Math.abs(magnitude) >= BIG_DROP ? 'high' : 'medium';
  if (
    type === 'engine_score_drop' ||
    type === 'share_of_voice_drop' ||
    type === 'conflict_new' ||
    type === 'competitor_new' ||
    type === 'payload_changed'
  )
    return 'medium';
  return 'low';
}

const SEVERITY_RANK: Record<Severity, number> = { high: 0, medium: 1, low: 2 };

/** Most severe first, then the largest move, then type and key: the order of every listing. */
export function bySeverity(
  a: { severity: Severity; magnitude: number | null; type: string; key: string },
  b: { severity: Severity; magnitude: number | null; type: string; key: string },
): number {
  return (
    SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] ||
    Math.abs(b.magnitude ?? 0) - Math.abs(a.magnitude ?? 0) ||
    compareText(a.type, b.type) ||
    compareText(a.key, b.key)
  );
}

/** Every change from `before` to `after` (both restricted to the sections both runs landed). */
export function detectChanges(before: WatchState, after: WatchState): Change[] {
  const out: Change[] = [];
  if (
    before.overall !== null &&
    after.overall !== null &&
    Math.abs(after.overall - before.overall) >= SCORE_FLOOR
  )
    out.push(
      move(
        after.overall < before.overall ? 'score_drop' : 'score_rise',
        'overall',
        before.overall,
        after.overall,
      ),
    );
  if (
    before.share_of_voice !== null &&
    after.share_of_voice !== null &&
    before.share_of_voice - after.share_of_voice >= SOV_FLOOR
  )
    out.push(move('share_of_voice_drop', 'share_of_voice', before.share_of_voice, after.share_of_voice));
  for (const m of engineMoves(before.engines, after.engines))
    if (Math.abs(m.delta) >= SCORE_FLOOR)
      out.push(move(m.delta < 0 ? 'engine_score_drop' : 'engine_score_rise', m.engine, m.before, m.after));
  const d = diffStates(before, after);
  for (const f of d.new_flags) out.push(item('false_claim_new', `${f.engine}/${f.claim_id}`, null, f));
  for (const f of d.cleared_flags)
    out.push(item('false_claim_resolved', `${f.engine}/${f.claim_id}`, f, null));
  for (const c of d.new_conflicts) out.push(item('conflict_new', c.id, null, c));
  for (const c of d.resolved_conflicts) out.push(item('conflict_resolved', c.id, c, null));
  for (const name of d.new_competitors)
    out.push(item('competitor_new', name, null, { name, prompts: after.wins.get(name) ?? [] }));
  for (const r of d.new_recommendations) out.push(item('recommendation_opened', r.id, null, r));
  // Closed: the API lists it done or dismissed. Gone from the list without either: not closed.
  for (const r of d.closed_recommendations)
    out.push(item('recommendation_closed', r.id, { id: r.id, title: r.title }, null));
  for (const r of d.unlisted_recommendations) out.push(item('recommendation_unlisted', r.id, r, null));
  for (const [endpoint, shape] of after.shapes) {
    const prior = before.shapes.get(endpoint);
    const c = prior && shapeChange(prior, shape);
    if (!c) continue;
    out.push({
      type: 'payload_changed',
      key: endpoint,
      before: json(c.removed),
      after: json(c.added),
      magnitude: c.added.length + c.removed.length,
      severity: severityOf('payload_changed', 1),
    });
  }
  return out;
}

/** Workspaces added to and removed from the account's list (both lists whole). */
export function workspaceChanges(
  before: ReadonlySet<string>,
  after: ReadonlySet<string>,
): { id: string; change: Change }[] {
  const out: { id: string; change: Change }[] = [];
  for (const id of after)
    if (!before.has(id)) out.push({ id, change: item('workspace_added', id, null, { id }) });
  for (const id of before)
    if (!after.has(id)) out.push({ id, change: item('workspace_removed', id, { id }, null) });
  return out;
}
