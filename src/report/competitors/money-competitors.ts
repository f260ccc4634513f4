// Who wins the client's money prompts: per competitor, the money prompts it wins in the buyer-intent
// state at the period's end against the state at the previous period's end (the same snapshots and
// window as the report's buyer-intent figures, src/history/comparison.ts). Where the data does not
// name them, `missing` says why in a code the page words in its language (docs/reports.md, "Who wins
// the money prompts"); never an empty list standing for "nobody". Pure.
import type { Row } from '../../catalogue/types.js';
import { buyerIntentRow } from '../../history/comparison.js';
import { compareText } from '../../history/figures.js';
import { losses } from '../../history/snapshot.js';
import type { SnapshotSet } from '../model/account-data.js';
import { isNotRead } from '../model/not-read.js';

/**
 * Why a side has no counts: `no_snapshot` no buyer-intent state at the period's end; `not_read` sent
 * in a shape not read; `no_winners` losses that name no winner; `none_lost` no money prompt lost
 * (a fact, not a gap); `not_comparable` (previous side only) a state too old or the same run.
 */
export type CompetitorsMissing = 'no_snapshot' | 'not_read' | 'no_winners' | 'none_lost';
export type PreviousMissing = 'no_snapshot' | 'not_read' | 'not_comparable';

export interface MoneyCompetitors {
  /** Null: the counts below stand; else why there are none for this period. */
  missing: CompetitorsMissing | null;
  /** Null: `previous_won` is the previous period's count (0 when it won none); else why it is null. */
  previous_missing: PreviousMissing | null;
  /** Most money prompts won first, then most won before, then by name. */
  competitors: { name: string; won: number; previous_won: number | null }[];
  /** Losses whose winner has no name: counted in no competitor's row. */
  unnamed: number;
}

/**
 * A buyer-intent row's losses counted: money prompts won per named competitor, losses whose winner
 * has no name, and the distinct prompts lost. Competitors over time (./trend.ts) counts by it too.
 */
export function lossCounts(row: Row): { counts: Map<string, number>; unnamed: number; lostPrompts: number } {
  const counts = new Map<string, number>();
  const lost = new Set<string>();
  let unnamed = 0;
  for (const l of losses(row)) {
    lost.add(l.prompt ?? '');
    if (l.winner_name === null || l.winner_name.trim() === '') unnamed += 1;
    else counts.set(l.winner_name, (counts.get(l.winner_name) ?? 0) + 1);
  }
  return { counts, unnamed, lostPrompts: lost.size };
}

type Side = { counts: Map<string, number>; unnamed: number } | 'no_snapshot' | 'not_read';

function side(set: SnapshotSet): Side {
  const row = buyerIntentRow(set.buyer_intent?.rows);
  if (row === undefined) return 'no_snapshot';
  if (isNotRead('buyer_intent', row)) return 'not_read';
  return lossCounts(row);
}

/** `comparable`: the previous buyer-intent state may stand beside this one (snapshotBasis). */
export function moneyCompetitors(
  end: SnapshotSet,
  previousEnd: SnapshotSet,
  comparable: boolean,
): MoneyCompetitors {
  const now = side(end);
  const before = side(previousEnd);
  const previous_missing: PreviousMissing | null =
    typeof before === 'string' ? before : comparable ? null : 'not_comparable';
  if (typeof now === 'string') return { missing: now, previous_missing, competitors: [], unnamed: 0 };
  if (now.counts.size === 0)
    return {
      missing: now.unnamed > 0 ? 'no_winners' : 'none_lost',
      previous_missing,
      competitors: [],
      unnamed: now.unnamed,
    };
  const was = previous_missing === null && typeof before !== 'string' ? before.counts : null;
  const names = new Set([...now.counts.keys(), ...(was?.keys() ?? [])]);
  const competitors = [...names]
    .map((name) => ({
      name,
      won: now.counts.get(name) ?? 0,
      previous_won: was === null ? null : (was.get(name) ?? 0),
    }))
    .sort(
      (a, b) => b.won - a.won || (b.previous_won ?? 0) - (a.previous_won ?? 0) || compareText(a.name, b.name),
    );
  return { missing: null, previous_missing, competitors, unnamed: now.unnamed };
}
