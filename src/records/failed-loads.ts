import type { LoadResult } from './manifest.js';

/**
 * The failed loads of a run by reason, each with its tables in order: a warehouse that is down fails
 * every table alike, and is said once for them all (the CLI's lines, the run's log).
 */
export function failedLoadsByReason(loads: readonly LoadResult[]): Map<string, string[]> {
  const tablesByReason = new Map<string, string[]>();
  for (const l of loads) {
    if (l.status !== 'failed') continue;
    const reason = l.error ?? 'no reason recorded';
    tablesByReason.set(reason, [...(tablesByReason.get(reason) ?? []), l.table]);
  }
  return tablesByReason;
}
