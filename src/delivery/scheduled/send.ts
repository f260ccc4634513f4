// A made report mailed (./deliver.ts): to every address (recipient, cc, bcc: ./addressees.ts) whose
// send is not recorded, each its own message, its send claimed (src/delivery/claims/claims.ts) and
// recorded before and after (./records.ts), then the workspace's state (sent, made, draft or
// failed). A failure on one address never stops the others; a failed server or login stops its
// sends for the rest of the delivery (../mail/session.ts).

import { linkSeconds } from '../../config/mail-templates.js';
import type { AttachFormat } from '../../config/report-attach.js';
import type { SmtpConfig } from '../../config/schema.js';
import { scrubSecrets } from '../../log.js';
import { metrics } from '../../metrics/recorder.js';
import { checkedFile, manifestFormats, parseManifest, type ReportManifest } from '../../report/artefact.js';
import type { ReportModel } from '../../report/model/report-shape.js';
import { CONTENT_TYPES, parseReport } from '../../report/output.js';
import { headlineOf } from '../../report/summary/headline.js';
import { type Sentence, summarySentences } from '../../report/summary/sentences.js';
import { reportPrefix } from '../../sinks/layout.js';
import { errorMessage } from '../../util/errors.js';
import { attachmentName, type Headline, type MailWords } from '../mail/compose.js';
import type { MailSession } from '../mail/session.js';
import { type Attachment, accountFailure, certainlyNotSent, mailFailureReason } from '../mail/smtp.js';
import { type ReportLink, reportLink } from '../report-link.js';
import {
  gotOf,
  messageIdOf,
  recordsByAddress,
  sendHistory,
  underSendClaim,
  type WantedVersion,
  type Where,
  who,
} from './address-sends.js';
import { type Addressee, addresseesOf } from './addressees.js';
import {
  alreadyHas,
  clearSend,
  confirmed,
  type DeliveryRecord,
  type DeliveryState,
  readSend,
  readSends,
  recordSend,
} from './records.js';
import { type Marks, storedMarks, withMarks } from './review-marks.js';
import { outcome, save } from './steps.js';
import type { DeliveryOptions, DeliveryOutcome, Due, RecipientOutcome } from './types.js';

/** What to do about a `sending` record: said once, here. */
export const UNCONFIRMED_FIX =
  'check with the recipient, then `visync report send --resend-unconfirmed` mails it again under the same Message-ID';

/** What the mail says of the report (its client's name, the headline figures) and which version it is. */
export interface Facts {
  clientName: string;
  headline: Headline;
  /** The summary's sentences and the manager's note, as the version's report.json gives them. */
  summary?: readonly Sentence[];
  note?: string;
  manifest: ReportManifest;
  /** The version mailed: its id, whether it is to date and through which day. */
  want: WantedVersion;
}

/**
 * The report as its manifest names it (src/report/artefact.ts): the version, whether it is to date,
 * and report.json's figures, read only when its bytes are that version's.
 */
export async function factsOf(
  o: Pick<DeliveryOptions, 'store' | 'account'>,
  due: Pick<Due, 'brandId' | 'period' | 'settings'>,
): Promise<Facts> {
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
    // report.json is the model with words added (a superset): its sentences are the page's.
    ...(report ? { summary: summarySentences(report as unknown as ReportModel) } : {}),
    ...(report?.manager_note ? { note: report.manager_note } : {}),
    manifest,
    want: { version: manifest.version, to_date: toDate, ...(toDate ? { through } : {}) },
  };
}

/** The files a mail attaches, of those the report's version has: `reports.attach` when set. */
export function attachedFormats(
  has: readonly string[],
  attach: readonly AttachFormat[] | undefined,
): AttachFormat[] {
  const listed = (attach ?? []).filter((f) => has.includes(f));
  if (listed.length) return listed;
  // Unset, or none of them made: the one file a report mail has always carried.
  return [has.includes('pdf') ? 'pdf' : has.includes('html') ? 'html' : 'json'];
}

