import { buyerIntentRow } from '../../history/comparison.js';
import { compareText } from '../../history/figures.js';
import type { SnapshotSet } from '../model/account-data.js';
import { isNotRead } from '../model/not-read.js';
import { lossCounts } from './loss-counts.js';

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
