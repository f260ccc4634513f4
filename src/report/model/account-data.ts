// Reads what one account's reports need from the object store: the complete runs, then each curated
// part those reports use, once per account (every workspace's rows come from the same reads). Never
// the API.
import type { Row } from '../../catalogue/types.js';
import { snapshotAtEnd } from '../../history/comparison.js';
import { type CompleteRun, forEachPartRow } from '../../history/complete-runs.js';
import { type Period, periodsUpTo } from '../../history/period.js';
import {
  firstRunAfter,
  returnsDaysOf,
  snapshotOfPeriod,
  workspacesWithDays,
} from '../../history/period-workspaces.js';
import {
  covers,
  DAILY_TABLES,
  type DailyTable,
  dailyRuns,
  newestPerDay,
  SNAPSHOT_TABLES,
  type SnapshotTable,
} from '../../history/select.js';
import { parseTablePartKey } from '../../sinks/layout.js';
import type { ObjectStore } from '../../sinks/object-store.js';
import { errorMessage } from '../../util/errors.js';
import { mapSettled } from '../../util/pool.js';
import { addDays } from '../../util/time.js';
import { TREND_PERIODS, type TrendState } from '../competitors/trend.js';
import { RowCompactor } from './compact-rows.js';

/** Rows of one snapshot table from one run; absent when no complete run covered the table. */
export type SnapshotSet = Partial<Record<SnapshotTable, { rows: Row[]; runId: string; runDate?: string }>>;

export interface WorkspaceData {
  brandId: string;
  /**
   * State at the period's end, and at the previous period's end (src/history/comparison.ts
   * snapshotAtEnd: the first run of the day after, else the newest within or before). For the
   * period only, without either: the first state known after it (src/history/period-workspaces.ts
   * snapshotOfPeriod), a backfilled period's.
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
  /** Days of the period compared with and of the period, one run per day. */
  daily: Record<DailyTable, Row[]>;
  /**
   * The buyer-intent state at the end of each of the last six periods, oldest first, the report's
   * last (its `end` state): competitors over time (src/report/competitors/trend.ts).
   */
  moneyTrend?: TrendState[];
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
 * Workspaces a report of the period names when none is asked for: those with a brands state for it
 * (at its end, else the first known after it) that the account still had then: the newest run up to
 * the day after the period's end that listed every workspace (as the views' rule); for a period
 * before every run (a backfill, a new client), the first run after it that returned its days and
 * listed them all; without such a run, every workspace those runs hold. Also a client the newest
 * listing run has that joined since with days of the period. A removed client's report is made by
 * --brand (make.ts, src/history/period-workspaces.ts workspacesWithDays).
 */
export function reportableWorkspaces(runs: readonly CompleteRun[], period: Period): string[] {
  const dayAfter = addDays(period.to, 1);
  const upToEnd = runs.filter((r) => r.runDate <= dayAfter);
  const listing = upToEnd.length
    ? upToEnd.find((r) => r.listsAllWorkspaces)
    : firstRunAfter(runs, dayAfter, (r) => r.listsAllWorkspaces && returnsDaysOf(r, period));
  const seen = upToEnd.length ? upToEnd : runs.filter((r) => returnsDaysOf(r, period));
  const ids = new Set(listing ? listing.workspaces : seen.flatMap((r) => r.workspaces));
  // A client that joined since, whose first night returned days of the period: the account has it.
  const newest = runs.find((r) => r.listsAllWorkspaces);
  for (const w of workspacesWithDays(runs, period)) if (newest?.workspaces.includes(w)) ids.add(w);
  return [...ids].filter((w) => snapshotOfPeriod(runs, 'brands', w, period) !== undefined).sort();
}

/**
 * Every workspace a report of the period can be made for: those reported without --brand and any
 * other with days in it (a client removed from the account since: `visync report --brand`,
 * `visync report send --period`).
 */
export function periodWorkspaces(runs: readonly CompleteRun[], period: Period): string[] {
  return [...new Set([...reportableWorkspaces(runs, period), ...workspacesWithDays(runs, period)])].sort();
}

/** The runs one workspace's report reads each snapshot table and daily table from. */
interface WorkspacePlan {
  brandId: string;
  end: Record<SnapshotTable, CompleteRun | undefined>;
  previousEnd: Record<SnapshotTable, CompleteRun | undefined>;
  baseline: Record<SnapshotTable, CompleteRun | undefined>;
  daily: Record<DailyTable, CompleteRun[]>;
  trend: { period: Period; run: CompleteRun | undefined }[];
}

/** Rows read, by run id, table and workspace. */
type RowsByRun = Map<string, Map<string, Map<string, Row[]>>>;

