// What the delivery of a scheduled report has done, kept beside the report in the object store
// (docs/reports.md, "Scheduled reports and delivery"):
//   reports/account=A/brand=B/period=P/delivery.json          state, why, the run that triggered it
//   reports/account=A/brand=B/period=P/sends/<address>.json   one per address (recipient, cc, bcc):
//                                                             `sending` written before the mail
//                                                             goes to the server, `sent` once the
//                                                             server accepted it for that address
// A send is one object of its own, so a worker and `visync report send` recording different
// recipients never overwrite each other's records. A recorded send, `sent` or `sending`, is never
// repeated on its own (design.md section 9: idempotent per account, workspace, period and
// recipient): a `sending` left behind (a crash, or a store that failed after the server took the
// mail) may have reached the recipient, and only `visync report send --resend-unconfirmed` mails it
// again, under the same Message-ID (docs/reports.md, "Exactly once").
import { parsePeriod } from '../../history/period.js';
import { brandKey, reportPrefix } from '../../sinks/layout.js';
import { type ObjectStore, putJsonObject, readJsonObject } from '../../sinks/object-store.js';
import { sha256Hex } from '../../util/hash.js';
import type { AddressRole } from './addressees.js';

/**
 * - `stale`: no complete run dated on the period's last day covers the workspace: not made, not sent;
 * - `draft`: made, kept for review (`review: true`) until `visync report send`;
 * - `made`: made, some recipients not sent yet (or none configured);
 * - `sent`: made and every recipient's send recorded;
 * - `failed`: making or sending failed (`reason`); tried again at the next trigger.
 */
