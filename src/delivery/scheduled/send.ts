// A made report mailed (./deliver.ts): to every recipient whose send is not recorded, each send
// claimed (src/delivery/claims/claims.ts) and recorded before and after (./records.ts), then the workspace's
// state (sent, made, draft or failed). A failure on one recipient never stops the others; a failed
// server or login stops its sends for the rest of the delivery (../mail/session.ts).
import type { SmtpConfig } from '../../config/schema.js';
import { scrubSecrets } from '../../log.js';
import { metrics } from '../../metrics/recorder.js';
import { storeTarget } from '../../report/output.js';
import { headlineOf } from '../../report/summary/headline.js';
import { brandKey, reportPrefix } from '../../sinks/layout.js';
import { errorMessage } from '../../util/errors.js';
import { attachmentName, type Headline } from '../mail/compose.js';
import type { MailSession } from '../mail/session.js';
import {
  accountFailure,
  certainlyNotSent,
  type MailTimeouts,
  mailFailureReason,
  type ReportMail,
  SMTP_TIMEOUTS,
} from '../mail/smtp.js';
import {
  clearSend,
  confirmed,
  type DeliveryRecord,
  type DeliveryState,
  readSend,
  readSends,
  recordSend,
  reportMessageId,
} from './records.js';
import { outcome, save, writtenFormats } from './steps.js';
import type { DeliveryOptions, DeliveryOutcome, Due, RecipientOutcome } from './types.js';

/** A claim outlasts the bounded send it covers (src/delivery/mail/smtp.ts) and is given back after it. */
export function sendClaimSeconds(t: MailTimeouts = SMTP_TIMEOUTS): number {
  return Math.ceil(t.sendTimeout / 1000) + 180;
}

/** What to do about a `sending` record: said once, here. */
export const UNCONFIRMED_FIX =
  'check with the recipient, then `visync report send --resend-unconfirmed` mails it again under the same Message-ID';

/** What the mail says of the report: the client's name and the headline figures (report.json). */
interface Facts {
  clientName: string;
  headline: Headline;
}

async function factsOf(o: DeliveryOptions, due: Due): Promise<Facts> {
  const report = await storeTarget(o.store).read(o.account.name, due.brandId, due.period.label);
  return {
    clientName: due.settings.clientName ?? report?.cover.client_name ?? due.brandId,
    // The one headline rule: the figures the report's summary and first card lead with.
    headline: report ? headlineOf(report) : { score: null, delta: null, earlier: false, comparable: false },
  };
}

/** The attachment, `<client>-<period>.<ext>`: the PDF when PDFs are made, else the HTML page (else the JSON model). */
async function attachmentOf(
  o: DeliveryOptions,
  due: Due,
  clientName: string,
): Promise<ReportMail['attachment']> {
  const prefix = reportPrefix(o.account.name, due.brandId, due.period.label);
  const formats = writtenFormats(due.settings);
  const format = formats.includes('pdf') ? 'pdf' : formats.includes('html') ? 'html' : 'json';
  const content = await o.store.get(`${prefix}report.${format}`);
  if (!content) throw new Error(`report.${format} is missing from ${prefix}`);
  const types = { pdf: 'application/pdf', html: 'text/html; charset=utf-8', json: 'application/json' };
  return {
    filename: attachmentName(clientName, due.period.label, format),
    content,
    contentType: types[format],
  };
}

function unconfirmed(recipient: string, startedAt: string | undefined): RecipientOutcome {
  return {
    recipient,
    result: 'unconfirmed',
    reason: `a send began${startedAt ? ` at ${startedAt}` : ''} and was never recorded as accepted, so it is not mailed again: ${UNCONFIRMED_FIX}`,
  };
}

/** Mails the made report to every recipient whose send is not recorded; records each send, then the state. */
export async function sendPending(
  o: DeliveryOptions,
  due: Due,
  session: MailSession,
): Promise<DeliveryOutcome> {
  const record = due.record as DeliveryRecord;
  const recipients = due.settings.recipients;
  const where = { account: o.account.name, brandId: due.brandId, period: due.period.label };
  const results: RecipientOutcome[] = [];
  const failAll = (reason: string) => {
    for (const r of recipients)
      if (!results.some((x) => x.recipient === r)) results.push({ recipient: r, result: 'failed', reason });
  };
  try {
    const sends = await readSends(o.store, where.account, where.brandId, where.period);
    // A `sending` record may be another process's send in progress: decided under the claim.
    const pending = recipients.filter((r) => {
      const s = sends.get(r.toLowerCase());
      if (!s || !confirmed(s)) return true;
      results.push({ recipient: r, result: 'already sent' });
      return false;
    });
    const smtp = due.settings.smtp;
    if (pending.length && !smtp)
      failAll('recipients are set but reports.smtp is not: configure host and from');
    else if (pending.length && smtp) {
      const facts = await factsOf(o, due);
      const attachment = await attachmentOf(o, due, facts.clientName);
      for (const recipient of pending)
        results.push(await sendOne(o, { session, smtp, where, recipient, attachment, facts, due }));
    }
  } catch (err) {
    // The records or the report could not be read: nothing was sent to whoever is left.
    failAll(scrubSecrets(errorMessage(err)));
  }
  results.sort((a, b) => recipients.indexOf(a.recipient) - recipients.indexOf(b.recipient));
  const failed = results.filter((r) => r.result === 'failed' || r.result === 'unconfirmed');
  const state: DeliveryState = failed.length
    ? 'failed'
    : results.every((r) => r.result === 'sent' || r.result === 'already sent') && recipients.length
      ? 'sent'
      : record.state === 'draft' && due.settings.review && !results.length
        ? 'draft'
        : 'made';
  const reason = failed.length ? failed.map((f) => `${f.recipient}: ${f.reason}`).join('; ') : undefined;
  let saved = record;
  let recordFailure: string | undefined;
  if (state !== record.state || reason !== record.reason) {
    const { reason: _old, ...rest } = record;
    const next = { ...rest, recipients: [...recipients], state, ...(reason ? { reason } : {}) };
    try {
      saved = await save(o, next);
    } catch (err) {
      // The sends are recorded on their own; only the summary is behind. Said, not thrown.
      recordFailure = `delivery.json not written: ${scrubSecrets(errorMessage(err))}`;
      saved = { ...next, updated_at: record.updated_at };
    }
    metrics.reportDelivery(state);
  }
  for (const r of results)
    if (r.result === 'failed' || r.result === 'unconfirmed')
      o.logger.error(
        { brand_id: due.brandId, period: due.period.label, recipient: r.recipient, err: r.reason },
        r.result === 'failed' ? 'report mail failed' : 'report mail unconfirmed',
      );
    else if (r.result === 'sent')
      o.logger.info(
        { brand_id: due.brandId, period: due.period.label, recipient: r.recipient },
        'report mailed',
      );
  if (recordFailure)
    o.logger.error(
      { brand_id: due.brandId, period: due.period.label, err: recordFailure },
      'report not recorded',
    );
  return { ...outcome(saved, results), ...(recordFailure ? { recordFailure } : {}) };
}

