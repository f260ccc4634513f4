// Competitors over time (#42 item 7): per period of the last six (the report's and the five before
// it), the share of the money prompts each competitor wins in the buyer-intent state at that
// period's end, by the rule of "Who wins the money prompts" (./money-competitors.ts: its losses
// counted per winner, the shortest window), and the share the brand keeps itself (money prompts no
// loss names). A period without such a state says why (`missing`), never 0. Pure.
import { buyerIntentRow } from '../../history/comparison.js';
import { compareText, num } from '../../history/figures.js';
import type { Period } from '../../history/period.js';
import { isNotRead } from '../model/not-read.js';
import { lossCounts } from './loss-counts.js';

/** Competitors drawn beside the brand; the table lists the same. */
export const TREND_SHOWN = 5;
/** Periods shown: the report's and the five before it. */
export const TREND_PERIODS = 6;

/**
 * Why a period has no shares: `no_state` no buyer-intent state from the period's end (none synced
 * then, or only one from before the period began); `not_read` sent in a shape not read;
 * `no_money_prompts` the state counts no money prompt.
 */
export type TrendMissing = 'no_state' | 'not_read' | 'no_money_prompts';

export interface CompetitorTrend {
  /** Oldest first; the report's period last. */
  periods: {
    label: string;
    from: string;
    to: string;
    /** The run date of the buyer-intent state read; null when none. */
    snapshot_date: string | null;
    money_prompts: number | null;
    missing: TrendMissing | null;
  }[];
  /**
   * The brand (`own`, `name` null: the page names the client) first, then the competitors that won
   * the most money prompts over the periods (at most TREND_SHOWN); `shares[k]` is the percentage of
   * period k's money prompts won, null where the period is missing.
   */
  series: { name: string | null; own: boolean; shares: (number | null)[] }[];
}

/** One period's buyer-intent state as read (src/report/model/account-data.ts). */
export interface TrendState {
  period: Period;
  /** The buyer-intent rows of the state at its end and the run's date; undefined when none. */
  state: { rows: readonly Record<string, unknown>[]; runDate: string } | undefined;
}

const percent = (n: number, of: number) => Math.round((n / of) * 100 * 1e6) / 1e6;

type Counted =
  | { missing: TrendMissing; count: number | null }
  | { missing: null; count: number; won: Map<string, number>; lostPrompts: number };

function counted(s: TrendState): Counted {
  const row = buyerIntentRow(s.state?.rows as never);
  if (row === undefined) return { missing: 'no_state', count: null };
  if (isNotRead('buyer_intent', row)) return { missing: 'not_read', count: num(row.money_prompt_count) };
  const count = num(row.money_prompt_count);
  if (count === null || count <= 0) return { missing: 'no_money_prompts', count };
  const { counts: won, lostPrompts } = lossCounts(row);
  return { missing: null, count, won, lostPrompts: Math.min(lostPrompts, count) };
}

export function competitorTrend(states: readonly TrendState[]): CompetitorTrend {
  const sides = states.map(counted);
  const totals = new Map<string, number>();
  for (const s of sides)
    if (s.missing === null) for (const [name, n] of s.won) totals.set(name, (totals.get(name) ?? 0) + n);
  const top = [...totals.entries()]
    .sort((a, b) => b[1] - a[1] || compareText(a[0], b[0]))
    .slice(0, TREND_SHOWN)
    .map(([name]) => name);
  const share = (f: (s: Extract<Counted, { missing: null }>) => number) =>
    sides.map((s) => (s.missing === null ? percent(f(s), s.count) : null));
  return {
    periods: states.map((s, k) => {
      const side = sides[k] as Counted;
      return {
        label: s.period.label,
        from: s.period.from,
        to: s.period.to,
        snapshot_date: s.state?.runDate ?? null,
        money_prompts: side.count,
        missing: side.missing,
      };
    }),
    series: [
      { name: null, own: true, shares: share((s) => s.count - s.lostPrompts) },
      ...top.map((name) => ({ name, own: false, shares: share((s) => s.won.get(name) ?? 0) })),
    ],
  };
}
