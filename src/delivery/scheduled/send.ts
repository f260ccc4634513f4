// A made report mailed (./deliver.ts): to every recipient whose send is not recorded, each send
// claimed (src/delivery/claims/claims.ts) and recorded before and after (./records.ts), then the workspace's
// state (sent, made, draft or failed). A failure on one recipient never stops the others; a failed
// server or login stops its sends for the rest of the delivery (../mail/session.ts).
import type { SmtpConfig } from '../../config/schema.js';
import { scrubSecrets } from '../../log.js';
import { metrics } from '../../metrics/recorder.js';
import { checkedFile, manifestFormats, parseManifest, type ReportManifest } from '../../report/artefact.js';
import { parseReport } from '../../report/output.js';
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
  alreadyHas,
  clearSend,
  confirmed,
  type DeliveryRecord,
  type DeliveryState,
  readSend,
  readSends,
  recordSend,
  reportMessageId,
  type SendRecord,
  type VersionSent,
} from './records.js';
import { outcome, save } from './steps.js';
import type { DeliveryOptions, DeliveryOutcome, Due, RecipientOutcome } from './types.js';

/** A claim outlasts the bounded send it covers (src/delivery/mail/smtp.ts) and is given back after it. */
export function sendClaimSeconds(t: MailTimeouts = SMTP_TIMEOUTS): number {
  return Math.ceil(t.sendTimeout / 1000) + 180;
}

/** What to do about a `sending` record: said once, here. */
export const UNCONFIRMED_FIX =
  'check with the recipient, then `visync report send --resend-unconfirmed` mails it again under the same Message-ID';

/** What the mail says of the report (its client's name, the headline figures) and which version it is. */
interface Facts {
  clientName: string;
  headline: Headline;
  manifest: ReportManifest;
  /** The version mailed: its id, whether it is to date and through which day. */
  want: Required<Pick<VersionSent, 'version' | 'to_date'>> & VersionSent;
}

/**
 * The report as its manifest names it (src/report/artefact.ts): the version, whether it is to date,
 * and report.json's figures, read only when its bytes are that version's.
 */
async function factsOf(o: DeliveryOptions, due: Due): Promise<Facts> {
  const prefix = reportPrefix(o.account.name, due.brandId, due.period.label);
  const manifest = parseManifest(await o.store.get(`${prefix}manifest.json`));
  if (!manifest)
    throw new Error(
      `${prefix}manifest.json is missing or unreadable: the report is not whole; make it again`,
    );
  const read = (key: string) => o.store.get(key);
  const report = manifestFormats(manifest).includes('json')
    ? parseReport(await checkedFile(manifest, prefix, 'report.json', read))
    : undefined;
  // A manifest from before to-date was recorded: report.json says whether its period was running.
  const toDate = manifest.to_date || report?.period_status?.in_progress === true;
  const through = manifest.through || report?.period_status?.end || due.period.to;
  return {
    clientName: due.settings.clientName ?? report?.cover.client_name ?? due.brandId,
    // The one headline rule: the figures the report's summary and first card lead with.
    headline: report ? headlineOf(report) : { score: null, delta: null, earlier: false, comparable: false },
    manifest,
    want: { version: manifest.version, to_date: toDate, ...(toDate ? { through } : {}) },
  };
}

/**
 * The attachment, `<client>-<period>.<ext>`: the PDF when the report's version has one, else its HTML
 * page (else its JSON model), its bytes checked against the manifest (never a file it does not list).
 */
async function attachmentOf(o: DeliveryOptions, due: Due, facts: Facts): Promise<ReportMail['attachment']> {
  const prefix = reportPrefix(o.account.name, due.brandId, due.period.label);
  const has = manifestFormats(facts.manifest);
  const format = has.includes('pdf') ? 'pdf' : has.includes('html') ? 'html' : 'json';
  const content = await checkedFile(facts.manifest, prefix, `report.${format}`, (k) => o.store.get(k));
  const types = { pdf: 'application/pdf', html: 'text/html; charset=utf-8', json: 'application/json' };
  return {
    filename: attachmentName(facts.clientName, due.period.label, format, facts.want.through),
    content,
    contentType: types[format],
  };
}

/** What a record says the recipient got, for the outcome's line: and a to-date report before the final one. */
function gotOf(
  r: Omit<SendRecord, 'recipient' | 'channel' | 'message_id'>,
): NonNullable<RecipientOutcome['got']> {
  const toDate =
    r.to_date !== true ? r.earlier?.filter((e) => e.to_date === true && confirmed(e)).at(-1) : undefined;
  return {
    ...(r.version ? { version: r.version } : {}),
    to_date: r.to_date === true,
    ...(r.through ? { through: r.through } : {}),
    ...(toDate ? { afterToDate: toDate.through ?? '' } : {}),
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
  let facts: Facts | undefined;
  try {
    const sends = await readSends(o.store, where.account, where.brandId, where.period);
    // Everyone has the final report: nothing of the report itself is needed.
    const finalSent = (r: string) => {
      const s = sends.get(r.toLowerCase());
      return s !== undefined && confirmed(s) && s.to_date !== true;
    };
    if (!recipients.every(finalSent)) facts = await factsOf(o, due);
    const want = facts?.want;
    // A `sending` record may be another process's send in progress: decided under the claim.
    const pending = recipients.filter((r) => {
      const s = sends.get(r.toLowerCase());
      if (!s || !confirmed(s) || (want && !alreadyHas(s, want))) return true;
      results.push({ recipient: r, result: 'already sent', got: gotOf(s) });
      return false;
    });
    const smtp = due.settings.smtp;
    if (pending.length && !smtp)
      failAll('recipients are set but reports.smtp is not: configure host and from');
    else if (pending.length && smtp && facts) {
      const attachment = await attachmentOf(o, due, facts);
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
  // The record names the version it is about, and whether that one is to date (src/report/artefact.ts).
  const version = facts ? { version: facts.want.version, to_date: facts.want.to_date } : {};
  const newVersion =
    facts !== undefined &&
    (facts.want.version !== record.version || facts.want.to_date !== (record.to_date ?? false));
  if (state !== record.state || reason !== record.reason || newVersion) {
    const { reason: _old, through: _through, ...rest } = record;
    const next = {
      ...rest,
      recipients: [...recipients],
      state,
      ...(reason ? { reason } : {}),
      ...version,
      ...(facts?.want.through ? { through: facts.want.through } : {}),
    };
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
  const want = s.facts.want;
  // A record of another version (a to-date report, now the final one) is not this send: it is kept as
  // what the recipient got before, and this version is mailed.
  const same = before !== undefined && alreadyHas(before, want);
  if (before && same && confirmed(before)) return { recipient, result: 'already sent', got: gotOf(before) };
  if (before && same && !o.resendUnconfirmed) return unconfirmed(recipient, before.started_at);
  const { earlier: older, ...previous } = before ?? { earlier: [] };
  const earlier = before && !same ? [...(older ?? []), previous as SendRecord] : (older ?? []);
  const messageId = reportMessageId(where, recipient, s.smtp.from, want.to_date ? want.version : undefined);
  const intent = {
    recipient,
    channel: 'email' as const,
    message_id: messageId,
    ...want,
    ...(earlier.length ? { earlier } : {}),
  };
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
        through: want.to_date ? (want.through ?? null) : null,
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
      await clearSend(o.store, where, { ...intent, state: 'sending' });
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
  return { recipient, result: 'sent', got: gotOf(intent) };
}
