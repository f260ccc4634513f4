// The review page's marks on a report (held: by, at, reason; approved_by, approved_at) are written
// into delivery.json by whoever acts on the page, often while another process (the schedule, or
// `visync report send`) is sending that same report and holds a copy of the record it read at its
// start. Such a writer takes the marks from the record as it is in the store just before it writes,
// so a hold (or an approval) placed meanwhile is kept. The marks stay in delivery.json (not an object
// of their own) so every reader that decides whether to send, and every store written before,
// reads them where they always were.
import { type DeliveryRecord, readDelivery } from './records.js';
import type { DeliveryOptions } from './types.js';

/** A report's review marks (the review page, jobs/review-page.ts, writes them). */
export type Marks = Pick<DeliveryRecord, 'held' | 'approved_by' | 'approved_at'>;

/** The review marks of a report's delivery.json as stored now; undefined when it cannot be read. */
export async function storedMarks(
  o: Pick<DeliveryOptions, 'store' | 'account'>,
  where: { brandId: string; period: string },
): Promise<Marks | undefined> {
  try {
    const r = await readDelivery(o.store, o.account.name, where.brandId, where.period);
    return r ? marksOf(r) : undefined;
  } catch {
    // Unreadable now: the writer's own copy is all there is (as before the marks were re-read).
    return undefined;
  }
}

/** The record with the stored marks in place of its own (its own kept when none could be read). */
export function withMarks<T extends Marks>(record: T, stored: Marks | undefined): T {
  if (!stored) return record;
  const { held: _h, approved_by: _b, approved_at: _a, ...rest } = record;
  return { ...rest, ...stored } as T;
}

function marksOf(r: DeliveryRecord): Marks {
  return {
    ...(r.held ? { held: r.held } : {}),
    ...(r.approved_by ? { approved_by: r.approved_by } : {}),
    ...(r.approved_at ? { approved_at: r.approved_at } : {}),
  };
}