export const DELIVERY_STATES = ['stale', 'draft', 'made', 'sent', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export interface DeliveryRecord {
  account: string;
  brand_id: string;
  period: string;
  state: DeliveryState;
  /** Why stale or failed. */
  reason?: string;
  /** The nightly run whose completion triggered this delivery, and its date. */
  run_id?: string;
  run_date: string;
  /** Where the report's files are (made, draft, sent). */
  location?: string;
  /** The recipients when it was made. */
  recipients: string[];
  /** The stale alert went out (once per account, workspace and period). */
  stale_alerted?: boolean;
  /** The version of the report last sent or made (its manifest.json, src/report/artefact.ts). */
  version?: string;
  /**
   * That version is a to-date report (its period was still running): it never finishes the
   * period; the schedule makes and mails the final one when the period completes. Absent: final.
   */
  to_date?: boolean;
  /** A to-date report's newest day. */
  through?: string;
  /**
   * Held on the review page (jobs/review-page.ts): neither the schedule, nor `visync report send`
   * without --brand, nor the page's "send all" mails it until it is approved there or sent with
   * `visync report send --brand`. Absent: not held (records older than the review page).
   */
  held?: ReviewMark & { reason?: string };
  /** Who approved the sending (the review page's basic-auth user, `local` on loopback without one, or `visync report send` releasing a hold). */
  approved_by?: string;
  /** When it was approved. */
  approved_at?: string;
  updated_at: string;
}

/** Who did a review action and when. */
export interface ReviewMark {
  by: string;
  at: string;
}

/** What one recipient got of a report: which version, and whether it was to date. */
export interface VersionSent {
  /** The report's version (src/report/artefact.ts); absent in records older than versions. */
  version?: string;
  /** A to-date report; absent: the final one. */
  to_date?: boolean;
  /** A to-date report's newest day. */
  through?: string;
}

export interface SendRecord extends VersionSent {
  /** The address (a recipient's, or a cc or bcc copy's: `role`). */
  recipient: string;
  /**
   * `to`, `cc`, `bcc` (./addressees.ts). Absent: a record from before each address had its own
   * message, when the first recipient's mail carried the copies in its envelope.
   */
  role?: AddressRole;
  channel: 'email';
  /** `sending`: the mail went (or was about to go) to the server; `sent`: it was accepted. Absent: sent (records older than this). */
  state?: 'sending' | 'sent';
  /** When the send began (the `sending` record). */
  started_at?: string;
  /** When the server accepted it (the `sent` record), or when `--mark-sent` recorded it. */
  sent_at?: string;
  /** Recorded `sent` by `visync report send --mark-sent`: delivered by other means, not by this mail. */
  marked_sent?: true;
  message_id: string;
  /** What the recipient got before this send (a to-date report, then the final one), oldest first. */
  earlier?: Omit<SendRecord, 'earlier'>[];
}

/** Whether a send record says the server accepted the mail. */
export function confirmed(r: SendRecord): boolean {
  return r.state !== 'sending';
}

export function deliveryKey(account: string, brandId: string, period: string): string {
  return `${reportPrefix(account, brandId, period)}delivery.json`;
}

/** Addresses compare without case (the schema refuses two that differ only in case). */
export function sendKey(account: string, brandId: string, period: string, recipient: string): string {
  return `${reportPrefix(account, brandId, period)}sends/${brandKey(recipient.toLowerCase())}.json`;
}

export async function readDelivery(
  store: ObjectStore,
  account: string,
  brandId: string,
  period: string,
): Promise<DeliveryRecord | undefined> {
  const r = await readJsonObject<DeliveryRecord>(store, deliveryKey(account, brandId, period));
  return legacyKind(r, period, r?.location ? r.updated_at : undefined);
}

/**
 * A record written before versions were recorded (no `to_date`) of a report made or sent on or
 * before its period's last day: that can only have been a to-date report (a final one needs a run
 * dated on or after that day), so it is read as one and never blocks the final report.
 */
function legacyKind<T extends { to_date?: boolean }>(
  r: T | undefined,
  period: string,
  at: string | undefined,
): T | undefined {
  if (!r || r.to_date !== undefined || !at) return r;
  const p = parsePeriod(period);
  return p && at.slice(0, 10) <= p.to ? { ...r, to_date: true } : r;
}

const legacySend = (r: SendRecord | undefined, period: string) =>
  legacyKind(r, period, r?.sent_at ?? r?.started_at);

export async function writeDelivery(store: ObjectStore, record: DeliveryRecord): Promise<void> {
  await putJsonObject(store, deliveryKey(record.account, record.brand_id, record.period), record);
}

/** The recorded sends of a report, by lower-cased recipient. */
export async function readSends(
  store: ObjectStore,
  account: string,
  brandId: string,
  period: string,
): Promise<Map<string, SendRecord>> {
  const keys = await store.list(`${reportPrefix(account, brandId, period)}sends/`);
  const out = new Map<string, SendRecord>();
  for (const key of keys) {
    const r = legacySend(await readJsonObject<SendRecord>(store, key), period);
    if (r?.recipient) out.set(r.recipient.toLowerCase(), r);
  }
  return out;
}

/** One recipient's send record; undefined when none (or a torn one: nothing readable was written). */
export async function readSend(
  store: ObjectStore,
  where: { account: string; brandId: string; period: string },
  recipient: string,
): Promise<SendRecord | undefined> {
  const key = sendKey(where.account, where.brandId, where.period, recipient);
  return legacySend(await readJsonObject<SendRecord>(store, key), where.period);
}

export async function recordSend(
  store: ObjectStore,
  where: { account: string; brandId: string; period: string },
  send: SendRecord,
): Promise<void> {
  await putJsonObject(store, sendKey(where.account, where.brandId, where.period, send.recipient), send);
}

/**
 * Removes a `sending` record whose mail the server refused: nothing went out, it is tried again. What
 * the recipient got before (`earlier`) stays: the record goes back to the newest of those.
 */
export async function clearSend(
  store: ObjectStore,
  where: { account: string; brandId: string; period: string },
  send: SendRecord,
): Promise<void> {
  const before = send.earlier?.at(-1);
  if (before) await recordSend(store, where, { ...before, earlier: send.earlier?.slice(0, -1) ?? [] });
  else await store.delete(sendKey(where.account, where.brandId, where.period, send.recipient));
}

/**
 * Whether a recipient's record already holds this version's send: the final report once per
 * recipient (any final version: a re-made final is not mailed again); a to-date report once per
 * version, and never after the final. A record without `to_date` is a final send.
 */
export function alreadyHas(
  r: SendRecord,
  want: Required<Pick<VersionSent, 'to_date'>> & VersionSent,
): boolean {
  if (r.to_date !== true) return true;
  return want.to_date && r.version === want.version;
}

/**
 * The Message-ID of a report's mail to one recipient: the same for every try, so a mail sent twice
 * (a crash between the server's acceptance and the record, docs/reports.md) is one message to a
 * server or client that drops duplicates by Message-ID.
 */
export function reportMessageId(
  where: { account: string; brandId: string; period: string },
  recipient: string,
  from: string,
  /** A to-date report's version: its mail is another message than the final one's (which keeps the id it always had). */
  toDateVersion?: string,
): string {
  const key = [where.account, where.brandId, where.period, recipient.toLowerCase()];
  const id = sha256Hex(JSON.stringify(toDateVersion ? [...key, 'to-date', toDateVersion] : key)).slice(0, 32);
  const domain = from.slice(from.lastIndexOf('@') + 1).toLowerCase();
  return `<visync-report.${id}@${domain}>`;
}
