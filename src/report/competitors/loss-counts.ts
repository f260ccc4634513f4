// The one rule for counting a buyer-intent row's losses, in a module of its own: ./trend.ts and
// ./money-competitors.ts both use it, and ./money-competitors.ts reads the account data that reads
// ./trend.ts, so neither may import the other. Pure.
import type { Row } from '../../catalogue/types.js';
import { losses } from '../../history/snapshot.js';

/**
 * A buyer-intent row's losses counted: money prompts won per named competitor, losses whose winner
 * has no name, and the distinct prompts lost. Who wins the money prompts
 * (./money-competitors.ts) and competitors over time (./trend.ts) both count by it.
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