/** Which (run, table) each workspace needs; `needed` gathers the tables per run id for all of them. */
function planWorkspaces(
  runs: readonly CompleteRun[],
  brandIds: readonly string[],
  period: Period,
  previous: Period,
): { plans: WorkspacePlan[]; needed: Map<string, Set<string>> } {
  const needed = new Map<string, Set<string>>(); // runId -> tables
  const need = (run: CompleteRun | undefined, table: string) => {
    if (!run) return;
    const set = needed.get(run.runId) ?? new Set<string>();
    set.add(table);
    needed.set(run.runId, set);
  };
  const plans = brandIds.map((brandId): WorkspacePlan => {
    // The period's own state may be the first known after it; the previous period's is never.
    const snap = (p: Period, firstKnown = false) =>
      Object.fromEntries(
        SNAPSHOT_TABLES.map((t) => {
          const run = (firstKnown ? snapshotOfPeriod : snapshotAtEnd)(runs, t, brandId, p);
          need(run, t);
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
    const end = snap(period, true);
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
        need(run, t);
        return [t, run];
      }),
    ) as Record<SnapshotTable, CompleteRun | undefined>;
    // Competitors over time: one buyer-intent state per period, from its end; one from before a
    // period began is not that period's (it shows as missing). The report's own is its `end`.
    const ownState = (p: Period) => {
      const at = snapshotAtEnd(runs, 'buyer_intent', brandId, p);
      return at && at.runDate >= p.from ? at : undefined;
    };
    const trend = periodsUpTo(period, TREND_PERIODS).map((p) => {
      const run = p === period ? end.buyer_intent : ownState(p);
      need(run, 'buyer_intent');
      return { period: p, run };
    });
    return { brandId, end, previousEnd, baseline, daily, trend };
  });
  return { plans, needed };
}

/** Whether `day` is a day of the period or of the one it is compared with. */
function inEither(day: string, period: Period, previous: Period): boolean {
  return (day >= previous.from && day <= previous.to) || (day >= period.from && day <= period.to);
}

/**
 * The part keys to read. A daily table's parts are partitioned by the row's date: a run holding a
 * year of history has parts the report never shows (its rows are kept from previous.from to
 * period.to).
 */
function partsToRead(
  runs: readonly CompleteRun[],
  needed: Map<string, Set<string>>,
  period: Period,
  previous: Period,
): string[] {
  const daily: readonly string[] = DAILY_TABLES;
  const wanted = (runId: string, key: string) => {
    const p = parseTablePartKey(key);
    if (!p || !needed.get(runId)?.has(p.table)) return false;
    // Only the days of the two periods: a year-on-year report reads two months, not thirteen.
    return !daily.includes(p.table) || inEither(p.partitionDate, period, previous);
  };
  return runs.flatMap((r) => r.partKeys.filter((k) => wanted(r.runId, k)));
}

/**
 * Reads each part once, keeping the selected workspaces' rows. Rows are kept compact
 * (compact-rows.ts) from the moment they are parsed; each part's are grouped apart, then merged in
 * key order, so a workspace's rows keep the parts' order whatever order the reads finish in.
 */
async function readParts(store: ObjectStore, keys: readonly string[], selected: ReadonlySet<string>) {
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
  const rows: RowsByRun = new Map();
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
  return rows;
}

/** One workspace's rows from the parts read, as its plan chose them. */
function buildWorkspace(p: WorkspacePlan, rows: RowsByRun, period: Period, previous: Period): WorkspaceData {
  const rowsOf = (run: CompleteRun, table: string) => rows.get(run.runId)?.get(table)?.get(p.brandId) ?? [];
  const set = (chosen: Record<SnapshotTable, CompleteRun | undefined>): SnapshotSet => {
    const out: SnapshotSet = {};
    for (const t of SNAPSHOT_TABLES) {
      const run = chosen[t];
      if (run) out[t] = { rows: rowsOf(run, t), runId: run.runId, runDate: run.runDate };
    }
    return out;
  };
  const daily = Object.fromEntries(
    DAILY_TABLES.map((t) => [
      t,
      newestPerDay(p.daily[t].map((r) => rowsOf(r, t))).filter((row) =>
        inEither(String(row.date), period, previous),
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
    moneyTrend: p.trend.map(({ period: tp, run }) => ({
      period: tp,
      state: run ? { rows: rowsOf(run, 'buyer_intent'), runDate: run.runDate } : undefined,
    })),
  };
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
  const { plans, needed } = planWorkspaces(runs, brandIds, period, previous);
  const keys = partsToRead(runs, needed, period, previous);
  const partsTotal = runs.reduce((n, r) => n + r.partKeys.length, 0);
  const rows = await readParts(store, keys, new Set(brandIds));
  function* workspaces(): Generator<WorkspaceData> {
    for (const p of plans) {
      const built = buildWorkspace(p, rows, period, previous);
      // Its report is made before the next is built: nothing else needs these rows.
      for (const byTable of rows.values()) for (const byBrand of byTable.values()) byBrand.delete(p.brandId);
      yield built;
    }
  }
  return { workspaces: workspaces(), partsRead: keys.length, partsTotal };
}
