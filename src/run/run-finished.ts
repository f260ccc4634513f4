// What happens when a run reaches its terminal status, wherever it ran (`run --once`, a worker's
// finish-run or load-batch job, a run that failed before it fanned out): a line in the log sums up
// its schema drift, and the alert for a failed or partial run goes out. One place, so every path that ends a run
// logs and alerts the same way.
import type { Logger } from 'pino';
import type { Config } from '../config/schema.js';
import { runAlert } from '../delivery/webhooks/payloads.js';
import { type SendOptions, sendAlert } from '../delivery/webhooks/send.js';
import { driftSummary } from '../normalise/drift.js';
import type { Manifest } from '../records/manifest.js';
import type { ObjectStore } from '../sinks/object-store.js';

export interface RunFinishedOptions {
  config: Pick<Config, 'alerts' | 'watch' | 'accounts'>;
  /** The run's object store: with it, the run's brand events are alerted (alerts.on: events). */
  store?: ObjectStore | undefined;
  logger: Logger;
  manifest: Manifest;
  /** Delivery bounds (tests use short ones). */
  send?: SendOptions;
}

/** Never throws and never takes longer than the alert's bounded retries. */
export async function runFinished(o: RunFinishedOptions): Promise<void> {
  const drift = driftSummary(o.manifest.drift);
  if (drift)
    o.logger.warn(
      { account: o.manifest.account, run_id: o.manifest.run_id, drift: drift.findings },
      drift.line,
    );
  const alerts = o.config.alerts;
  if (!alerts) return;
  const payload = runAlert(o.manifest, alerts.on);
  if (payload) {
    const res = await sendAlert(alerts.webhook, payload, o.send);
    const fields = { account: o.manifest.account, run_id: o.manifest.run_id, status: o.manifest.status };
    if (res.ok) o.logger.info(fields, 'alert sent');
    else o.logger.warn({ ...fields, attempts: res.attempts, err: res.error }, 'alert not delivered');
  }
  if (o.store && o.manifest.status !== 'failed') {
    // Loaded only when asked for: most runs alert no events.
    const { sendEventsAlert } = await import('../delivery/digest/events-alert.js');
    await sendEventsAlert({
      config: o.config,
      store: o.store,
      account: o.manifest.account,
      runId: o.manifest.run_id,
      logger: o.logger,
      send: o.send,
    });
  }
}
