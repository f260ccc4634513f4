// Per account, the scheduled reports that need a person: each workspace's newest due report while
// it is stale, a draft or failed (src/run/queued/report.ts keeps it, `visync status` reads it). A
// hash per account, one field per workspace: bounded by the workspaces, whatever the periods.
import type { Redis } from 'ioredis';
import { type DeliveryRecord, type DeliveryState, readDelivery } from '../src/delivery/scheduled/records.js';
import type { ObjectStore } from '../src/sinks/object-store.js';

export const SHOWN_STATES = ['stale', 'draft', 'failed'] as const satisfies readonly DeliveryState[];

export function reportIndexKey(prefix: string, account: string): string {
  return `${prefix}:reports:open:${account}`;
}

export interface OpenReport {
  brand_id: string;
  period: string;
  state: (typeof SHOWN_STATES)[number];
}

export async function readOpenReports(redis: Redis, prefix: string, account: string): Promise<OpenReport[]> {
  const fields = await redis.hgetall(reportIndexKey(prefix, account));
  const out: OpenReport[] = [];
  for (const [brand_id, value] of Object.entries(fields)) {
    try {
      const v = JSON.parse(value) as { period?: unknown; state?: unknown };
      if (typeof v.period === 'string' && (SHOWN_STATES as readonly unknown[]).includes(v.state))
        out.push({ brand_id, period: v.period, state: v.state as OpenReport['state'] });
    } catch {
      // A field that does not parse says nothing.
    }
  }
  return out.sort((a, b) => a.brand_id.localeCompare(b.brand_id));
}

/**
 * The open reports as their records in the store say now: the hash is kept by the report job only,
 * so a draft that `visync report send` delivered (or a report made since) would show until the
 * account's next report job. A record that cannot be read leaves the hash's word.
 */
export async function confirmOpenReports(
  store: ObjectStore,
  account: string,
  open: readonly OpenReport[],
  /** The report's delivery.json (the review page passes the read its row then uses). */
  read: (r: OpenReport) => Promise<DeliveryRecord | undefined> = (r) =>
    readDelivery(store, account, r.brand_id, r.period),
): Promise<OpenReport[]> {
  const out: OpenReport[] = [];
  for (const r of open) {
    const state = (await read(r).catch(() => undefined))?.state;
    if (state === undefined) out.push(r);
    else if ((SHOWN_STATES as readonly string[]).includes(state))
      out.push({ ...r, state: state as OpenReport['state'] });
  }
  return out;
}

/**
 * Per account, the workspaces whose next period has a to-date report out (sent by hand while it
 * runs): the report job keeps it after each nightly run (src/delivery/scheduled/deliver.ts), so
 * `visync status` says a final report is still to follow. One field per workspace.
 */
export function toDateIndexKey(prefix: string, account: string): string {
  return `${prefix}:reports:to-date:${account}`;
}

export interface ToDateReport {
  brand_id: string;
  period: string;
  /** The newest day the to-date report shows. */
  through: string;
}

export async function readToDateReports(
  redis: Redis,
  prefix: string,
  account: string,
): Promise<ToDateReport[]> {
  const fields = await redis.hgetall(toDateIndexKey(prefix, account));
  const out: ToDateReport[] = [];
  for (const [brand_id, value] of Object.entries(fields)) {
    try {
      const v = JSON.parse(value) as { period?: unknown; through?: unknown };
      if (typeof v.period === 'string' && typeof v.through === 'string')
        out.push({ brand_id, period: v.period, through: v.through });
    } catch {
      // A field that does not parse says nothing.
    }
  }
  return out.sort((a, b) => a.brand_id.localeCompare(b.brand_id));
}

/**
 * Per account, the last report of each workspace acted on at the review page (jobs/review-page.ts):
 * held, or approved and sent. The page lists them beside the drafts, and `visync status` shows who
 * did what and when, as delivery.json records it. One field per workspace.
 */
export function reviewedIndexKey(prefix: string, account: string): string {
  return `${prefix}:reports:reviewed:${account}`;
}

export async function markReviewed(
  redis: Redis,
  prefix: string,
  account: string,
  r: { brand_id: string; period: string },
): Promise<void> {
  await redis.hset(reviewedIndexKey(prefix, account), r.brand_id, JSON.stringify({ period: r.period }));
}

/** A report acted on at the review page, as its delivery.json says now. */
export interface ReviewedReport {
  brand_id: string;
  period: string;
  state: DeliveryState;
  held?: DeliveryRecord['held'];
  approved_by?: string;
  approved_at?: string;
}

/** The workspaces' reviewed reports (brand and period) from the hash. */
export async function readReviewedIndex(
  redis: Redis,
  prefix: string,
  account: string,
): Promise<{ brand_id: string; period: string }[]> {
  const fields = await redis.hgetall(reviewedIndexKey(prefix, account));
  const out: { brand_id: string; period: string }[] = [];
  for (const [brand_id, value] of Object.entries(fields)) {
    try {
      const v = JSON.parse(value) as { period?: unknown };
      if (typeof v.period === 'string') out.push({ brand_id, period: v.period });
    } catch {
      // A field that does not parse says nothing.
    }
  }
  return out.sort((a, b) => a.brand_id.localeCompare(b.brand_id));
}

/** The reviewed reports with who held or approved them and when, read from their delivery.json. */
export async function readReviewedReports(
  redis: Redis,
  prefix: string,
  account: string,
  /** The account's store, opened only when the hash names a report. */
  storeFor: (() => Promise<ObjectStore>) | undefined,
): Promise<ReviewedReport[]> {
  const listed = await readReviewedIndex(redis, prefix, account);
  if (!listed.length || !storeFor) return [];
  const store = await storeFor();
  const out: ReviewedReport[] = [];
  for (const r of listed) {
    const d = await readDelivery(store, account, r.brand_id, r.period).catch(() => undefined);
    if (!d || (!d.held && !d.approved_by)) continue;
    out.push({
      ...r,
      state: d.state,
      ...(d.held ? { held: d.held } : {}),
      ...(d.approved_by ? { approved_by: d.approved_by } : {}),
      ...(d.approved_at ? { approved_at: d.approved_at } : {}),
    });
  }
  return out;
}
