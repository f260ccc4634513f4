// Scheduled reports made and delivered (docs/reports.md, "Scheduled reports and delivery"). After a
// nightly run, each workspace with a schedule gets the report of its newest due period
// (./schedule.ts): made only when a complete run dated on the period's last day covers the
// workspace (else `stale`: not made, not sent, one alert), then mailed to every recipient not yet
// recorded (./delivery.ts), or kept as a draft with `review: true` until `visync report send`.
// Every outcome ends recorded in delivery.json; a failure is tried again at the next trigger,
// and only while its period is the newest due one.
import type { Logger } from 'pino';
import type { AccountConfig, Config } from '../config/schema.js';
import { scrubSecrets } from '../log.js';
import { type ReportAlertFacts, reportAlert, type SendOptions, sendAlert } from '../ops/alerts.js';
import { metrics } from '../ops/metrics.js';
import { brandKey, reportPrefix } from '../sinks/layout.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { errorMessage } from '../util/errors.js';
import { utcDate } from '../util/time.js';
import { reportableWorkspaces } from './account-data.js';
import { type CompleteRun, completeRuns } from './complete-runs.js';
import {
  type DeliveryRecord,
  type DeliveryState,
  readDelivery,
  readSends,
  recordSend,
  reportMessageId,
  writeDelivery,
} from './delivery.js';
import { openMailer, type ReportMail } from './mail.js';
import { makeAccountReports } from './make.js';
import { type ReportFormat, storeTarget } from './output.js';
import type { PdfSession } from './pdf.js';
import { type Period, rangePeriod } from './period.js';
import { duePeriod } from './schedule.js';
import { covers } from './select.js';
import { type ReportSettings, reportSettingsFor, styleOf } from './style.js';

/** Claims across workers (Redis SET NX with a TTL); without one (the CLI) the records alone decide. */
export interface Claims {
  take(key: string, ttlSeconds: number): Promise<boolean>;
  release(key: string): Promise<void>;
}

export interface DeliveryOptions {
  config: Config;
  account: AccountConfig;
  store: ObjectStore;
  logger: Logger;
  claims?: Claims;
  /** Called with each workspace's state after it was decided (the worker keeps an index for `status`). */
  onState?: (brandId: string, period: string, state: DeliveryState) => Promise<void>;
  env?: NodeJS.ProcessEnv;
  now?: () => Date;
  /** Webhook delivery bounds (tests use short ones). */
  alertSend?: SendOptions;
}

/** What one recipient's send came to: `sent`, `already sent`, `claimed` (another worker sends it) or the failure. */
export interface RecipientOutcome {
  recipient: string;
  result: 'sent' | 'already sent' | 'claimed' | 'failed';
  reason?: string;
}

export interface WorkspaceOutcome {
  brandId: string;
  period: string;
  state: DeliveryState;
  reason?: string;
  location?: string;
  recipients: RecipientOutcome[];
}

/** A claim lasts longer than a send can (bounded timeouts, src/report/mail.ts), and ends with it. */
const SEND_CLAIM_SECONDS = 15 * 60;
/** The stale alert of a period is claimed for longer than the period stays the newest due one. */
const STALE_ALERT_SECONDS = 60 * 86_400;

interface Due {
  brandId: string;
  period: Period;
  settings: ReportSettings;
  record: DeliveryRecord | undefined;
}

/**
 * The due reports of the account's scheduled workspaces, after the nightly run of `trigger.runDate`:
 * stale ones recorded (and alerted once), the others made and sent as their records say.
 */
export async function deliverScheduled(
  o: DeliveryOptions,
  trigger: { runDate: string; runId: string },
): Promise<WorkspaceOutcome[]> {
  const now = o.now ?? (() => new Date());
  const runs = await completeRuns(o.store, o.account.name, now().getTime());
  const out: WorkspaceOutcome[] = [];
  const toMake: Due[] = [];
  const toSend: Due[] = [];
  for (const brandId of reportableWorkspaces(runs, rangePeriod(trigger.runDate, trigger.runDate))) {
    const settings = reportSettingsFor(o.config, o.account, brandId);
    if (!settings.schedule) continue;
    const { period } = duePeriod(settings.schedule, trigger.runDate);
    const record = await readDelivery(o.store, o.account.name, brandId, period.label);
    const due: Due = { brandId, period, settings, record };
    if (record && finished(record, settings)) out.push(outcome(record));
    else if (record?.location) toSend.push(due);
    else {
      const stale = staleReason(runs, brandId, period);
      if (stale) out.push(await markStale(o, due, stale, trigger));
      else toMake.push(due);
    }
  }
  const made = await makeReports(o, toMake, trigger);
  for (const m of made) {
    if (m.state === 'made') toSend.push({ ...m.due, record: m.record });
    else out.push(outcome(m.record));
  }
  for (const due of toSend) out.push(await sendPending(o, due));
  for (const w of out) await o.onState?.(w.brandId, w.period, w.state);
  return out;
}

