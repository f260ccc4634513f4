// Run history for `visync runs`: the manifests in the sink, newest first. Every run id begins with
// its run date (YYYYMMDD), so the listing alone orders runs by date (runs dated ahead of today,
// made under a clock that was ahead, come last); manifests are then read one
// date at a time, newest first, only until `limit` runs are found, and ordered within a date by
// their start time. A manifest that cannot be read or parsed is reported, never fatal.
import { manifestKey } from '../sinks/layout.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { mapSettled } from '../util/pool.js';
import { datedAhead } from './clock.js';
import { manifestRunIds } from './history.js';
import { type Manifest, readManifest } from './manifest.js';

export interface ListRunsOptions {
  accounts: readonly string[];
  limit: number;
}

export interface ListedRuns {
  /** Newest run date first; within a date, latest start first. */
  manifests: Manifest[];
  /** Keys of manifests that could not be read, with why. */
  unreadable: { key: string; reason: string }[];
}

const READ_CONCURRENCY = 8;

/**
 * Order of run history: the run that started last first (run id breaks ties); runs dated ahead
 * of today (a clock that was ahead, src/records/clock.ts) after all others.
 */
export function newestFirst(a: Manifest, b: Manifest, now = Date.now()): number {
  return (
    Number(datedAhead(a.run_date, now)) - Number(datedAhead(b.run_date, now)) ||
    b.started_at.localeCompare(a.started_at) ||
    b.run_id.localeCompare(a.run_id)
  );
}

/** Run-id dates (YYYYMMDD) newest first, those ahead of today after all others. */
function datesNewestFirst(dates: Iterable<string>, now = Date.now()): string[] {
  const ahead = (d: string) => datedAhead(`${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}`, now);
  return [...dates]
    .sort()
    .reverse()
    .sort((a, b) => Number(ahead(a)) - Number(ahead(b)));
}

export async function listRuns(store: ObjectStore, o: ListRunsOptions): Promise<ListedRuns> {
  const runs = (
    await Promise.all(
      o.accounts.map(async (account) =>
        (await manifestRunIds(store, account)).map((runId) => ({ account, runId })),
      ),
    )
  ).flat();
  const byDate = new Map<string, { account: string; runId: string }[]>();
  for (const r of runs) {
    const date = /^\d{8}/.exec(r.runId)?.[0] ?? '';
    byDate.set(date, [...(byDate.get(date) ?? []), r]);
  }
  const history: ListedRuns = { manifests: [], unreadable: [] };
  for (const date of datesNewestFirst(byDate.keys())) {
    if (history.manifests.length >= o.limit) break;
    const group = byDate.get(date) ?? [];
    const read = await mapSettled(group, READ_CONCURRENCY, (r) => readManifest(store, r.account, r.runId));
    const found: Manifest[] = [];
    read.forEach((outcome, i) => {
      const r = group[i] as { account: string; runId: string };
      if (outcome.status === 'fulfilled' && outcome.value) found.push(outcome.value);
      else {
        const reason = outcome.status === 'rejected' ? String((outcome.reason as Error)?.message) : 'gone';
        history.unreadable.push({ key: manifestKey(r.account, r.runId), reason });
      }
    });
    found.sort((a, b) => newestFirst(a, b));
    history.manifests.push(...found);
  }
  history.manifests = history.manifests.slice(0, o.limit);
  return history;
}