/**
 * The attachments, each `<client>-<period>.<ext>`: those `reports.attach` lists that the report's
 * version has, else its PDF (else its HTML page, else its JSON model); their bytes checked against
 * the manifest (never a file it does not list).
 */
async function attachmentsOf(o: DeliveryOptions, due: Due, facts: Facts): Promise<Attachment[]> {
  const prefix = reportPrefix(o.account.name, due.brandId, due.period.label);
  const formats = attachedFormats(manifestFormats(facts.manifest), due.settings.attach);
  const out: Attachment[] = [];
  for (const format of formats)
    out.push({
      filename: attachmentName(facts.clientName, due.period.label, format, facts.want.through),
      content: await checkedFile(facts.manifest, prefix, `report.${format}`, (k) => o.store.get(k)),
      contentType: CONTENT_TYPES[format],
    });
  return out;
}

/** The attachments' file names, as the mail names them (`a.pdf, a.xlsx`). */
export function attachedName(facts: Facts, due: Pick<Due, 'period' | 'settings'>): string {
  return attachedFormats(manifestFormats(facts.manifest), due.settings.attach)
    .map((f) => attachmentName(facts.clientName, due.period.label, f, facts.want.through))
    .join(', ');
}

/** Everything the mail says (../mail/compose.ts): one place, for a send and for `report mail-preview`. */
export function mailWordsOf(
  facts: Facts,
  due: Pick<Due, 'period' | 'settings'>,
  fileName: string,
  link: ReportLink | null,
): MailWords {
  const settings = due.settings;
  const want = facts.want;
  return {
    clientName: facts.clientName,
    period: due.period,
    locale: settings.locale ?? null,
    headline: facts.headline,
    fileName,
    through: want.to_date ? (want.through ?? null) : null,
    agency: settings.agency,
    contact: settings.contact,
    summary: facts.summary,
    note: facts.note ?? null,
    link,
    timeZone: settings.timeZone ?? null,
    engineNames: settings.engineNames,
    templates: settings.mail.templates,
  };
}

function unconfirmed(a: Addressee, startedAt: string | undefined): RecipientOutcome {
  return {
    ...who(a),
    result: 'unconfirmed',
    reason: `a send began${startedAt ? ` at ${startedAt}` : ''} and was never recorded as accepted, so it is not mailed again: ${UNCONFIRMED_FIX}`,
  };
}

