// Reads what one account's reports need from the object store: the complete runs, then each curated
// part those reports use, once per account (every workspace's rows come from the same reads). Never
// the API.
import type { Row } from '../catalogue/types.js';
import { snapshotAtEnd } from '../history/comparison.js';
import { type CompleteRun, forEachPartRow } from '../history/complete-runs.js';
import type { Period } from '../history/period.js';
import {
  covers,
  DAILY_TABLES,
  type DailyTable,
  dailyRuns,
  newestPerDay,
  SNAPSHOT_TABLES,
  type SnapshotTable,
} from '../history/select.js';
import { parseTablePartKey } from '../sinks/layout.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { errorMessage } from '../util/errors.js';
import { mapSettled } from '../util/pool.js';
import { addDays } from '../util/time.js';
import { RowCompactor } from './compact-rows.js';

/** Rows of one snapshot table from one run; absent when no complete run covered the table. */
export type SnapshotSet = Partial<Record<SnapshotTable, { rows: Row[]; runId: string; runDate?: string }>>;

export interface WorkspaceData {
  brandId: string;
  /**
   * State at the period's end, and at the previous period's end (src/history/comparison.ts
   * snapshotAtEnd: the first run of the day after, else the newest within or before).
   */
  end: SnapshotSet;
  previousEnd: SnapshotSet;
  /**
   * What "what changed" compares with: the state at the previous period's end, or when no run
   * reaches back that far, the oldest other run within the period; empty when there is neither.
   */
  baseline: SnapshotSet;
  /** Run date of the newest run in `baseline`; undefined when it is empty. */
  baselineDate?: string;
  /** Days of the previous period and the period, one run per day. */
  daily: Record<DailyTable, Row[]>;
}

export interface AccountData {
  /**
   * Built one at a time as they are iterated (once): a workspace's rows are let go of when the
   * next is built, so memory shrinks as reports are made.
   */
  workspaces: Iterable<WorkspaceData>;
  /** Curated parts read (each once) and parts of the complete runs in all. */
  partsRead: number;
  partsTotal: number;
}

const READ_CONCURRENCY = 8;

/**
 * Workspaces a report of the period can name: those with a brands snapshot at its end, and, as in
 * the views, only those the account still had then (the newest run up to the day after the period's
 * end that listed every workspace; without one, every workspace seen).
 */
export function reportableWorkspaces(runs: readonly CompleteRun[], period: Period): string[] {
  const dayAfter = addDays(period.to, 1);
  const upToEnd = runs.filter((r) => r.runDate <= dayAfter);
  const listing = upToEnd.find((r) => r.listsAllWorkspaces);
  const ids = new Set(listing ? listing.workspaces : upToEnd.flatMap((r) => r.workspaces));
  return [...ids].filter((w) => snapshotAtEnd(runs, 'brands', w, period) !== undefined).sort();
}

/**
 * Every workspace's rows for a report of `period` (compared with `previous`). `brandIds` are the
 * workspaces to report; `runs` the account's complete runs, newest first.
 */
