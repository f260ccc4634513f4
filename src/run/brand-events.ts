// Brand-event detection as a stage of the run: the run gives its curate stage (src/run/finish-run.ts)
// the brand_events table to derive, so curate (src/curate/curate-run.ts) knows nothing of brand
// watch. The rows are what src/events/curate.ts detects: each workspace's state in this run
// against the account's previous complete runs, under the same ids, whatever the driver.
import { BRAND_EVENTS } from '../catalogue/brand-events.js';
import type { Row } from '../catalogue/types.js';
import type { DerivedTable } from '../curate/curate-run.js';
import { brandEventRows } from '../events/curate.js';
import { WatchRows } from '../events/state.js';
import { metrics } from '../metrics/recorder.js';
import { RunHistory } from '../records/history.js';
import type { RunCoordinates } from '../records/run-coordinates.js';
import type { ObjectStore } from '../sinks/object-store.js';

export function brandEventsTable(o: {
  store: ObjectStore;
  run: RunCoordinates;
  /** The run's start (its manifest's started_at): the events' `detected_at`. */
  startedAt?: string | undefined;
  /** The run's history, read once for all its stages. */
  history?: RunHistory | undefined;
  /** The rows as recorded, kept instead of detected anew (src/events/meanings.ts says when). */
  recorded?: readonly Row[] | undefined;
}): DerivedTable {
  const watched = new WatchRows();
  return {
    table: BRAND_EVENTS.name,
    see: (table, row) => watched.add(table, row),
    async rows({ landed, listWhole }) {
      if (o.recorded) return [...o.recorded];
      const { history = new RunHistory(o.store, o.run.account), recorded: _, ...run } = o;
      const runIds = await history.runIds();
      const rows = await brandEventRows({ ...run, current: watched, landed, listWhole, runIds });
      const byType = new Map<string, number>();
      for (const r of rows) byType.set(String(r.event_type), (byType.get(String(r.event_type)) ?? 0) + 1);
      for (const [type, n] of byType) metrics.brandEvents(type, n);
      return rows;
    },
  };
}
