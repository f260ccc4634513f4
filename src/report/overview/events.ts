// The period's brand events per workspace and severity, for the agency overview: the `brand_events`
// parts of the account's complete runs dated within the period (an event's snapshot_date is its
// run's date), each event id once (src/history/run-events.ts, as `visync events` reads them).
import { SEVERITIES, type Severity } from '../../catalogue/brand-events.js';
import type { CompleteRun } from '../../history/complete-runs.js';
import type { Period } from '../../history/period.js';
import { eventRows } from '../../history/run-events.js';
import type { ObjectStore } from '../../sinks/object-store.js';

export type SeverityCounts = Record<Severity, number>;

/**
 * Per workspace id, its events of the period by severity (a workspace without events: absent, so 0
 * each). Null when no complete run is dated within the period: the events are then not known.
 */
export async function periodEvents(
  store: ObjectStore,
  runs: readonly CompleteRun[],
  period: Pick<Period, 'from' | 'to'>,
): Promise<Map<string, SeverityCounts> | null> {
  const within = runs.filter((r) => r.runDate >= period.from && r.runDate <= period.to);
  if (within.length === 0) return null;
  const out = new Map<string, SeverityCounts>();
  for (const row of await eventRows(store, within)) {
    const severity = row.severity as Severity;
    if (!SEVERITIES.includes(severity)) continue;
    const brand = String(row.brand_id);
    const counts = out.get(brand) ?? { high: 0, medium: 0, low: 0 };
    counts[severity] += 1;
    out.set(brand, counts);
  }
  return out;
}