export async function readAccountData(
  store: ObjectStore,
  runs: readonly CompleteRun[],
  brandIds: readonly string[],
  period: Period,
  previous: Period,
): Promise<AccountData> {
  // Plan: which (run, table) each workspace needs; then each such part is read once.
  const needed = new Map<string, Set<string>>(); // runId -> tables
  const need = (run: CompleteRun, table: string) => {
    const set = needed.get(run.runId) ?? new Set<string>();
    set.add(table);
    needed.set(run.runId, set);
  };
  const plans = brandIds.map((brandId) => {
    const snap = (p: Period) =>
      Object.fromEntries(
        SNAPSHOT_TABLES.map((t) => {
          const run = snapshotAtEnd(runs, t, brandId, p);
          if (run) need(run, t);
          return [t, run];
        }),
      ) as Record<SnapshotTable, CompleteRun | undefined>;
    const daily = Object.fromEntries(
      DAILY_TABLES.map((t) => {
        const rs = dailyRuns(runs, t, brandId, previous.from);
        for (const r of rs) need(r, t);
        return [t, rs];
      }),
    ) as Record<DailyTable, CompleteRun[]>;
    const end = snap(period);
    const previousEnd = snap(previous);
    const baseline = Object.fromEntries(
      SNAPSHOT_TABLES.map((t) => {
        const run =
          (previousEnd[t] !== end[t] ? previousEnd[t] : undefined) ??
          [...runs]
            .reverse()
            .find(
              (r) =>
                r.runDate >= period.from && r !== end[t] && r.runDate <= period.to && covers(r, t, brandId),
            );
        if (run) need(run, t);
        return [t, run];
      }),
    ) as Record<SnapshotTable, CompleteRun | undefined>;
    return { brandId, end, previousEnd, baseline, daily };
  });

  // A daily table's parts are partitioned by the row's date: a run holding a year of history has
  // parts the report never shows (its rows are kept from previous.from to period.to below).
  const daily: readonly string[] = DAILY_TABLES;
  const wanted = (runId: string, key: string) => {
    const p = parseTablePartKey(key);
    if (!p || !needed.get(runId)?.has(p.table)) return false;
    return !daily.includes(p.table) || (p.partitionDate >= previous.from && p.partitionDate <= period.to);
  };
  const keys = runs.flatMap((r) => r.partKeys.filter((k) => wanted(r.runId, k)));
  const partsTotal = runs.reduce((n, r) => n + r.partKeys.length, 0);
  const selected = new Set(brandIds);
  // Rows are kept compact (compact-rows.ts) from the moment they are parsed, and only the selected
  // workspaces'; each part's are grouped apart, then merged in key order, so a workspace's rows keep
  // the parts' order whatever order the reads finish in.
  const compactor = new RowCompactor();
  const perPart: Map<string, Row[]>[] = new Array(keys.length);
  const read = await mapSettled(keys, READ_CONCURRENCY, async (key, i) => {
    const table = parseTablePartKey(key)?.table ?? '';
    const byBrand = new Map<string, Row[]>();
    await forEachPartRow(store, key, (row) => {
      const b = String(row.brand_id);
      if (!selected.has(b)) return;
      const kept = compactor.compact(table, row);
      const list = byBrand.get(b);
      if (list) list.push(kept);
      else byBrand.set(b, [kept]);
    });
    perPart[i] = byBrand;
  });
  // rows[runId][table][brandId]
  const rows = new Map<string, Map<string, Map<string, Row[]>>>();
  read.forEach((outcome, i) => {
    const key = keys[i] as string;
    const p = parseTablePartKey(key);
    if (!p) return;
    if (outcome.status === 'rejected')
      throw new Error(
        `cannot read ${key} of complete run ${p.runId}: ${errorMessage(outcome.reason)}; ` +
          `\`visync replay --run ${p.runId} --account ${p.account}\` rebuilds it from the raw landing`,
      );
    const byTable = rows.get(p.runId) ?? new Map<string, Map<string, Row[]>>();
    rows.set(p.runId, byTable);
    const byBrand = byTable.get(p.table) ?? new Map<string, Row[]>();
    byTable.set(p.table, byBrand);
    for (const [b, partRows] of perPart[i] ?? []) {
      const list = byBrand.get(b);
      if (!list) byBrand.set(b, partRows);
      else for (const row of partRows) list.push(row);
    }
  });
  perPart.length = 0;
  const rowsOf = (run: CompleteRun, table: string, brandId: string) =>
    rows.get(run.runId)?.get(table)?.get(brandId) ?? [];

  const build = (p: (typeof plans)[number]): WorkspaceData => {
    const set = (chosen: Record<SnapshotTable, CompleteRun | undefined>): SnapshotSet => {
      const out: SnapshotSet = {};
      for (const t of SNAPSHOT_TABLES) {
        const run = chosen[t];
        if (run) out[t] = { rows: rowsOf(run, t, p.brandId), runId: run.runId, runDate: run.runDate };
      }
      return out;
    };
    const daily = Object.fromEntries(
      DAILY_TABLES.map((t) => [
        t,
        newestPerDay(p.daily[t].map((r) => rowsOf(r, t, p.brandId))).filter(
          (row) => String(row.date) >= previous.from && String(row.date) <= period.to,
        ),
      ]),
    ) as Record<DailyTable, Row[]>;
    const baselineDate = Object.values(p.baseline)
      .filter((r): r is CompleteRun => r !== undefined)
      .map((r) => r.runDate)
      .sort()
      .at(-1);
    return {
      brandId: p.brandId,
      end: set(p.end),
      previousEnd: set(p.previousEnd),
      baseline: set(p.baseline),
      ...(baselineDate === undefined ? {} : { baselineDate }),
      daily,
    };
  };
  function* workspaces(): Generator<WorkspaceData> {
    for (const p of plans) {
      const built = build(p);
      // Its report is made before the next is built: nothing else needs these rows.
      for (const byTable of rows.values()) for (const byBrand of byTable.values()) byBrand.delete(p.brandId);
      yield built;
    }
  }
  return { workspaces: workspaces(), partsRead: keys.length, partsTotal };
}
