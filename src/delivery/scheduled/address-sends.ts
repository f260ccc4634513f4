// What a send and a `--mark-sent` (./send.ts, ./mark-sent.ts) do alike for one address of a
// report (./addressees.ts): its outcome's name, its record read among the report's, its send claim
// (the one workers and `report send` take alike), what it got before this version, its Message-ID.
import { scrubSecrets } from '../../log.js';
import { brandKey } from '../../sinks/layout.js';
import { errorMessage } from '../../util/errors.js';
import { type MailTimeouts, SMTP_TIMEOUTS } from '../mail/smtp.js';
import type { Addressee } from './addressees.js';
import { alreadyHas, confirmed, reportMessageId, type SendRecord, type VersionSent } from './records.js';
import type { DeliveryOptions, Due, RecipientOutcome } from './types.js';

/** The version a send is about: its id, whether it is to date, and through which day. */
export type WantedVersion = Required<Pick<VersionSent, 'version' | 'to_date'>> & VersionSent;

export type Where = { account: string; brandId: string; period: string };

/** A claim outlasts the bounded send it covers (src/delivery/mail/smtp.ts) and is given back after it. */
export function sendClaimSeconds(t: MailTimeouts = SMTP_TIMEOUTS): number {
  return Math.ceil(t.sendTimeout / 1000) + 180;
}

/** What a record says the recipient got, for the outcome's line: and a to-date report before the final one. */
export function gotOf(
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

/** The outcome's address and, for a copy, its role (a recipient's outcome has none). */
export function who(a: Addressee): Pick<RecipientOutcome, 'recipient' | 'role'> {
  return { recipient: a.address, ...(a.role !== 'to' ? { role: a.role } : {}) };
}

/**
 * Each address's send record, by lower-cased address. A copy (cc, bcc) without a record of its own
 * has the first recipient's when that one was written before copies were sent on their own (no
 * `role`): the copies rode in that mail's envelope then, and have what it has.
 */
export function recordsByAddress(
  sends: ReadonlyMap<string, SendRecord>,
  list: readonly Addressee[],
): (a: Addressee) => SendRecord | undefined {
  const first = list.find((a) => a.role === 'to');
  const carrier = first && sends.get(first.address.toLowerCase());
  const legacy = carrier && carrier.role === undefined && confirmed(carrier) ? carrier : undefined;
  return (a) => sends.get(a.address.toLowerCase()) ?? (a.role !== 'to' ? legacy : undefined);
}

/**
 * `fn` while this process holds the address's send claim (the one workers and `report send` take
 * alike), given back after it; `claimed` when another process holds it. `done`: what did not
 * happen when the claim or the record could not be read (`not sent`, `not marked`).
 */
export async function underSendClaim(
  o: DeliveryOptions,
  where: Where,
  a: Addressee,
  done: string,
  fn: () => Promise<RecipientOutcome>,
): Promise<RecipientOutcome> {
  const claim = `report-send:${where.account}:${brandKey(where.brandId)}:${where.period}:${brandKey(a.address.toLowerCase())}`;
  try {
    if (o.claims && !(await o.claims.take(claim, sendClaimSeconds(o.mailTimeouts), { whileAlive: true })))
      return { ...who(a), result: 'claimed', reason: 'another process is sending it now' };
  } catch (err) {
    return {
      ...who(a),
      result: 'failed',
      reason: `${done}: the claim could not be taken: ${errorMessage(err)}`,
    };
  }
  try {
    return await fn();
  } catch (err) {
    // Its record could not be read (everything after that read answers for itself): nothing
    // done, and the next address is tried all the same.
    return { ...who(a), result: 'failed', reason: `${done}: ${scrubSecrets(errorMessage(err))}` };
  } finally {
    await o.claims?.release(claim).catch(() => {});
  }
}

/**
 * What an address's record says of the version wanted: `same` (it holds this version's send,
 * sent or `sending`), and `earlier`, what it got before this version (a to-date report, now the
 * final one: kept, and this version is sent or recorded beside it).
 */
export function sendHistory(before: SendRecord | undefined, want: WantedVersion) {
  const same = before !== undefined && alreadyHas(before, want);
  const { earlier: older, ...previous } = before ?? { earlier: [] };
  const earlier = before && !same ? [...(older ?? []), previous as SendRecord] : (older ?? []);
  return { same, earlier };
}

/**
 * The Message-ID of an address's mail: a recipient's own; a copy (cc, bcc) is the first
 * recipient's mail on an envelope of its own (its headers say so), and has that mail's id.
 */
export function messageIdOf(where: Where, a: Addressee, due: Due, from: string, want: WantedVersion): string {
  const of = a.role === 'to' ? a.address : (due.settings.recipients[0] ?? a.address);
  return reportMessageId(where, of, from, want.to_date ? want.version : undefined);
}