/** Mails the made report to every address whose send is not recorded; records each send, then the state. */
export async function sendPending(
  o: DeliveryOptions,
  due: Due,
  session: MailSession,
): Promise<DeliveryOutcome> {
  const record = due.record as DeliveryRecord;
  const addressees = addresseesOf(due.settings);
  const where = { account: o.account.name, brandId: due.brandId, period: due.period.label };
  const results: RecipientOutcome[] = [];
  const failAll = (reason: string) => {
    for (const a of addressees)
      if (!results.some((x) => x.recipient === a.address))
        results.push({ ...who(a), result: 'failed', reason });
  };
  let facts: Facts | undefined;
  // The stored marks, when a hold placed on the review page while this send runs (another process)
  // stopped it: the addresses not mailed yet are left for after its approval.
  let stoppedBy: Marks | undefined;
  try {
    const recordOf = recordsByAddress(
      await readSends(o.store, where.account, where.brandId, where.period),
      addressees,
    );
    // Everyone has the final report: nothing of the report itself is needed.
    const finalSent = (a: Addressee) => {
      const s = recordOf(a);
      return s !== undefined && confirmed(s) && s.to_date !== true;
    };
    if (!addressees.every(finalSent)) facts = await factsOf(o, due);
    const want = facts?.want;
    // A `sending` record may be another process's send in progress: decided under the claim.
    const pending = addressees.filter((a) => {
      const s = recordOf(a);
      if (!s || !confirmed(s) || (want && !alreadyHas(s, want))) return true;
      results.push({ ...who(a), result: 'already sent', got: gotOf(s) });
      return false;
    });
    const smtp = due.settings.smtp;
    if (pending.length && !smtp)
      failAll('recipients are set but reports.smtp is not: configure host and from');
    else if (pending.length && smtp && facts) {
      const attachments = await attachmentsOf(o, due, facts);
      const link = await linkOf(o, due, facts);
      for (const to of pending) {
        const marks = await storedMarks(o, where);
        if (marks?.held) {
          stoppedBy = marks;
          break;
        }
        results.push(await sendOne(o, { session, smtp, where, to, attachments, facts, due, link }));
      }
    }
  } catch (err) {
    // The records or the report could not be read: nothing was sent to whoever is left.
    failAll(scrubSecrets(errorMessage(err)));
  }
  const order = addressees.map((a) => a.address);
  results.sort((a, b) => order.indexOf(a.recipient) - order.indexOf(b.recipient));
  const failed = results.filter((r) => r.result === 'failed' || r.result === 'unconfirmed');
  const state: DeliveryState = failed.length
    ? 'failed'
    : results.every((r) => r.result === 'sent' || r.result === 'already sent') &&
        addressees.length &&
        results.length === addressees.length
      ? 'sent'
      : record.state === 'draft' && due.settings.review && !results.length
        ? 'draft'
        : 'made';
  const reason = failed.length ? failed.map((f) => `${f.recipient}: ${f.reason}`).join('; ') : undefined;
  // Read just before the write (those that stopped the sends were, a moment ago): a hold or an
  // approval recorded meanwhile is kept, not overwritten.
  let saved = withMarks(record, stoppedBy ?? (await storedMarks(o, where)));
  let recordFailure: string | undefined;
  // The record names the version it is about, and whether that one is to date (src/report/artefact.ts).
  const version = facts ? { version: facts.want.version, to_date: facts.want.to_date } : {};
  const newVersion =
    facts !== undefined &&
    (facts.want.version !== record.version || facts.want.to_date !== (record.to_date ?? false));
  if (state !== record.state || reason !== record.reason || newVersion) {
    const { reason: _old, through: _through, ...rest } = saved;
    const next = {
      ...rest,
      recipients: [...due.settings.recipients],
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
  for (const r of results) {
    const fields = { brand_id: due.brandId, period: due.period.label, recipient: r.recipient, role: r.role };
    if (r.result === 'failed' || r.result === 'unconfirmed')
      o.logger.error(
        { ...fields, err: r.reason },
        r.result === 'failed' ? 'report mail failed' : 'report mail unconfirmed',
      );
    else if (r.result === 'sent') o.logger.info(fields, 'report mailed');
  }
  if (recordFailure)
    o.logger.error(
      { brand_id: due.brandId, period: due.period.label, err: recordFailure },
      'report not recorded',
    );
  return {
    ...outcome(saved, results),
    ...(saved.held ? { held: saved.held } : {}),
    ...(recordFailure ? { recordFailure } : {}),
  };
}

interface OneSend {
  session: MailSession;
  smtp: SmtpConfig;
  where: Where;
  to: Addressee;
  /** The first is the report; the body names them all. */
  attachments: Attachment[];
  facts: Facts;
  due: Due;
  link: ReportLink | null;
}

/** `reports.mail.link`: one link for the delivery's mails, signed now for its configured lifetime. */
export async function linkOf(
  o: Pick<DeliveryOptions, 'store' | 'account' | 'now'>,
  due: Pick<Due, 'brandId' | 'period' | 'settings'>,
  facts: Facts,
): Promise<ReportLink | null> {
  const lifetime = due.settings.mail.link?.expires;
  if (lifetime === undefined) return null;
  // Checked at load: a lifetime of at most 7 days.
  const seconds = linkSeconds(lifetime) as number;
  const where = { account: o.account.name, brandId: due.brandId, period: due.period.label };
  return reportLink(o.store, where, seconds, o.now?.() ?? new Date(), facts.manifest);
}

/** One address: claimed, recorded `sending`, mailed, recorded `sent`; the claim given back. */
async function sendOne(o: DeliveryOptions, s: OneSend): Promise<RecipientOutcome> {
  const broken = s.session.broken(s.smtp);
  if (broken) return { ...who(s.to), result: 'failed', reason: `not tried: ${broken}` };
  return underSendClaim(o, s.where, s.to, 'not sent', () => claimedSend(o, s));
}

async function claimedSend(o: DeliveryOptions, s: OneSend): Promise<RecipientOutcome> {
  const { where, to } = s;
  const recipient = to.address;
  const now = () => (o.now?.() ?? new Date()).toISOString();
  // Read again under the claim: another process may have sent it since the records were listed.
  const before = await readSend(o.store, where, recipient);
  const want = s.facts.want;
  const { same, earlier } = sendHistory(before, want);
  if (before && same && confirmed(before)) return { ...who(to), result: 'already sent', got: gotOf(before) };
  if (before && same && !o.resendUnconfirmed) return unconfirmed(to, before.started_at);
  const intent = {
    recipient,
    role: to.role,
    channel: 'email' as const,
    message_id: messageIdOf(where, to, s.due, s.smtp.from, want),
    ...want,
    ...(earlier.length ? { earlier } : {}),
  };
  try {
    await recordSend(o.store, where, { ...intent, state: 'sending', started_at: now() });
  } catch (err) {
    return {
      ...who(to),
      result: 'failed',
      reason: `not sent: its send record could not be written (${scrubSecrets(errorMessage(err))}); fix the store, then run \`visync report send\``,
    };
  }
  try {
    const mailer = await s.session.mailer(s.smtp);
    const settings = s.due.settings;
    await mailer.send({
      // A copy shows the first recipient's headers: it is that mail, on an envelope of its own.
      to: to.role === 'to' ? recipient : (settings.recipients[0] ?? recipient),
      deliverTo: recipient,
      messageId: intent.message_id,
      words: mailWordsOf(s.facts, s.due, s.attachments.map((a) => a.filename).join(', '), s.link),
      addressing: settings.mail,
      attachment: s.attachments[0] as Attachment,
      more: s.attachments.slice(1),
    });
  } catch (err) {
    const reason = scrubSecrets(mailFailureReason(s.smtp, err));
    if (accountFailure(err)) await s.session.trip(s.smtp, reason);
    // Dropped or silent midway: the server may have the mail. Kept `sending`, not mailed again.
    if (!certainlyNotSent(err))
      return {
        ...who(to),
        result: 'unconfirmed',
        reason: `the server never said whether it took the mail (${reason}), so it is not mailed again: ${UNCONFIRMED_FIX}`,
      };
    try {
      await clearSend(o.store, where, { ...intent, state: 'sending' });
    } catch (e) {
      return {
        ...who(to),
        result: 'unconfirmed',
        reason: `refused (${reason}), and its \`sending\` record could not be cleared (${scrubSecrets(errorMessage(e))}): ${UNCONFIRMED_FIX}`,
      };
    }
    return { ...who(to), result: 'failed', reason };
  }
  // The crash window: killed here, the mail is out and its record says `sending`: not mailed again.
  try {
    await recordSend(o.store, where, { ...intent, state: 'sent', sent_at: now() });
  } catch (err) {
    return {
      ...who(to),
      result: 'unconfirmed',
      reason: `mailed, but its record could not be written (${scrubSecrets(errorMessage(err))}): it stays \`sending\` and is not mailed again; fix the store`,
    };
  }
  return { ...who(to), result: 'sent', got: gotOf(intent) };
}
