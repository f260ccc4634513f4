// The period's brand events per workspace, counted per kind the overview names (docs/reports.md,
// "Agency overview"): the `brand_events` parts of the account's complete runs dated within the
// period (an event's snapshot_date is its run's date), each event id once (src/history/run-events.ts,
// as `visync events` reads them). Only the kinds an agency acts on are counted, each under its own
// name, so the counts shown are the kinds listed: recommendation churn and payload changes (hundreds
// a month per client) stay in the clients' reports.
import type { EventType } from '../../catalogue/brand-events.js';
import type { CompleteRun } from '../../history/complete-runs.js';
import type { Period } from '../../history/period.js';
import { eventRows } from '../../history/run-events.js';
import type { ObjectStore } from '../../sinks/object-store.js';

/** The kinds the overview counts, in the order it lists them. */
export const OVERVIEW_EVENT_KINDS = [
  'score_drop',
  'engine_score_drop',
  'share_of_voice_drop',
  'false_claim_new',
  'conflict_new',
  'competitor_new',
] as const satisfies readonly EventType[];

export type OverviewEventKind = (typeof OVERVIEW_EVENT_KINDS)[number];

/** Events of the period per kind; a kind without events is absent. */
export type EventCounts = Partial<Record<OverviewEventKind, number>>;

const isShown = (t: unknown): t is OverviewEventKind =>
  (OVERVIEW_EVENT_KINDS as readonly unknown[]).includes(t);

/**
 * Per workspace id, its events of the period per kind shown (a workspace without any: absent, so
 * none). Null when no complete run is dated within the period: the events are then not known.
 */
export async function periodEvents(
  store: ObjectStore,
  runs: readonly CompleteRun[],
  period: Pick<Period, 'from' | 'to'>,
): Promise<Map<string, EventCounts> | null> {
  const within = runs.filter((r) => r.runDate >= period.from && r.runDate <= period.to);
  if (within.length === 0) return null;
  const out = new Map<string, EventCounts>();
  for (const row of await eventRows(store, within)) {
    if (!isShown(row.event_type)) continue;
    const brand = String(row.brand_id);
    const counts = out.get(brand) ?? {};
    counts[row.event_type] = (counts[row.event_type] ?? 0) + 1;
    out.set(brand, counts);
  }
  return out;
}
