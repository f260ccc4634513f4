// GET /brands/{id}/buyer-intent?days=N -> buyer_intent (one row per window per run).

import {
  child,
  f,
  inspect,
  isRecord,
  item,
  type Leaf,
  type Loc,
  list,
  obj,
  type Probe,
  readObject,
  report,
} from './drift-spec.js';
import { requireBrandId, snapshotColumns } from './rows.js';
import type { LandedRaw, NormaliseResult } from './types.js';

const PROMPT_GROUP = obj({ count: f.integer, visibility: f.number });
const WINNER = obj({ name: f.string, domain: f.string });

/**
 * A loss's winner, in either recognised shape (docs/simulator.md): `{name, domain}` or the name
 * alone as a string. Its own fields are checked in canonicalLosses.
 */
const winnerLeaf: Leaf<unknown> = {
  kind: 'leaf',
  label: 'object {name, domain} or string',
  check: (v) => (typeof v === 'string' || isRecord(v) ? v : undefined),
};

export const BUYER_INTENT = obj({
  days: f.integer,
  money_prompts: PROMPT_GROUP,
  informational_prompts: PROMPT_GROUP,
  gap: f.number,
  losses: list(
    obj({
      prompt_id: f.string,
      prompt: f.string,
      engine: f.string,
      winner: winnerLeaf,
    }),
  ),
  why_you_lose: obj({ generated_at: f.timestamp, summary: f.string, reasons: f.strings }),
});

export function normaliseBuyerIntent(rec: LandedRaw): NormaliseResult {
  const brandId = requireBrandId(rec);
  const probe: Probe = { endpoint: 'buyer-intent', origin: brandId, drift: [] };
  const located = readObject(rec.body, probe, BUYER_INTENT.keys);
  const rows = located.map(({ value, loc }) => {
    const v = inspect(BUYER_INTENT, value, probe, loc);
    // The requested window is the key (it names the raw file); the body's own `days` is only checked.
    const windowDays = rec.days ?? v?.days;
    if (windowDays === undefined || windowDays === null) {
      throw new Error(`raw buyer-intent record of ${rec.account}/${brandId} has no days window`);
    }
    if (rec.days !== undefined && v?.days != null && v.days !== rec.days) {
      report(probe, 'unexpected_shape', 'days differs from the requested window', loc, {
        requested: rec.days,
        days: v.days,
      });
    }
    const losses = canonicalLosses((value as { losses?: unknown } | null)?.losses, probe, loc);
    return {
      table: 'buyer_intent',
      row: {
        ...snapshotColumns(rec, brandId),
        window_days: windowDays,
        money_prompt_count: v?.money_prompts?.count ?? null,
        money_visibility: v?.money_prompts?.visibility ?? null,
        informational_prompt_count: v?.informational_prompts?.count ?? null,
        informational_visibility: v?.informational_prompts?.visibility ?? null,
        visibility_gap: v?.gap ?? null,
        loss_count: Array.isArray(losses) ? losses.length : null,
        losses: Array.isArray(losses) ? losses : null,
        why_you_lose_summary: v?.why_you_lose?.summary ?? null,
        why_you_lose_reasons: v?.why_you_lose?.reasons ?? [],
        why_you_lose_generated_at: v?.why_you_lose?.generated_at ?? null,
        payload: value,
      },
    };
  });
  return { rows, drift: probe.drift };
}

/**
 * The losses with each winner as `{name, domain}` (a winner sent as a plain string is its name, with
 * a null domain), so the `losses` column, its views, reports and events read one shape; the row's
 * payload keeps the losses as sent. Anything else is kept as sent (the inspector reported it).
 */
function canonicalLosses(raw: unknown, probe: Probe, loc: Loc): unknown {
  if (!Array.isArray(raw)) return raw;
  return raw.map((loss, i) => {
    if (!isRecord(loss)) return loss;
    const at = child(item(child(loc, 'losses'), i), 'winner');
    const w = loss.winner;
    if (typeof w === 'string') return { ...loss, winner: { name: w, domain: null } };
    if (isRecord(w)) {
      const v = inspect(WINNER, w, probe, at);
      return { ...loss, winner: { ...w, name: v?.name ?? null, domain: v?.domain ?? null } };
    }
    return loss;
  });
}
