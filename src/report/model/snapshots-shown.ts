// Which state each snapshot section of a report shows (docs/reports.md "Which data a report reads"):
// the state at the period's end, the newest before the period (stale), the first known after it (a
// period before every run that covers the table: a backfill, a new client's first night), or none.
// The page says so under each section's heading, so an empty section never reads as "nothing". Pure.
import type { Period } from '../../history/period.js';
import { addDays } from '../../util/time.js';
import type { SnapshotSet } from './account-data.js';

/** The table whose run each snapshot section states its date by. */
export const SNAPSHOT_SECTIONS = {
  engines: 'brand_engine_scores',
  buyer_intent: 'buyer_intent',
  recommendations: 'recommendations',
  reputation: 'reputation_claims',
} as const;
export type SnapshotSection = keyof typeof SNAPSHOT_SECTIONS;

export interface SnapshotShown {
  /** The run date of the state shown; null when none is known for the period. */
  date: string | null;
  kind: 'at_end' | 'before' | 'first_known' | 'none';
}

/** Each snapshot section's state, by the run it was read from (account-data.ts `end`). */
export function snapshotsShown(
  end: SnapshotSet,
  period: Pick<Period, 'from' | 'to'>,
): Record<SnapshotSection, SnapshotShown> {
  const shown = (table: (typeof SNAPSHOT_SECTIONS)[SnapshotSection]): SnapshotShown => {
    const date = end[table]?.runDate ?? null;
    if (date === null) return { date, kind: 'none' };
    if (date > addDays(period.to, 1)) return { date, kind: 'first_known' };
    return { date, kind: date < period.from ? 'before' : 'at_end' };
  };
  return {
    engines: shown(SNAPSHOT_SECTIONS.engines),
    buyer_intent: shown(SNAPSHOT_SECTIONS.buyer_intent),
    recommendations: shown(SNAPSHOT_SECTIONS.recommendations),
    reputation: shown(SNAPSHOT_SECTIONS.reputation),
  };
}
