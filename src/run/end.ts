// The end of a run, whichever driver ran it (`run --once`, a worker's finish job or load batch, a
// run job that could not fan out): one completion rule. The run is recorded by then (its manifest,
// src/run/record.ts); here its end line is logged, its second record (the ledger, when Redis is
// there) ends, and its drift line and alert go out (src/run/run-finished.ts). The queued driver
// calls it too, with what only queued runs do (the ledger in Redis, their scheduled reports) from
// src/run/queued/ledger-end.ts.
import type { Logger } from 'pino';
import type { Manifest } from '../records/manifest.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { runFinished } from './run-finished.js';

export interface RunEnd {
  config: Parameters<typeof runFinished>[0]['config'];
  log: Logger;
  manifest: Manifest;
  /** The run's store: with it, its brand events are alerted. */
  store?: ObjectStore | undefined;
  /** Ends the run's ledger record, when there is one. */
  ledger?: () => Promise<void>;
  /**
   * Whether the end waits for the alert: `run --once` does (its process exits after); a job does
   * not (an alert never holds a worker slot; its delivery is bounded and logs its own outcome).
   */
  awaitAlert: boolean;
  /** What follows the end (a worker queues the run's scheduled reports). */
  afterwards?: () => Promise<void>;
}

export async function endRun(o: RunEnd): Promise<void> {
  const m = o.manifest;
  o.log.info(
    { status: m.status, workspaces: m.workspaces.length, loads: m.loads.length, requests: m.requests },
    'run finished',
  );
  await o.ledger?.();
  const alert = runFinished({ config: o.config, logger: o.log, manifest: m, store: o.store });
  if (o.awaitAlert) await alert;
  else void alert;
  await o.afterwards?.();
}