interface OneSend {
  session: MailSession;
  smtp: SmtpConfig;
  where: { account: string; brandId: string; period: string };
  recipient: string;
  attachment: ReportMail['attachment'];
  facts: Facts;
  due: Due;
}

/** One recipient: claimed, recorded `sending`, mailed, recorded `sent`; the claim given back. */
async function sendOne(o: DeliveryOptions, s: OneSend): Promise<RecipientOutcome> {
  const { where, recipient } = s;
  const broken = s.session.broken(s.smtp);
  if (broken) return { recipient, result: 'failed', reason: `not tried: ${broken}` };
  const claim = `report-send:${where.account}:${brandKey(where.brandId)}:${where.period}:${brandKey(recipient.toLowerCase())}`;
  try {
    if (o.claims && !(await o.claims.take(claim, sendClaimSeconds(o.mailTimeouts), { whileAlive: true })))
      return { recipient, result: 'claimed', reason: 'another process is sending it now' };
  } catch (err) {
    return {
      recipient,
      result: 'failed',
      reason: `not sent: the claim could not be taken: ${errorMessage(err)}`,
    };
  }
  try {
    return await claimedSend(o, s);
  } catch (err) {
    // Its record could not be read (everything after that read answers for itself): not sent,
    // and the next recipient is tried all the same.
    return { recipient, result: 'failed', reason: `not sent: ${scrubSecrets(errorMessage(err))}` };
  } finally {
    await o.claims?.release(claim).catch(() => {});
  }
}

async function claimedSend(o: DeliveryOptions, s: OneSend): Promise<RecipientOutcome> {
  const { where, recipient } = s;
  const now = () => (o.now?.() ?? new Date()).toISOString();
  // Read again under the claim: another process may have sent it since the records were listed.
  const before = await readSend(o.store, where, recipient);
  if (before && confirmed(before)) return { recipient, result: 'already sent' };
  if (before && !o.resendUnconfirmed) return unconfirmed(recipient, before.started_at);
  const messageId = reportMessageId(where, recipient, s.smtp.from);
  const intent = { recipient, channel: 'email' as const, message_id: messageId };
  try {
    await recordSend(o.store, where, { ...intent, state: 'sending', started_at: now() });
  } catch (err) {
    return {
      recipient,
      result: 'failed',
      reason: `not sent: its send record could not be written (${scrubSecrets(errorMessage(err))}); fix the store, then run \`visync report send\``,
    };
  }
  try {
    const mailer = await s.session.mailer(s.smtp);
    const settings = s.due.settings;
    await mailer.send({
      to: recipient,
      messageId,
      words: {
        clientName: s.facts.clientName,
        period: s.due.period,
        locale: settings.locale ?? null,
        headline: s.facts.headline,
        fileName: s.attachment.filename,
        agency: settings.agency,
        contact: settings.contact,
      },
      addressing: settings.mail,
      // The copies ride with the first recipient's mail, so they arrive once (../mail/smtp.ts).
      withCopies: recipient === settings.recipients[0],
      attachment: s.attachment,
    });
  } catch (err) {
    const reason = scrubSecrets(mailFailureReason(s.smtp, err));
    if (accountFailure(err)) await s.session.trip(s.smtp, reason);
    // Dropped or silent midway: the server may have the mail. Kept `sending`, not mailed again.
    if (!certainlyNotSent(err))
      return {
        recipient,
        result: 'unconfirmed',
        reason: `the server never said whether it took the mail (${reason}), so it is not mailed again: ${UNCONFIRMED_FIX}`,
      };
    try {
      await clearSend(o.store, where, recipient);
    } catch (e) {
      return {
        recipient,
        result: 'unconfirmed',
        reason: `refused (${reason}), and its \`sending\` record could not be cleared (${scrubSecrets(errorMessage(e))}): ${UNCONFIRMED_FIX}`,
      };
    }
    return { recipient, result: 'failed', reason };
  }
  // The crash window: killed here, the mail is out and its record says `sending`: not mailed again.
  try {
    await recordSend(o.store, where, { ...intent, state: 'sent', sent_at: now() });
  } catch (err) {
    return {
      recipient,
      result: 'unconfirmed',
      reason: `mailed, but its record could not be written (${scrubSecrets(errorMessage(err))}): it stays \`sending\` and is not mailed again; fix the store`,
    };
  }
  return { recipient, result: 'sent' };
}
