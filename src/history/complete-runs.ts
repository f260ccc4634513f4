// The runs a report may read: complete ones, by the rule of the `_latest` views (docs/tables.md,
// src/catalogue/views.ts): a manifest whose status is succeeded or partial, with its `sync_runs`
// row recorded. What each run covered (endpoints, workspaces, failed tables) is read from that row,
// as the views read it. Runs dated ahead of today (a clock that was ahead, src/records/clock.ts) are
// left out: their date would put them above every real run.
import { gunzipSync } from 'node:zlib';
import { SYNC_RUNS } from '../catalogue/sync-runs.js';
import type { Row } from '../catalogue/types.js';
import { datedAhead } from '../records/clock.js';
import { eventsDetectedBy } from '../records/events-writer.js';
import { manifestRunIds } from '../records/history.js';
import { type Manifest, readManifest } from '../records/manifest.js';
import { parseTablePartKey } from '../sinks/layout.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { mapSettled } from '../util/pool.js';

export interface CompleteRun {
  runId: string;
  runDate: string;
  /** First day of its visibility window (sync_runs.window_start): it returned days from there to its run date. */
  windowStart: string;
  startedAt: string;
  /** Endpoints the run called (sync_runs.endpoints). */
  endpoints: string[];
  /** Workspaces it landed (sync_runs.workspaces_succeeded). */
  workspaces: string[];
  /** Tables whose parts or load failed (sync_runs.tables_failed). */
  tablesFailed: string[];
  /**
   * The run is sure to list every workspace of the account: it succeeded, over all workspaces
   * (no --brand), called GET /brands and got the whole list (ACCOUNT_WORKSPACES of the views).
   */
  listsAllWorkspaces: boolean;
  /** Keys of its curated parts (tables/...), from the manifest. */
  partKeys: string[];
  /** The version of the release that detected its brand_events (src/events/meanings.ts). */
  eventsDetectedBy?: string;
}

const READ_CONCURRENCY = 8;

/** Newest first, as the views order runs: start time, then run id. */
export function newestRunFirst(a: CompleteRun, b: CompleteRun): number {
  return b.startedAt.localeCompare(a.startedAt) || b.runId.localeCompare(a.runId);
}

/** The account's complete runs, newest first. `now` only decides which run dates lie ahead. */
export async function completeRuns(store: ObjectStore, account: string, now: number): Promise<CompleteRun[]> {
  const ids = await manifestRunIds(store, account);
  const read = await mapSettled(ids, READ_CONCURRENCY, async (id) => {
    const m = await readManifest(store, account, id);
    return m && isComplete(m, now) ? recordedRun(store, m) : undefined;
  });
  const runs: CompleteRun[] = [];
  // A manifest or sync_runs part that cannot be read is no record of a complete run.
  for (const r of read) if (r.status === 'fulfilled' && r.value) runs.push(r.value);
  return runs.sort(newestRunFirst);
}

/**
 * The newest `limit` complete runs that `keep` accepts, newest first, reading manifests one run
 * date at a time from the newest: what a run's curate compares with (src/events/curate.ts) costs
 * the few newest dates, not the account's whole history. Run ids start with their run date
 * (src/records/run-id.ts); an id that does not is read with the newest date.
 */
export async function recentCompleteRuns(
  store: ObjectStore,
  account: string,
  now: number,
  o: {
    limit: number;
    keep: (r: CompleteRun) => boolean;
    /** The account's run ids with a manifest, when the caller has listed them (src/records/history.ts). */
    runIds?: readonly string[] | undefined;
  },
): Promise<CompleteRun[]> {
  const byDate = new Map<string, string[]>();
  for (const id of o.runIds ?? (await manifestRunIds(store, account))) {
    const date = /^\d{8}/.test(id) ? id.slice(0, 8) : '99999999';
    byDate.set(date, [...(byDate.get(date) ?? []), id]);
  }
  const runs: CompleteRun[] = [];
  for (const date of [...byDate.keys()].sort().reverse()) {
    const read = await mapSettled(byDate.get(date) ?? [], READ_CONCURRENCY, async (id) => {
      const m = await readManifest(store, account, id);
      return m && isComplete(m, now) ? recordedRun(store, m) : undefined;
    });
    for (const r of read) if (r.status === 'fulfilled' && r.value && o.keep(r.value)) runs.push(r.value);
    // A whole date read: an earlier date holds no run that started later (start times follow dates).
    if (runs.length >= o.limit) break;
  }
  return runs.sort(newestRunFirst).slice(0, o.limit);
}

function isComplete(m: Manifest, now: number): boolean {
  return (m.status === 'succeeded' || m.status === 'partial') && !datedAhead(m.run_date, now);
}

async function recordedRun(store: ObjectStore, m: Manifest): Promise<CompleteRun | undefined> {
  const partKeys = m.files.map((f) => f.key).filter((k) => parseTablePartKey(k) !== undefined);
  const syncRunsKey = partKeys.find((k) => parseTablePartKey(k)?.table === SYNC_RUNS.name);
  if (!syncRunsKey) return undefined;
  const rows = await readPart(store, syncRunsKey);
  // A replay records the run again: its newest row says what it covered.
  const row = rows.sort((a, b) => String(b.recorded_at).localeCompare(String(a.recorded_at)))[0];
  if (!row) return undefined;
  return {
    runId: m.run_id,
    runDate: m.run_date,
    windowStart: typeof row.window_start === 'string' ? row.window_start : (m.window?.from ?? m.run_date),
    startedAt: m.started_at,
    endpoints: strings(row.endpoints),
    workspaces: strings(row.workspaces_succeeded),
    tablesFailed: strings(row.tables_failed),
    listsAllWorkspaces:
      row.status === 'succeeded' &&
      strings(row.brand_filter).length === 0 &&
      strings(row.endpoints).includes('brands') &&
      row.workspace_list_incomplete !== true,
    partKeys: partKeys.filter((k) => k !== syncRunsKey),
    eventsDetectedBy: eventsDetectedBy(m),
  };
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** One curated part's rows (src/curate/ndjson-part.ts: gzipped NDJSON). */
export async function readPart(store: ObjectStore, key: string): Promise<Row[]> {
  const rows: Row[] = [];
  await forEachPartRow(store, key, (row) => rows.push(row));
  return rows;
}

/** Hands each row of a curated part to `each` as it is parsed, so a caller keeps only what it needs. */
export async function forEachPartRow(
  store: ObjectStore,
  key: string,
  each: (row: Row) => void,
): Promise<void> {
  const bytes = await store.get(key);
  if (!bytes) throw new Error(`curated part ${key} is missing`);
  const text = gunzipSync(bytes).toString('utf8');
  for (let start = 0; start < text.length; ) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    if (end > start) each(JSON.parse(text.slice(start, end)) as Row);
    start = end + 1;
  }
}
