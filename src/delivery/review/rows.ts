// What the review page (jobs/review-page.ts) shows of one scheduled report: the client's name, the
// headline figure the mail and the summary lead with, whether it is to date or final, who held or
// approved it and when, and each address's send. Read from the store only (delivery.json, the
// manifest, report.json, sends/): the page never shows a figure the report does not hold.
import { parsePeriod } from '../../history/period.js';
import { manifestFormats } from '../../report/artefact.js';
import { reportSettingsFor } from '../../report/settings.js';

import { addresseesOf } from '../scheduled/addressees.js';
import { alreadyHas, confirmed, type DeliveryRecord, readDelivery, readSends } from '../scheduled/records.js';
import { type Facts, factsOf } from '../scheduled/send.js';
import type { DeliveryOptions } from '../scheduled/types.js';

/** A report the page lists. */
export interface ReviewRow {
  account: string;
  brandId: string;
  period: string;
  clientName: string;
  state: DeliveryRecord['state'];
  /** Undefined when the report's figures could not be read (`problem` says why). */
  headline?: Facts['headline'];
  toDate: boolean;
  through?: string;
  held?: DeliveryRecord['held'];
  approvedBy?: string;
  approvedAt?: string;
  /** Every address (recipient, cc, bcc) and whether its send of this report is recorded as accepted. */
  addresses: { address: string; role: string; sent: boolean }[];
  /** The report has an HTML page to preview. */
  hasHtml: boolean;
  /** Why the report cannot be read (not made, unreadable manifest); nothing can be sent. */
  problem?: string;
}

/** Which report: a workspace of an account, and a period label. */
export interface ReviewTarget {
  brandId: string;
  period: string;
}

/** The client's name the config gives a workspace, else its id. */
export function configuredName(
  config: DeliveryOptions['config'],
  account: DeliveryOptions['account'],
  brandId: string,
): string {
  return reportSettingsFor(config, account, brandId).clientName ?? brandId;
}

/**
 * The row of one report, or undefined when it has no record (never made nor scheduled). `read` is
 * its delivery.json; the page passes the read it made to list the report, not read twice.
 */
export async function reviewRow(
  o: Pick<DeliveryOptions, 'config' | 'account' | 'store' | 'logger'>,
  t: ReviewTarget,
  read: () => Promise<DeliveryRecord | undefined> = () =>
    readDelivery(o.store, o.account.name, t.brandId, t.period),
): Promise<ReviewRow | undefined> {
  const period = parsePeriod(t.period);
  const record = period && (await read());
  if (!period || !record) return undefined;
  const settings = reportSettingsFor(o.config, o.account, t.brandId);
  const base: ReviewRow = {
    account: o.account.name,
    brandId: t.brandId,
    period: t.period,
    clientName: settings.clientName ?? t.brandId,
    state: record.state,
    toDate: record.to_date === true,
    ...(record.through ? { through: record.through } : {}),
    ...(record.held ? { held: record.held } : {}),
    ...(record.approved_by ? { approvedBy: record.approved_by } : {}),
    ...(record.approved_at ? { approvedAt: record.approved_at } : {}),
    addresses: [],
    hasHtml: false,
  };
  if (!record.location)
    return { ...base, problem: `not made (${record.state}${record.reason ? `: ${record.reason}` : ''})` };
  try {
    const facts = await factsOf(o, { brandId: t.brandId, period, settings });
    const sends = await readSends(o.store, o.account.name, t.brandId, t.period);
    return {
      ...base,
      clientName: facts.clientName,
      headline: facts.headline,
      toDate: facts.want.to_date,
      ...(facts.want.through && facts.want.to_date ? { through: facts.want.through } : {}),
      hasHtml: manifestFormats(facts.manifest).includes('html'),
      addresses: addresseesOf(settings).map((a) => {
        const s = sends.get(a.address.toLowerCase());
        // Sent as `visync report send` decides it (../scheduled/send.ts): a to-date send counts only for its version.
        return {
          address: a.address,
          role: a.role,
          sent: s !== undefined && confirmed(s) && alreadyHas(s, facts.want),
        };
      }),
    };
  } catch (err) {
    return { ...base, problem: (err as Error).message };
  }
}
