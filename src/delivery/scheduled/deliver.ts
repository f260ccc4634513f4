// Scheduled reports made and delivered (docs/reports.md, "Scheduled reports and delivery"). After a
// nightly run, each workspace with a schedule gets the report of its newest due period
// (../schedule.ts): made only when a complete run returned the period's last day for the workspace
// (one dated on it, or a later one whose window holds it; else `stale`: not made, not sent, one
// alert), then mailed to every recipient not yet recorded (./records.ts), or kept as a draft with
// `review: true` until `visync report send`. A to-date report of the period (sent by hand while it
// ran) does not count: the final one is made and mailed all the same (docs/reports.md, "To date and final").
// Every outcome ends recorded in delivery.json; a failure is tried again at the next trigger,
// and only while its period is the newest due one.
import type { AccountConfig, SmtpConfig } from '../../config/schema.js';
import { type CompleteRun, completeRuns } from '../../history/complete-runs.js';
import { isoWeekOf, monthOf, type Period, parsePeriod, rangePeriod } from '../../history/period.js';
import { knownWorkspaces, missingDaysLine } from '../../history/period-workspaces.js';
import { covers, coversLastDay } from '../../history/select.js';
import { metrics } from '../../metrics/recorder.js';
import { periodWorkspaces, reportableWorkspaces } from '../../report/model/account-data.js';
import { type ReportSettings, reportSettingsFor } from '../../report/settings.js';
import { addDays, utcDate } from '../../util/time.js';
import { MailSession, serverName } from '../mail/session.js';
import { duePeriod } from '../schedule.js';
import { mailStoppedAlert, type ReportAlertFacts, reportAlert } from '../webhooks/payloads.js';
import { AlertBatch, sendAlert } from '../webhooks/send.js';
import { handMadeRecord } from './hand-made.js';
import { makeReports } from './make.js';
import { type MarkResult, markSent } from './mark-sent.js';
import { type DeliveryRecord, readDelivery } from './records.js';
import { sendPending } from './send.js';
import { alertClientName, base, firstToAlert, notify, outcome, save } from './steps.js';
import type { DeliveryOptions, DeliveryOutcome, Due } from './types.js';

/**
 * A report job's alerts (a made or stale alert per workspace): four at once, all settled within
 * two minutes. 500 workspaces to a webhook answering in 1 s take about 125 s; one that never
 * answers costs the job the deadline once, not each alert's 20 s bound one after another.
 */
const JOB_ALERTS = { concurrency: 4, deadlineMs: 120_000 };

/**
 * The due reports of the account's scheduled workspaces, after the nightly run of `trigger.runDate`:
 * stale ones recorded (and alerted once), the others made and sent as their records say.
 */
export async function deliverScheduled(
  o: DeliveryOptions,
  trigger: { runDate: string; runId: string },
): Promise<DeliveryOutcome[]> {
  o = { ...o, alertBatch: o.alertBatch ?? new AlertBatch(o.alertSend, JOB_ALERTS) };
  const now = o.now ?? (() => new Date());
  const runs = await completeRuns(o.store, o.account.name, now().getTime());
  const out: DeliveryOutcome[] = [];
  const stales: Promise<DeliveryOutcome>[] = [];
  const toMake: Due[] = [];
  const toSend: Due[] = [];
  for (const brandId of reportableWorkspaces(runs, rangePeriod(trigger.runDate, trigger.runDate))) {
    const settings = reportSettingsFor(o.config, o.account, brandId);
    if (!settings.schedule) continue;
    const { period } = duePeriod(settings.schedule, trigger.runDate);
    const record = await readDelivery(o.store, o.account.name, brandId, period.label);
    const due: Due = { brandId, period, settings, record };
    // A to-date report (made and maybe sent by hand while the period ran) never finishes the period:
    // the final one is made here once the period is covered, and mailed to every recipient once.
    const final = record?.to_date !== true;
    if (record && final && finished(record, settings)) out.push(outcome(record));
    else if (record?.location && final) toSend.push(due);
    else {
      const stale = staleReason(runs, brandId, period);
      // A to-date report sent by hand (a stale period recovered, docs/operations.md) stays as it is
      // until a run returns the last day: then the final one is made and mailed.
      if (stale && record?.to_date && record.state === 'sent') out.push(outcome(record));
      // Together: each waits on its alert, and the alerts go out at once (JOB_ALERTS).
      else if (stale) stales.push(markStale(o, due, stale, trigger));
      else toMake.push(due);
    }
  }
  out.push(...(await Promise.all(stales)));
  // The runs read above serve the reports too: the account's manifests are read once per job.
  const made = await makeReports(o, toMake, trigger, runs);
  for (const m of made) {
    if (m.state === 'made') toSend.push({ ...m.due, record: m.record });
    else out.push(outcome(m.record));
  }
  await withMail(o, async (mail) => {
    for (const due of toSend) out.push(await sendPending(o, due, mail));
  });
  // The made reports' alerts went out beside the mails; the job ends once they settled.
  await o.alertBatch?.settled();
  for (const w of out) await o.onState?.(w.brandId, w.period, w.state);
  if (o.onToDate) for (const w of out) await o.onToDate(w.brandId, await toDateOut(o, w));
  return out;
}

