// What the steps of a scheduled report's delivery share (./deliver.ts, ./make.ts,
// ./send.ts): the due report, its record saved with secrets scrubbed, the outcome a caller
// sees, and a report alert sent and logged.

import { scrubSecrets } from '../../log.js';
import { parseManifest } from '../../report/artefact.js';
import type { ReportFormat } from '../../report/output.js';
import { madeFormats, type ReportSettings } from '../../report/settings.js';
import { brandKey, reportPrefix } from '../../sinks/layout.js';
import { displayNames } from '../digest/display-names.js';
import type { ReportAlertFacts, reportAlert } from '../webhooks/payloads.js';
import { sendAlert } from '../webhooks/send.js';
import { type DeliveryRecord, writeDelivery } from './records.js';
import type { DeliveryOptions, DeliveryOutcome, Due, RecipientOutcome } from './types.js';

/** What the caller sees of a record: its state, reason and location, and each recipient's send. */
export function outcome(r: DeliveryRecord, recipients: RecipientOutcome[] = []): DeliveryOutcome {
  return {
    brandId: r.brand_id,
    period: r.period,
    state: r.state,
    ...(r.reason ? { reason: r.reason } : {}),
    ...(r.location ? { location: r.location } : {}),
    recipients,
  };
}

export async function save(
  o: DeliveryOptions,
  r: Omit<DeliveryRecord, 'updated_at'>,
): Promise<DeliveryRecord> {
  const record = {
    ...r,
    ...(r.reason ? { reason: scrubSecrets(r.reason) } : {}),
    updated_at: (o.now?.() ?? new Date()).toISOString(),
  };
  await writeDelivery(o.store, record);
  return record;
}

export function base(o: DeliveryOptions, due: Due, trigger?: { runDate: string; runId: string }) {
  return {
    account: o.account.name,
    brand_id: due.brandId,
    period: due.period.label,
    run_date: trigger?.runDate ?? due.record?.run_date ?? '',
    ...(trigger ? { run_id: trigger.runId } : due.record?.run_id ? { run_id: due.record.run_id } : {}),
    recipients: [...due.settings.recipients],
  };
}

/** An alert of a period is claimed for longer than the period stays the newest due one. */
const ALERT_ONCE_SECONDS = 60 * 86_400;

/**
 * Whether this process is the one to send the `kind` alert of a workspace's period: once per
 * account, workspace and period across workers (with claims). A report job that runs twice (its
 * lock lost on a loaded machine, so BullMQ hands it out again) finds the claim taken.
 */
export async function firstToAlert(
  o: Pick<DeliveryOptions, 'claims'>,
  kind: 'report-stale' | 'report-made' | 'report-draft',
  facts: Pick<ReportAlertFacts, 'account' | 'brandId' | 'period'>,
): Promise<boolean> {
  if (!o.claims) return true;
  return o.claims.take(
    `alerts:${kind}:${facts.account}:${brandKey(facts.brandId)}:${facts.period}`,
    ALERT_ONCE_SECONDS,
  );
}

/**
 * The client's name for a report alert's text when the alert `event` is on (else none is read):
 * the reports config's, else the workspace's in the runs; none when the runs cannot be read (the
 * alert then names the workspace id, as the only name known).
 */
export async function alertClientName(
  o: Pick<DeliveryOptions, 'config' | 'account' | 'store'>,
  brandId: string,
  event: 'report' | 'stale',
): Promise<string | undefined> {
  if (!o.config.alerts?.on.includes(event)) return undefined;
  try {
    return (await displayNames(o.config, o.account, o.store, [brandId])).workspace(brandId);
  } catch {
    return undefined;
  }
}

export async function notify(
  o: DeliveryOptions,
  webhook: string,
  payload: NonNullable<ReturnType<typeof reportAlert>>,
  facts: ReportAlertFacts,
): Promise<boolean> {
  const res = o.alertBatch
    ? await o.alertBatch.post(webhook, payload)
    : await sendAlert(webhook, payload, o.alertSend);
  const fields = { brand_id: facts.brandId, period: facts.period, event: payload.visync.event };
  if (res.ok) o.logger.info(fields, 'report alert sent');
  else o.logger.warn({ ...fields, err: res.error }, 'report alert not delivered');
  return res.ok;
}

/**
 * The formats written: the configured ones, those the mail attaches (`reports.attach`), and always
 * report.json (the next report's "what changed", the mail's client name).
 */
export function writtenFormats(s: ReportSettings): ReportFormat[] {
  const made = madeFormats(s);
  return made.includes('json') ? made : [...made, 'json'];
}

/**
 * The version of the report in the store (its manifest.json), for the record that names it:
 * `{ version, to_date, through }`, or nothing when no manifest is readable.
 */
export async function storedVersion(
  o: DeliveryOptions,
  due: Pick<Due, 'brandId' | 'period'>,
): Promise<Pick<DeliveryRecord, 'version' | 'to_date' | 'through'>> {
  const prefix = reportPrefix(o.account.name, due.brandId, due.period.label);
  const m = parseManifest(await o.store.get(`${prefix}manifest.json`));
  if (!m) return {};
  return {
    version: m.version,
    to_date: m.to_date,
    ...(m.to_date && m.through ? { through: m.through } : {}),
  };
}
