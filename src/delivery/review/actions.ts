// The review page's actions (jobs/review-page.ts) on a period's scheduled reports: hold one (kept
// from every send until approved), approve one and send it, or send every draft not held. Sending
// is `visync report send`'s own path (../scheduled/deliver.ts sendMadeReports): each address once,
// its send claimed and recorded (sends/<address>.json); the approval (who, when) is written into
// delivery.json before anything is mailed.
import { parsePeriod } from '../../history/period.js';
import { sendMadeReports } from '../scheduled/deliver.js';
import { readDelivery } from '../scheduled/records.js';
import { save } from '../scheduled/steps.js';
import type { DeliveryOptions, DeliveryOutcome } from '../scheduled/types.js';
import type { ReviewTarget } from './rows.js';

/** A hold's reason as kept and shown: one line, no control characters, at most 200 characters. */
export function holdReason(text: string | undefined): string | undefined {
  const line = (text ?? '').replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  return line ? line.slice(0, 200) : undefined;
}

/** What an action came to: each report's outcome, or why nothing was done. */
export type ActionResult = { ok: true; outcomes: DeliveryOutcome[] } | { ok: false; why: string };

/** Holds a made report that is not sent to everyone yet: recorded `held` (by, at, reason). */
export async function holdReport(
  o: DeliveryOptions,
  t: ReviewTarget,
  mark: { by: string; reason?: string | undefined },
): Promise<ActionResult> {
  const record = await readDelivery(o.store, o.account.name, t.brandId, t.period);
  if (!record?.location) return { ok: false, why: `${t.brandId} ${t.period}: no report made to hold` };
  if (record.state === 'sent')
    return { ok: false, why: `${t.brandId} ${t.period}: already sent to every address` };
  const reason = holdReason(mark.reason);
  const at = (o.now?.() ?? new Date()).toISOString();
  const saved = await save(o, { ...record, held: { by: mark.by, at, ...(reason ? { reason } : {}) } });
  return {
    ok: true,
    outcomes: [
      { brandId: t.brandId, period: t.period, state: saved.state, held: saved.held, recipients: [] },
    ],
  };
}

/** Approves one report (releasing a hold) and sends it as `visync report send --brand` would. */
export async function approveAndSend(o: DeliveryOptions, t: ReviewTarget, by: string): Promise<ActionResult> {
  const period = parsePeriod(t.period);
  if (!period) return { ok: false, why: `malformed period ${JSON.stringify(t.period)}` };
  const r = await sendMadeReports(o, { brands: [t.brandId], period, release: [t.brandId], approvedBy: by });
  if (!r.outcomes.length) return { ok: false, why: `${t.brandId} ${t.period}: no such report` };
  return { ok: true, outcomes: r.outcomes };
}

/** Sends every listed report not held (a hold placed meanwhile is kept), each period on its own. */
export async function sendAll(
  o: DeliveryOptions,
  listed: readonly ReviewTarget[],
  by: string,
): Promise<ActionResult> {
  const outcomes: DeliveryOutcome[] = [];
  for (const label of [...new Set(listed.map((t) => t.period))].sort()) {
    const period = parsePeriod(label);
    if (!period) continue;
    const brands = listed.filter((t) => t.period === label).map((t) => t.brandId);
    outcomes.push(...(await sendMadeReports(o, { brands, period, approvedBy: by })).outcomes);
  }
  return { ok: true, outcomes };
}
