// The end of a run, whichever driver ran it (`run --once`, a worker's finish job or load batch, a
// run job that could not fan out): one completion rule. The run is recorded by then (its manifest,
// src/run/record-run.ts); here its end line is logged, its second record (the ledger, when Redis is
// there) ends, a line sums up its schema drift, and the alerts of a failed or partial run and of
// its brand events go out. What only queued runs add (the ledger in Redis, their scheduled reports)
// the queued driver plugs in (src/run/queued/ledger-end.ts); `run --once` plugs in its own ledger.
import type { Logger } from 'pino';
import type { Config } from '../config/schema.js';
import { runAlert } from '../delivery/webhooks/payloads.js';
import { sendAlert } from '../delivery/webhooks/send.js';
import { driftSummary } from '../normalise/drift.js';
import type { Manifest } from '../records/manifest.js';
import type { ObjectStore } from '../sinks/object-store.js';

export interface RunEnd {
  config: Pick<Config, 'alerts' | 'watch' | 'accounts'>;
  log: Logger;
  manifest: Manifest;
  /** The run's store: with it, its brand events are alerted (alerts.on: events). */
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
  const alert = driftAndAlerts(o);
  if (o.awaitAlert) await alert;
  else void alert;
  await o.afterwards?.();
}

/**
 * The run's drift line and its alerts, the same on every path that ends a run. Never throws and
 * never takes longer than the alerts' bounded retries.
 */
async function driftAndAlerts({ config, log, manifest: m, store }: RunEnd): Promise<void> {
  const drift = driftSummary(m.drift);
  if (drift) log.warn({ account: m.account, run_id: m.run_id, drift: drift.findings }, drift.line);
  const alerts = config.alerts;
  if (!alerts) return;
  const payload = runAlert(m, alerts.on);
  if (payload) {
    const res = await sendAlert(alerts.webhook, payload);
    const fields = { account: m.account, run_id: m.run_id, status: m.status };
    if (res.ok) log.info(fields, 'alert sent');
    else log.warn({ ...fields, attempts: res.attempts, err: res.error }, 'alert not delivered');
  }
  if (store && m.status !== 'failed') {
    // Loaded only when asked for: most runs alert no events.
    const { sendEventsAlert } = await import('../delivery/digest/events-alert.js');
    await sendEventsAlert({ config, store, account: m.account, runId: m.run_id, logger: log });
  }
}
