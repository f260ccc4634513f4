// Brand events as stored: the `brand_events` parts of an account's complete runs (the rule of the
// `_latest` views, src/history/complete-runs.ts), one row per event id. Reads the object store only,
// so `visync events` and the run's alert need neither Redis nor a warehouse.
import type { EventType, Severity } from '../catalogue/brand-events.js';
import { completeRuns } from '../history/complete-runs.js';
import { eventRows } from '../history/run-events.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { bySeverity } from './detect.js';

export interface BrandEvent {
  account: string;
  brand_id: string;
  snapshot_date: string;
  run_id: string;
  event_id: string;
  previous_run_id: string;
  event_type: EventType;
  key: string;
  before: string | null;
  after: string | null;
  magnitude: number | null;
  severity: Severity;
  detected_at: string;
  /** The version of the release whose rules detected it (its words: src/events/meanings.ts). */
  detected_by?: string;
}

/** The most severe first, then the largest move (detect.ts's order, for stored events). */
export const bySeverityOf = (a: BrandEvent, b: BrandEvent): number =>
  bySeverity(
    { severity: a.severity, magnitude: a.magnitude, type: a.event_type, key: a.key },
    { severity: b.severity, magnitude: b.magnitude, type: b.event_type, key: b.key },
  );

export interface EventFilter {
  brand?: string | undefined;
  /** YYYY-MM-DD: runs dated on or after it. */
  since?: string | undefined;
  type?: string | undefined;
  /** One run's events only. */
  runId?: string | undefined;
}

/** The events of the account's complete runs, oldest run first, each event id once. */
export async function readEvents(
  store: ObjectStore,
  account: string,
  f: EventFilter = {},
): Promise<BrandEvent[]> {
  return (await readAccountEvents(store, account, f)).events;
}

/** readEvents, and every workspace a complete run of the account landed (to name an unknown one). */
export async function readAccountEvents(
  store: ObjectStore,
  account: string,
  f: EventFilter = {},
): Promise<{ events: BrandEvent[]; workspaces: Set<string> }> {
  const all = await completeRuns(store, account, Date.now());
  const workspaces = new Set(all.flatMap((r) => r.workspaces));
  const runs = all
    .filter(
      (r) =>
        (f.since === undefined || r.runDate >= f.since) && (f.runId === undefined || r.runId === f.runId),
    )
    .reverse();
  const detectedBy = new Map(runs.map((r) => [r.runId, r.eventsDetectedBy]));
  const events = ((await eventRows(store, runs)) as unknown as BrandEvent[])
    .filter(
      (e) =>
        (f.brand === undefined || e.brand_id === f.brand) &&
        (f.type === undefined || e.event_type === f.type),
    )
    .map((e) => {
      const by = detectedBy.get(e.run_id);
      return by === undefined ? e : { ...e, detected_by: by };
    });
  return { events, workspaces };
}