/**
 * The to-date report a workspace has out, sent by hand, whose final report is still to follow: of
 * its due period (no run returned its last day yet), else of the period after it (running, or
 * ended and not due yet).
 */
async function toDateOut(
  o: DeliveryOptions,
  w: { brandId: string; period: string },
): Promise<{ period: string; through: string } | undefined> {
  const due = parsePeriod(w.period);
  if (!due) return undefined;
  const after = addDays(due.to, 1);
  const next = due.kind === 'week' ? isoWeekOf(after) : monthOf(after);
  for (const label of [due.label, next.label]) {
    const r = await readDelivery(o.store, o.account.name, w.brandId, label);
    if (r?.to_date && r.state === 'sent') return { period: label, through: r.through ?? '' };
  }
  return undefined;
}

/** Runs `fn` with the delivery's mail session (the caller's, or one made and closed here). */
async function withMail(o: DeliveryOptions, fn: (mail: MailSession) => Promise<void>): Promise<void> {
  const mail = o.mail ?? mailSession(o);
  try {
    await fn(mail);
  } finally {
    if (!o.mail) await mail.close();
  }
}

/**
 * A delivery's SMTP connections; a server or login that fails stops for the rest of it with one
 * `failed` alert (when `failed` is in alerts.on) and one log line.
 */
export function mailSession(
  o: Pick<DeliveryOptions, 'config' | 'logger' | 'env' | 'mailTimeouts' | 'alertSend'> & {
    account?: AccountConfig;
  },
): MailSession {
  return new MailSession(o.env, o.mailTimeouts, async (smtp: SmtpConfig, reason: string) => {
    const account = o.account?.name;
    const where = serverName(smtp);
    o.logger.error({ smtp: where, err: reason }, 'report mail stopped: no further sends to this server now');
    const alerts = o.config.alerts;
    if (!alerts?.on.includes('failed')) return;
    const res = await sendAlert(
      alerts.webhook,
      mailStoppedAlert({ account, server: where, reason }),
      o.alertSend,
    );
    if (!res.ok) o.logger.warn({ err: res.error }, 'report mail alert not delivered');
  });
}

/**
 * `visync report send`: the drafts (and recipients not yet sent) of the workspaces' reports of
 * `period` (default: each workspace's newest due period on today's date).
 */
export async function sendMadeReports(
  o: DeliveryOptions,
  want: ReportsWanted,
): Promise<{ outcomes: DeliveryOutcome[]; workspaces: string[]; known: string[] }> {
  const { out, toSend, workspaces, known } = await madeReports(o, want);
  await withMail(o, async (mail) => {
    for (const due of toSend) out.push(await sendPending(o, due, mail));
  });
  return { outcomes: out, workspaces, known };
}

/**
 * `visync report send --mark-sent ADDRESS`: those addresses of the same reports `report send`
 * would send recorded as sent, nothing mailed (./mark-sent.ts); a report they are not addresses of
 * is named in `refused`, with nothing of it marked.
 */
export async function markMadeReports(
  o: DeliveryOptions,
  want: ReportsWanted & { addresses: readonly string[] },
): Promise<{
  outcomes: DeliveryOutcome[];
  refused: Extract<MarkResult, { notListed: string[] }>[];
  known: string[];
}> {
  const { out, toSend, known } = await madeReports(o, want);
  const refused: Extract<MarkResult, { notListed: string[] }>[] = [];
  for (const due of toSend) {
    const r = await markSent(o, due, want.addresses);
    if ('outcome' in r) out.push(r.outcome);
    else refused.push(r);
  }
  return { outcomes: out, refused, known };
}

/**
 * The made reports `report send` acts on: `toSend`, and a line's outcome for each workspace asked
 * for whose report is not made (`out`).
 */