/**
 * `visync report send`: the drafts (and recipients not yet sent) of the workspaces' reports of
 * `period` (default: each workspace's newest due period on today's date).
 */
export async function sendMadeReports(
  o: DeliveryOptions,
  want: { brands: readonly string[]; period?: Period },
): Promise<{ outcomes: WorkspaceOutcome[]; workspaces: string[] }> {
  const now = o.now ?? (() => new Date());
  const today = utcDate(now());
  const runs = await completeRuns(o.store, o.account.name, now().getTime());
  const workspaces = reportableWorkspaces(runs, rangePeriod(today, today));
  const out: WorkspaceOutcome[] = [];
  for (const brandId of want.brands.length ? want.brands.filter((b) => workspaces.includes(b)) : workspaces) {
    const settings = reportSettingsFor(o.config, o.account, brandId);
    if (!settings.schedule && !want.period) continue;
    const period =
      want.period ?? duePeriod(settings.schedule as NonNullable<typeof settings.schedule>, today).period;
    const record = await readDelivery(o.store, o.account.name, brandId, period.label);
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
    out.push(await sendPending(o, { brandId, period, settings, record }));
  }
  return { outcomes: out, workspaces };
}

/** Nothing left to do for this period: every recipient sent, a draft awaiting review, nobody to mail. */
function finished(r: DeliveryRecord, s: ReportSettings): boolean {
  return (
    r.state === 'sent' ||
    (r.state === 'draft' && s.review) ||
    (r.state === 'made' && s.recipients.length === 0)
  );
}

function outcome(r: DeliveryRecord, recipients: RecipientOutcome[] = []): WorkspaceOutcome {
  return {
    brandId: r.brand_id,
    period: r.period,
    state: r.state,
    ...(r.reason ? { reason: r.reason } : {}),
    ...(r.location ? { location: r.location } : {}),
    recipients,
  };
}

/** Why the period cannot be reported yet; undefined when a complete run of its last day covers the workspace. */
export function staleReason(
  runs: readonly CompleteRun[],
  brandId: string,
  period: Period,
): string | undefined {
  const onLastDay = runs.filter((r) => r.runDate === period.to);
  if (onLastDay.some((r) => covers(r, 'brands', brandId))) return undefined;
  if (!onLastDay.length) return `no complete run is dated ${period.to}, the last day of ${period.label}`;
  return `no complete run dated ${period.to} (the last day of ${period.label}) holds workspace ${brandId}`;
}

async function save(o: DeliveryOptions, r: Omit<DeliveryRecord, 'updated_at'>): Promise<DeliveryRecord> {
  const record = {
    ...r,
    ...(r.reason ? { reason: scrubSecrets(r.reason) } : {}),
    updated_at: (o.now?.() ?? new Date()).toISOString(),
  };
  await writeDelivery(o.store, record);
  return record;
}

function base(o: DeliveryOptions, due: Due, trigger?: { runDate: string; runId: string }) {
  return {
    account: o.account.name,
    brand_id: due.brandId,
    period: due.period.label,
    run_date: trigger?.runDate ?? due.record?.run_date ?? '',
    ...(trigger ? { run_id: trigger.runId } : due.record?.run_id ? { run_id: due.record.run_id } : {}),
    recipients: [...due.settings.recipients],
  };
}

async function markStale(
  o: DeliveryOptions,
  due: Due,
  reason: string,
  trigger: { runDate: string; runId: string },
): Promise<WorkspaceOutcome> {
  const first = due.record?.state !== 'stale';
  let alerted = due.record?.stale_alerted === true;
  if (!alerted)
    alerted = await alertOnce(o, {
      account: o.account.name,
      brandId: due.brandId,
      period: due.period.label,
      staleReason: reason,
    });
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
  const key = `alerts:report-stale:${facts.account}:${brandKey(facts.brandId)}:${facts.period}`;
  if (o.claims && !(await o.claims.take(key, STALE_ALERT_SECONDS))) return true;
  return notify(o, alerts.webhook, payload, facts);
}

async function notify(
  o: DeliveryOptions,
  webhook: string,
  payload: NonNullable<ReturnType<typeof reportAlert>>,
  facts: ReportAlertFacts,
): Promise<boolean> {
  const res = await sendAlert(webhook, payload, o.alertSend);
  const fields = { brand_id: facts.brandId, period: facts.period, event: payload.visync.event };
  if (res.ok) o.logger.info(fields, 'report alert sent');
  else o.logger.warn({ ...fields, err: res.error }, 'report alert not delivered');
  return res.ok;
}

