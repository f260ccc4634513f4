// `visync report send --mark-sent ADDRESS` (docs/reports.md, "Settling a send by hand"): an
// address of a made report recorded `sent` without a mail, because it was delivered by other means
// (mailed by hand after a refusal, or an `unconfirmed` send the recipient says arrived). Under the
// same claim as a send, so it never races one; the record says `marked_sent`. Nothing is mailed.
import { scrubSecrets } from '../../log.js';
import { metrics } from '../../metrics/recorder.js';
import { errorMessage } from '../../util/errors.js';
import { gotOf, messageIdOf, recordsByAddress, sendHistory, underSendClaim, who } from './address-sends.js';
import { type Addressee, addresseesOf } from './addressees.js';
import { confirmed, type DeliveryRecord, readSend, readSends, recordSend } from './records.js';
import { storedMarks, withMarks } from './review-marks.js';
import { type Facts, factsOf } from './send.js';
import { outcome, save } from './steps.js';
import type { DeliveryOptions, DeliveryOutcome, Due, RecipientOutcome } from './types.js';

/** What marking came to: each address's line, or the addresses the report does not have (nothing marked). */
export type MarkResult =
  | { outcome: DeliveryOutcome }
  | { notListed: string[]; addressees: Addressee[]; brandId: string; period: string };

/**
 * Records each of `addresses` as sent for the report's current version, without mailing it; once
 * every address of the report is sent, its delivery.json says `sent`. An address the report does
 * not have refuses the whole call before anything is written.
 */
export async function markSent(
  o: DeliveryOptions,
  due: Due,
  addresses: readonly string[],
): Promise<MarkResult> {
  const list = addresseesOf(due.settings);
  const find = (x: string) => list.find((a) => a.address.toLowerCase() === x.toLowerCase());
  const notListed = addresses.filter((x) => !find(x));
  if (notListed.length)
    return { notListed, addressees: list, brandId: due.brandId, period: due.period.label };
  const where = { account: o.account.name, brandId: due.brandId, period: due.period.label };
  const facts = await factsOf(o, due);
  const results: RecipientOutcome[] = [];
  for (const a of new Set(addresses.map((x) => find(x) as Addressee)))
    results.push(await underSendClaim(o, where, a, 'not marked', () => markOne(o, due, a, facts)));
  for (const r of results)
    if (r.result === 'marked sent')
      o.logger.info(
        { brand_id: due.brandId, period: due.period.label, recipient: r.recipient, role: r.role },
        'report marked sent',
      );
  const record = await allSent(o, due, list, facts);
  return { outcome: outcome(record, results) };
}

async function markOne(o: DeliveryOptions, due: Due, a: Addressee, facts: Facts): Promise<RecipientOutcome> {
  const where = { account: o.account.name, brandId: due.brandId, period: due.period.label };
  const before = await readSend(o.store, where, a.address);
  const want = facts.want;
  const { same, earlier } = sendHistory(before, want);
  if (before && same && confirmed(before)) return { ...who(a), result: 'already sent', got: gotOf(before) };
  const begun = before && same ? before.started_at : undefined;
  const settled = {
    recipient: a.address,
    role: a.role,
    channel: 'email' as const,
    // A `sending` record's id is the one its mail (if it arrived) carries.
    message_id:
      before && same ? before.message_id : messageIdOf(where, a, due, due.settings.smtp?.from ?? '', want),
    ...want,
    ...(earlier.length ? { earlier } : {}),
    state: 'sent' as const,
    ...(begun ? { started_at: begun } : {}),
    sent_at: (o.now?.() ?? new Date()).toISOString(),
    marked_sent: true as const,
  };
  try {
    await recordSend(o.store, where, settled);
  } catch (err) {
    return {
      ...who(a),
      result: 'failed',
      reason: `not marked: its send record could not be written (${scrubSecrets(errorMessage(err))}); fix the store, then run it again`,
    };
  }
  return {
    ...who(a),
    result: 'marked sent',
    reason: begun
      ? `the send begun at ${begun} is recorded as accepted; nothing mailed`
      : 'recorded as delivered by other means; nothing mailed',
  };
}

/** delivery.json `sent` once every address has this version; else as it was (the next send rewrites it). */
async function allSent(
  o: DeliveryOptions,
  due: Due,
  list: readonly Addressee[],
  facts: Facts,
): Promise<DeliveryRecord> {
  const record = due.record as DeliveryRecord;
  const where = { account: o.account.name, brandId: due.brandId, period: due.period.label };
  const recordOf = recordsByAddress(
    await readSends(o.store, where.account, where.brandId, where.period),
    list,
  );
  const done = list.every((a) => {
    const r = recordOf(a);
    return r !== undefined && confirmed(r) && sendHistory(r, facts.want).same;
  });
  if (!done || record.state === 'sent') return record;
  // A hold or an approval placed on the review page meanwhile is kept (./review-marks.ts).
  const { reason: _old, through: _through, ...rest } = withMarks(record, await storedMarks(o, where));
  const want = facts.want;
  const saved = await save(o, {
    ...rest,
    recipients: [...due.settings.recipients],
    state: 'sent',
    version: want.version,
    to_date: want.to_date,
    ...(want.through ? { through: want.through } : {}),
  });
  metrics.reportDelivery('sent');
  return saved;
}
