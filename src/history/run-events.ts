// The `brand_events` rows of complete runs, each event id once: a replay, a retried load or the
// completion of an interrupted run writes the same event again (docs/tables.md, `brand_events`).
// What `visync events`, the run's alert (src/events/read.ts) and the agency overview read.
import { BRAND_EVENTS } from '../catalogue/brand-events.js';
import type { Row } from '../catalogue/types.js';
import { parseTablePartKey } from '../sinks/layout.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { type CompleteRun, readPart } from './complete-runs.js';
import { compareText } from './figures.js';

/** The runs' events in the runs' order (their parts in name order), the first of each event id. */
export async function eventRows(store: ObjectStore, runs: readonly CompleteRun[]): Promise<Row[]> {
  const seen = new Set<string>();
  const out: Row[] = [];
  for (const run of runs) {
    const keys = run.partKeys
      .filter((k) => parseTablePartKey(k)?.table === BRAND_EVENTS.name)
      .sort(compareText);
    for (const key of keys)
      for (const row of await readPart(store, key)) {
        const id = String(row.event_id);
        if (seen.has(id)) continue;
        seen.add(id);
        out.push(row);
      }
  }
  return out;
}