async function madeReports(
  o: DeliveryOptions,
  want: ReportsWanted,
): Promise<{ out: DeliveryOutcome[]; toSend: Due[]; workspaces: string[]; known: string[] }> {
  const now = o.now ?? (() => new Date());
  const today = utcDate(now());
  const runs = await completeRuns(o.store, o.account.name, now().getTime());
  // A period asked for by name: its workspaces, a client removed since included (docs/reports.md).
  const workspaces = want.period
    ? periodWorkspaces(runs, want.period)
    : reportableWorkspaces(runs, rangePeriod(today, today));
  const known = knownWorkspaces(runs);
  const out: DeliveryOutcome[] = [];
  const toSend: Due[] = [];
  for (const brandId of want.brands.length ? want.brands.filter((b) => known.includes(b)) : workspaces) {
    if (want.period && !workspaces.includes(brandId)) {
      const why = missingDaysLine(runs, brandId, want.period);
      out.push({
        brandId,
        period: want.period.label,
        state: 'failed',
        reason: `nothing to send (${why})`,
        recipients: [],
      });
      continue;
    }
    const settings = reportSettingsFor(o.config, o.account, brandId);
    if (!settings.schedule && !want.period) continue;
    const period =
      want.period ?? duePeriod(settings.schedule as NonNullable<typeof settings.schedule>, today).period;
    const found = await readDelivery(o.store, o.account.name, brandId, period.label);
    // A period asked for by name may have been made by hand (`visync report --period P`).
    const record =
      found?.location || !want.period
        ? found
        : ((await handMadeRecord(o, { brandId, period, settings, record: found })) ?? found);
    if (!record?.location) {
      const why = record
        ? `${record.state}${record.reason ? `: ${record.reason}` : ''}`
        : 'no scheduled report made';
      out.push({
        brandId,
        period: period.label,
        state: record?.state ?? 'failed',
        reason: `nothing to send (${why})`,
        recipients: [],
      });
      continue;
    }
    if (record.held && !want.release?.includes(brandId)) {
      out.push({ ...outcome(record), held: record.held });
      continue;
    }
    toSend.push({ brandId, period, settings, record: await approved(o, record, want.approvedBy) });
  }
  return { out, toSend, workspaces, known };
}

/**
 * Which reports `report send` (and the review page, jobs/review-page.ts) acts on: `brands` (all when
 * empty) of `period`; a held one only when `release` names it, and `approvedBy` recorded on each
 * report still to be sent (a hold released without it names `visync report send`).
 */
export interface ReportsWanted {
  brands: readonly string[];
  period?: Period;
  release?: readonly string[];
  approvedBy?: string;
}

/** The record with its approval (who, when) and without its hold, written before anything is sent. */
async function approved(
  o: DeliveryOptions,
  record: DeliveryRecord,
  by: string | undefined,
): Promise<DeliveryRecord> {
  if (record.state === 'sent' || (!by && !record.held)) return record;
  const { held: _held, ...rest } = record;
  const at = (o.now?.() ?? new Date()).toISOString();
  return save(o, { ...rest, approved_by: by ?? 'visync report send', approved_at: at });
}

/** Nothing left to do for this period: every recipient sent, a draft awaiting review, nobody to mail. */
function finished(r: DeliveryRecord, s: ReportSettings): boolean {
  return (
    r.state === 'sent' ||
    r.held !== undefined ||
    (r.state === 'draft' && s.review) ||
    (r.state === 'made' && s.recipients.length === 0)
  );
}

/**
 * Why the period cannot be reported yet; undefined once a complete run returned its last day for
 * the workspace: one dated on that day, or a later one whose window holds it (a stale report is
 * made at the first trigger after such a run, while the period is still the newest due one).
 */
export function staleReason(
  runs: readonly CompleteRun[],
  brandId: string,
  period: Period,
): string | undefined {
  // A later run returned the last day; the period's own runs hold the workspace's state in it.
  const inPeriod = runs.some(
    (r) => r.runDate >= period.from && r.runDate <= period.to && covers(r, 'brands', brandId),
  );
  if (inPeriod && coversLastDay(runs, brandId, period.to)) return undefined;
  const onLastDay = runs.filter((r) => r.runDate === period.to);
  if (!onLastDay.length)
    return `no complete run is dated ${period.to}, the last day of ${period.label}, or returned that day since`;
  return `no complete run that returned ${period.to} (the last day of ${period.label}) holds workspace ${brandId}`;
}

async function markStale(
  o: DeliveryOptions,
  due: Due,
  reason: string,
  trigger: { runDate: string; runId: string },
): Promise<DeliveryOutcome> {
  const first = due.record?.state !== 'stale';
  let alerted = due.record?.stale_alerted === true;
  if (!alerted) {
    const clientName = await alertClientName(o, due.brandId, 'stale');
    alerted = await alertOnce(o, {
      account: o.account.name,
      brandId: due.brandId,
      ...(clientName ? { clientName } : {}),
      period: due.period.label,
      staleReason: reason,
    });
  }
  const record = await save(o, { ...base(o, due, trigger), state: 'stale', reason, stale_alerted: alerted });
  if (first) {
    metrics.reportDelivery('stale');
    o.logger.warn(
      { brand_id: due.brandId, period: due.period.label, reason },
      'scheduled report is stale: not made, not sent',
    );
  }
  return outcome(record);
}

/** The stale alert, once per account, workspace and period (across workers with claims). */
async function alertOnce(o: DeliveryOptions, facts: ReportAlertFacts): Promise<boolean> {
  const alerts = o.config.alerts;
  const payload = alerts && reportAlert(facts, alerts.on);
  if (!alerts || !payload) return false;
  if (!(await firstToAlert(o, 'report-stale', facts))) return true;
  return notify(o, alerts.webhook, payload, facts);
}