interface Made {
  due: Due;
  state: DeliveryState;
  record: DeliveryRecord;
}

/** The formats written: the configured ones and always report.json (the next report's "what changed", the mail's client name). */
function formatsOf(s: ReportSettings): ReportFormat[] {
  return s.formats.includes('json') ? [...s.formats] : [...s.formats, 'json'];
}

/** Makes the reports (one read of the account's data per period and set of formats), recording each. */
async function makeReports(
  o: DeliveryOptions,
  dues: readonly Due[],
  trigger: { runDate: string; runId: string },
): Promise<Made[]> {
  const groups = new Map<string, Due[]>();
  for (const d of dues) {
    const key = `${d.period.label} ${formatsOf(d.settings).join(',')}`;
    groups.set(key, [...(groups.get(key) ?? []), d]);
  }
  let pdf: PdfSession | undefined;
  const out: Made[] = [];
  try {
    for (const group of groups.values()) {
      const first = group[0] as Due;
      const formats = formatsOf(first.settings);
      // Chromium that does not start, a store that fails mid-way: the group's reports end failed
      // with the reason (tried again at the next trigger), the other groups go on.
      const r = await makeGroup(o, group, formats, async () => {
        if (!pdf) {
          const { PdfSession } = await import('./pdf.js');
          pdf = await PdfSession.open(reportSettingsFor(o.config, o.account).chromiumPath);
        }
        return pdf;
      }).catch((err: unknown) => ({
        made: [],
        problems: [{ kind: 'no data' as const, line: errorMessage(err) }],
      }));
      const problems = r.problems.map((p) => p.line).join('; ');
      for (const d of group) {
        const m = r.made.find((x) => x.brandId === d.brandId);
        if (!m) {
          const reason = `report not made: ${problems || 'no data for the workspace'}`;
          out.push({
            due: d,
            state: 'failed',
            record: await save(o, { ...base(o, d, trigger), state: 'failed', reason }),
          });
          metrics.reportDelivery('failed');
          o.logger.error(
            { brand_id: d.brandId, period: d.period.label, err: reason },
            'scheduled report failed',
          );
          continue;
        }
        const state = d.settings.review ? 'draft' : 'made';
        const record = await save(o, { ...base(o, d, trigger), state, location: m.location });
        metrics.reportDelivery(state);
        o.logger.info(
          { brand_id: d.brandId, period: d.period.label, location: m.location, state },
          'scheduled report made',
        );
        const alerts = o.config.alerts;
        const facts = {
          account: o.account.name,
          brandId: d.brandId,
          period: d.period.label,
          location: m.location,
          draft: d.settings.review,
        };
        const payload = alerts && reportAlert(facts, alerts.on);
        if (alerts && payload) await notify(o, alerts.webhook, payload, facts);
        out.push({ due: d, state, record });
      }
    }
  } finally {
    await pdf?.close();
  }
  return out;
}

/** One group's reports: same period, same formats, one read of the account's data. */
async function makeGroup(
  o: DeliveryOptions,
  group: readonly Due[],
  formats: ReportFormat[],
  pdfSession: () => Promise<PdfSession>,
) {
  const first = group[0] as Due;
  const session = formats.includes('pdf') ? await pdfSession() : undefined;
  const byBrand = new Map(group.map((d) => [d.brandId, d]));
  return makeAccountReports({
    store: o.store,
    target: storeTarget(o.store),
    account: o.account.name,
    period: first.period,
    brands: group.map((d) => d.brandId),
    formats,
    styleFor: (b) => styleOf((byBrand.get(b) as Due).settings),
    ...(session
      ? {
          printPdf: (html: string, b: string) => {
            const s = (byBrand.get(b) as Due).settings;
            return session.render(html, {
              pageSize: s.pageSize,
              ...(s.footer ? { footerText: s.footer } : {}),
            });
          },
        }
      : {}),
    now: (o.now?.() ?? new Date()).getTime(),
  });
}

/** The attachment: the PDF when PDFs are made, else the HTML page (else the JSON model). */
async function attachmentOf(o: DeliveryOptions, due: Due): Promise<ReportMail['attachment']> {
  const prefix = reportPrefix(o.account.name, due.brandId, due.period.label);
  const formats = formatsOf(due.settings);
  const format = formats.includes('pdf') ? 'pdf' : formats.includes('html') ? 'html' : 'json';
  const content = await o.store.get(`${prefix}report.${format}`);
  if (!content) throw new Error(`report.${format} is missing from ${prefix}`);
  const types = { pdf: 'application/pdf', html: 'text/html; charset=utf-8', json: 'application/json' };
  return { filename: `report-${due.period.label}.${format}`, content, contentType: types[format] };
}

