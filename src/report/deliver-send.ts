// A made report mailed (./deliver.ts): to every recipient whose send is not recorded, each send
// claimed across workers and recorded, then the workspace's state (sent, made, draft or failed).
import { scrubSecrets } from '../log.js';
import { metrics } from '../ops/metrics.js';
import { brandKey, reportPrefix } from '../sinks/layout.js';
import { errorMessage } from '../util/errors.js';
import type { DeliveryOptions, RecipientOutcome, WorkspaceOutcome } from './deliver.js';
import { type Due, formatsOf, outcome, save } from './deliver-steps.js';
import {
  type DeliveryRecord,
  type DeliveryState,
  readSends,
  recordSend,
  reportMessageId,
} from './delivery.js';
import { openMailer, type ReportMail } from './mail.js';
import { storeTarget } from './output.js';
import type { ReportSettings } from './style.js';

/** A claim lasts longer than a send can (bounded timeouts, src/report/mail.ts), and ends with it. */
const SEND_CLAIM_SECONDS = 15 * 60;
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
export async function sendPending(o: DeliveryOptions, due: Due): Promise<WorkspaceOutcome> {
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