async function clientNameOf(o: DeliveryOptions, due: Due): Promise<string> {
  if (due.settings.clientName) return due.settings.clientName;
  const report = await storeTarget(o.store).read(o.account.name, due.brandId, due.period.label);
  return report?.cover.client_name ?? due.brandId;
}

/** Mails the made report to every recipient whose send is not recorded; records each send, then the state. */
async function sendPending(o: DeliveryOptions, due: Due): Promise<WorkspaceOutcome> {
  const record = due.record as DeliveryRecord;
  const recipients = due.settings.recipients;
  const where = { account: o.account.name, brandId: due.brandId, period: due.period.label };
  const results: RecipientOutcome[] = [];
  const sent = await readSends(o.store, where.account, where.brandId, where.period);
  const pending = recipients.filter((r) => {
    if (!sent.has(r.toLowerCase())) return true;
    results.push({ recipient: r, result: 'already sent' });
    return false;
  });
  let failure: string | undefined;
  if (pending.length) {
    try {
      const smtp = due.settings.smtp;
      if (!smtp) throw new Error('recipients are set but reports.smtp is not: configure host and from');
      const attachment = await attachmentOf(o, due);
      const clientName = await clientNameOf(o, due);
      const mailer = await openMailer(smtp, o.env);
      try {
        for (const recipient of pending) {
          results.push(await sendOne(o, { mailer, smtp, where, recipient, attachment, clientName, due }));
        }
      } finally {
        mailer.close();
      }
    } catch (err) {
      failure = errorMessage(err);
      for (const r of pending)
        if (!results.some((x) => x.recipient === r))
          results.push({ recipient: r, result: 'failed', reason: failure });
    }
  }
  const failed = results.filter((r) => r.result === 'failed');
  const state: DeliveryState = failed.length
    ? 'failed'
    : results.every((r) => r.result === 'sent' || r.result === 'already sent') && recipients.length
      ? 'sent'
      : record.state === 'draft' && due.settings.review && !results.length
        ? 'draft'
        : 'made';
  const reason = failed.length ? failed.map((f) => `${f.recipient}: ${f.reason}`).join('; ') : undefined;
  let saved = record;
  if (state !== record.state || reason !== record.reason) {
    const { reason: _old, ...rest } = record;
    saved = await save(o, { ...rest, recipients: [...recipients], state, ...(reason ? { reason } : {}) });
    metrics.reportDelivery(state);
  }
  for (const r of results)
    if (r.result === 'failed')
      o.logger.error(
        { brand_id: due.brandId, period: due.period.label, recipient: r.recipient, err: r.reason },
        'report mail failed',
      );
    else if (r.result === 'sent')
      o.logger.info(
        { brand_id: due.brandId, period: due.period.label, recipient: r.recipient },
        'report mailed',
      );
  return outcome(saved, results);
}

async function sendOne(
  o: DeliveryOptions,
  s: {
    mailer: Awaited<ReturnType<typeof openMailer>>;
    smtp: NonNullable<ReportSettings['smtp']>;
    where: { account: string; brandId: string; period: string };
    recipient: string;
    attachment: ReportMail['attachment'];
    clientName: string;
    due: Due;
  },
): Promise<RecipientOutcome> {
  const { where, recipient } = s;
  const claim = `report-send:${where.account}:${brandKey(where.brandId)}:${where.period}:${brandKey(recipient.toLowerCase())}`;
  if (o.claims && !(await o.claims.take(claim, SEND_CLAIM_SECONDS))) return { recipient, result: 'claimed' };
  const messageId = reportMessageId(where, recipient, s.smtp.from);
  try {
    await s.mailer.send({
      to: recipient,
      messageId,
      clientName: s.clientName,
      period: s.due.period,
      agency: s.due.settings.agency,
      contact: s.due.settings.contact,
      attachment: s.attachment,
    });
  } catch (err) {
    await o.claims?.release(claim);
    return { recipient, result: 'failed', reason: scrubSecrets(errorMessage(err)) };
  }
  // The crash window: a process killed here has sent the mail without recording it. The claim
  // (until it expires) and the fixed Message-ID stand in for the record (docs/reports.md).
  await recordSend(o.store, where, {
    recipient,
    channel: 'email',
    sent_at: (o.now?.() ?? new Date()).toISOString(),
    message_id: messageId,
  });
  return { recipient, result: 'sent' };
}
