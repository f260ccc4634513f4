// The catalogue's views run on a real SQL engine (DuckDB, through test/helpers/duckdb.ts) over rows
// of a few runs built here: what `{table}_latest` and `recommendation_status_changes` show after
// complete, crashed, subset, failed, filtered and replayed runs.

import { describe, expect, it } from 'vitest';
import { RAW_ENDPOINTS } from '../src/api/endpoints.js';
import { type Row, TABLES, type TableDef, tableByName, VIEWS } from '../src/catalogue/index.js';
import { openWarehouse, type Warehouse } from './helpers/duckdb.js';

const ACCOUNT = 'acme';
const ALL_ENDPOINTS = [...RAW_ENDPOINTS];

interface Run {
  id: string;
  date: string;
  startedAt: string;
  /** When its responses arrived. */
  at: string;
}

/** The n-th nightly run (n >= 1): one a day from 2026-03-10, at 02:00. */
function run(n: number): Run {
  const date = `2026-03-${String(9 + n).padStart(2, '0')}`;
  return {
    id: `${date.replaceAll('-', '')}T020000Z-sync-00000${n}`,
    date,
    startedAt: `${date}T02:00:00.000Z`,
    at: `${date}T02:00:05.000Z`,
  };
}

interface Recording {
  succeeded: string[];
  failed?: string[];
  endpoints?: string[];
  brandFilter?: string[];
  tablesFailed?: string[];
  error?: string;
  /** Default: when the run finished; a replay records the run again later. */
  recordedAt?: string;
  /** GET /brands listed fewer workspaces than its count (null: a row recorded before the column). */
  listIncomplete?: boolean | null;
  /** Default: from the failures, as the sync decides it. */
  status?: string;
}

/** The run's sync_runs row, as the sync writes it when the run finishes. */
function syncRun(r: Run, o: Recording): Row {
  const failed = o.failed ?? [];
  const tablesFailed = o.tablesFailed ?? [];
  const status =
    o.status ??
    (o.error || (failed.length && !o.succeeded.length)
      ? 'failed'
      : failed.length + tablesFailed.length
        ? 'partial'
        : 'succeeded');
  const finished = new Date(Date.parse(r.at) + 60_000).toISOString();
  return {
    account: ACCOUNT,
    run_id: r.id,
    kind: 'sync',
    status,
    run_date: r.date,
    window_start: r.date,
    window_end: r.date,
    started_at: r.startedAt,
    finished_at: finished,
    recorded_at: o.recordedAt ?? finished,
    requests: 10,
    rate_limited: 0,
    retries: 0,
    waited_ms: 0,
    endpoints: o.endpoints ?? ALL_ENDPOINTS,
    brand_filter: o.brandFilter ?? [],
    workspaces_succeeded: o.succeeded,
    workspaces_failed: failed,
    tables_failed: tablesFailed,
    table_rows: {},
    failures: [],
    workspace_list_incomplete: o.listIncomplete === undefined ? false : o.listIncomplete,
    drift_findings: 0,
    drift: [],
    error: o.error ?? null,
  };
}

const REQUIRED_DEFAULTS: Record<string, unknown> = {
  STRING: 'k1',
  INT64: 7,
  FLOAT64: 1.5,
  BOOL: false,
  JSON: {},
};

/** A row of `table` from run `r` for a workspace: required columns filled, `values` on top. */
function rowOf(table: TableDef, r: Run, brandId: string, values: Row = {}): Row {
  const row: Row = {};
  for (const c of table.columns) {
    if (c.name === 'account') row[c.name] = ACCOUNT;
    else if (c.name === 'brand_id') row[c.name] = brandId;
    else if (c.name === 'run_id') row[c.name] = r.id;
    else if (c.type === 'TIMESTAMP' && c.mode === 'REQUIRED') row[c.name] = r.at;
    else if (c.type === 'DATE' && (c.mode === 'REQUIRED' || c.name === table.partitionField))
      row[c.name] = r.date;
    else if (c.mode === 'REQUIRED') row[c.name] = REQUIRED_DEFAULTS[c.type];
  }
  return { ...row, ...values };
}

const recommendation = (r: Run, brandId: string, id: string, status = 'open') =>
  rowOf(tableByName('recommendations'), r, brandId, { recommendation_id: id, status });

/** A brands row: with `detail`, what GET /brands/{id} adds (engine mode, competitor count). */
const brand = (r: Run, brandId: string, detail: boolean) =>
  rowOf(tableByName('brands'), r, brandId, {
    name: `Brand ${brandId}`,
    in_list: true,
    has_detail: detail,
    ...(detail ? { engine_mode: 'selected', competitor_count: 4 } : {}),
  });

const visibilityDay = (r: Run, brandId: string, date: string, score: number) =>
  rowOf(tableByName('visibility_daily'), r, brandId, { date, overall_score: score });

async function load(wh: Warehouse, rows: Row[], table: string): Promise<void> {
  await wh.insertRows(table, rows);
}

async function recordRuns(wh: Warehouse, rows: Row[]): Promise<void> {
  await wh.insertRows('sync_runs', rows);
}

/** A warehouse with these rows loaded, per table, and these runs recorded in sync_runs: what a view reads. */
async function warehouseWith(tables: Record<string, Row[]>, runs: Row[]): Promise<Warehouse> {
  const wh = await openWarehouse();
  for (const [table, rows] of Object.entries(tables)) await load(wh, rows, table);
  await recordRuns(wh, runs);
  return wh;
}

/** `columns` of a view's rows, sorted, as `a|b|c` strings: easy to compare, readable when not equal. */
async function viewRows(wh: Warehouse, view: string, columns: string[]): Promise<string[]> {
  const rows = await wh.query(`SELECT ${columns.join(', ')} FROM ${wh.dataset}.${view}`);
  return rows.map((r) => columns.map((c) => String(r[c])).join('|')).sort();
}

describe('recommendations_latest', () => {
  it('drops a recommendation the API stopped returning', async () => {
    const [r1, r2] = [run(1), run(2)];
    const wh = await warehouseWith(
      {
        recommendations: [
          recommendation(r1, 'ws_1', 'rec_1'),
          recommendation(r1, 'ws_1', 'rec_2'),
          recommendation(r2, 'ws_1', 'rec_1', 'done'),
        ],
      },
      [syncRun(r1, { succeeded: ['ws_1'] }), syncRun(r2, { succeeded: ['ws_1'] })],
    );

    expect(await viewRows(wh, 'recommendations_latest', ['recommendation_id', 'status', 'run_id'])).toEqual([
      `rec_1|done|${r2.id}`,
    ]);
  });

  it('keeps the previous run for a workspace that failed in the newest run', async () => {
    const [r1, r2] = [run(1), run(2)];
    const wh = await warehouseWith(
      {
        recommendations: [
          recommendation(r1, 'ws_1', 'rec_1'),
          recommendation(r1, 'ws_2', 'rec_a'),
          recommendation(r1, 'ws_2', 'rec_b'),
          recommendation(r2, 'ws_1', 'rec_1', 'done'),
          // ws_2 failed in r2 after its recommendations landed, with only part of them.
          recommendation(r2, 'ws_2', 'rec_a', 'dismissed'),
        ],
      },
      [syncRun(r1, { succeeded: ['ws_1', 'ws_2'] }), syncRun(r2, { succeeded: ['ws_1'], failed: ['ws_2'] })],
    );

    expect(
      await viewRows(wh, 'recommendations_latest', ['brand_id', 'recommendation_id', 'status', 'run_id']),
    ).toEqual([`ws_1|rec_1|done|${r2.id}`, `ws_2|rec_a|open|${r1.id}`, `ws_2|rec_b|open|${r1.id}`]);
  });

  it('moves only the workspace of a --brand run', async () => {
    const [r1, r2] = [run(1), run(2)];
    const wh = await warehouseWith(
      {
        recommendations: [
          recommendation(r1, 'ws_1', 'rec_1'),
          recommendation(r1, 'ws_2', 'rec_a'),
          recommendation(r2, 'ws_2', 'rec_b'),
        ],
      },
      [
        syncRun(r1, { succeeded: ['ws_1', 'ws_2'] }),
        syncRun(r2, { succeeded: ['ws_2'], brandFilter: ['ws_2'] }),
      ],
    );

    expect(await viewRows(wh, 'recommendations_latest', ['brand_id', 'recommendation_id', 'run_id'])).toEqual(
      [`ws_1|rec_1|${r1.id}`, `ws_2|rec_b|${r2.id}`],
    );
  });

  it('drops a workspace the newest full run no longer synced (removed from the account)', async () => {
    const [r1, r2, r3] = [run(1), run(2), run(3)];
    const wh = await warehouseWith(
      {
        recommendations: [
          recommendation(r1, 'ws_1', 'rec_1'),
          recommendation(r1, 'ws_2', 'rec_a'),
          recommendation(r2, 'ws_1', 'rec_1'),
          recommendation(r3, 'ws_1', 'rec_1'),
        ],
        brands: [brand(r1, 'ws_1', true), brand(r1, 'ws_2', true), brand(r2, 'ws_1', true)],
      },
      // r2 synced ws_1 only and failed no workspace: ws_2 is no longer in the account.
      [syncRun(r1, { succeeded: ['ws_1', 'ws_2'] }), syncRun(r2, { succeeded: ['ws_1'] })],
    );
    expect(await viewRows(wh, 'recommendations_latest', ['brand_id'])).toEqual(['ws_1']);
    expect(await viewRows(wh, 'brands_latest', ['brand_id'])).toEqual(['ws_1']);

    // A --brand run or a partial run says nothing about the other workspaces: r2 still decides.
    await recordRuns(wh, [syncRun(r3, { succeeded: ['ws_1'], brandFilter: ['ws_1'] })]);
    expect(await viewRows(wh, 'recommendations_latest', ['brand_id', 'run_id'])).toEqual([`ws_1|${r3.id}`]);
  });

  it.each<[string, Recording]>([
    ['the newest full run failed one (it may still exist)', { succeeded: ['ws_1'], failed: ['ws_2'] }],
    [
      "the newest full run's workspace list was cut short, whatever its status says",
      { succeeded: ['ws_1'], listIncomplete: true, status: 'succeeded' },
    ],
  ])('keeps every workspace while %s', async (_, newest) => {
    const [r1, r2] = [run(1), run(2)];
    const wh = await warehouseWith(
      {
        recommendations: [
          recommendation(r1, 'ws_1', 'rec_1'),
          recommendation(r1, 'ws_2', 'rec_a'),
          recommendation(r2, 'ws_1', 'rec_1'),
        ],
      },
      // r1 was recorded before sync_runs had workspace_list_incomplete (null).
      [syncRun(r1, { succeeded: ['ws_1', 'ws_2'], listIncomplete: null }), syncRun(r2, newest)],
    );
    expect(await viewRows(wh, 'recommendations_latest', ['brand_id', 'run_id'])).toEqual([
      `ws_1|${r2.id}`,
      `ws_2|${r1.id}`,
    ]);
  });

  it('counts a replayed run once, as its newest sync_runs row says', async () => {
    const [r1, r2] = [run(1), run(2)];
    const wh = await warehouseWith(
      { recommendations: [recommendation(r1, 'ws_1', 'rec_1'), recommendation(r2, 'ws_1', 'rec_1', 'done')] },
      [
        syncRun(r1, { succeeded: ['ws_1'] }),
        // r2's first recording: its recommendations load failed.
        syncRun(r2, { succeeded: ['ws_1'], tablesFailed: ['recommendations'] }),
      ],
    );
    expect(await viewRows(wh, 'recommendations_latest', ['status', 'run_id'])).toEqual([`open|${r1.id}`]);

    // `visync replay` loads the table (its rows land again) and records r2 a second time.
    await load(wh, [recommendation(r2, 'ws_1', 'rec_1', 'done')], 'recommendations');
    await recordRuns(wh, [syncRun(r2, { succeeded: ['ws_1'], recordedAt: '2026-03-11T09:00:00.000Z' })]);
    expect(await viewRows(wh, 'recommendations_latest', ['status', 'run_id'])).toEqual([`done|${r2.id}`]);
  });
});

describe('the newest run', () => {
  it('is the one that started last, not the greatest id (a worker run id carries only the day)', async () => {
    const wh = await openWarehouse();
    const day = '2026-03-11';
    const at = (hh: string) => ({ startedAt: `${day}T${hh}:00:00.000Z`, at: `${day}T${hh}:00:05.000Z` });
    const nightly: Run = { id: '20260311-nightly-ffffffff', date: day, ...at('01') };
    const later: Run = { id: '20260311-backfill-00000000', date: day, ...at('03') };
    await load(
      wh,
      [recommendation(nightly, 'ws_1', 'rec_1'), recommendation(later, 'ws_1', 'rec_2')],
      'recommendations',
    );
    await load(
      wh,
      [visibilityDay(nightly, 'ws_1', day, 40), visibilityDay(later, 'ws_1', day, 50)],
      'visibility_daily',
    );
    await recordRuns(wh, [
      syncRun(nightly, { succeeded: ['ws_1'] }),
      syncRun(later, { succeeded: ['ws_1'] }),
    ]);

    expect(await viewRows(wh, 'recommendations_latest', ['recommendation_id', 'run_id'])).toEqual([
      `rec_2|${later.id}`,
    ]);
    expect(await viewRows(wh, 'visibility_daily_latest', ['overall_score', 'run_id'])).toEqual([
      `50|${later.id}`,
    ]);
  });
});

describe('every _latest view', () => {
  /** One row per table for workspace ws_1 from run `r`, `snapshot_date`/`date` its run date. */
  async function loadEveryTable(wh: Warehouse, r: Run): Promise<void> {
    for (const t of TABLES) await wh.insertRows(t.name, [rowOf(t, r, 'ws_1')]);
  }

  it('never shows rows of a run without a sync_runs row (crashed before recording itself)', async () => {
    const wh = await openWarehouse();
    const [r1, crashed] = [run(1), run(2)];
    await loadEveryTable(wh, r1);
    await loadEveryTable(wh, crashed);
    await recordRuns(wh, [syncRun(r1, { succeeded: ['ws_1'] })]);

    for (const t of TABLES) {
      expect(await viewRows(wh, `${t.name}_latest`, ['run_id']), t.name).toEqual([r1.id]);
    }
  });

  it('returns exactly the columns of its table, and shows nothing before any run is recorded', async () => {
    const wh = await openWarehouse();
    await loadEveryTable(wh, run(1));
    for (const t of TABLES) {
      const described = await wh.query(`DESCRIBE SELECT * FROM ${wh.dataset}.${t.name}_latest`);
      expect(
        described.map((c) => c.column_name),
        t.name,
      ).toEqual(t.columns.map((c) => c.name));
      expect(await viewRows(wh, `${t.name}_latest`, ['run_id']), t.name).toEqual([]);
    }
  });

  it('keeps accounts on the newest run whose account did not stop', async () => {
    const wh = await openWarehouse();
    const [r1, r2] = [run(1), run(2)];
    const accounts = tableByName('accounts');
    await load(
      wh,
      [rowOf(accounts, r1, '', { plan_name: 'agency' }), rowOf(accounts, r2, '', { plan_name: 'starter' })],
      'accounts',
    );
    await recordRuns(wh, [
      syncRun(r1, { succeeded: ['ws_1'] }),
      syncRun(r2, { succeeded: [], error: 'plan without API access' }),
    ]);
    expect(await viewRows(wh, 'accounts_latest', ['plan_name', 'run_id'])).toEqual([`agency|${r1.id}`]);
  });

  it('run on DuckDB, every one of them, against the full schema', async () => {
    const wh = await openWarehouse();
    await loadEveryTable(wh, run(1));
    await recordRuns(wh, [syncRun(run(1), { succeeded: ['ws_1'] })]);
    for (const v of VIEWS)
      await expect(wh.query(`SELECT * FROM ${wh.dataset}.${v.name}`), v.name).resolves.toBeDefined();
  });
});

describe('a --endpoints visibility run', () => {
  it('leaves brands_latest with the full run detail and moves the visibility tables', async () => {
    const wh = await openWarehouse();
    const [full, visibilityOnly] = [run(1), run(2)];
    await load(wh, [brand(full, 'ws_1', true), brand(visibilityOnly, 'ws_1', false)], 'brands');
    await load(
      wh,
      [
        visibilityDay(full, 'ws_1', '2026-03-09', 40),
        visibilityDay(full, 'ws_1', '2026-03-10', 41),
        visibilityDay(visibilityOnly, 'ws_1', '2026-03-10', 51),
        visibilityDay(visibilityOnly, 'ws_1', '2026-03-11', 52),
      ],
      'visibility_daily',
    );
    await load(wh, [recommendation(full, 'ws_1', 'rec_1')], 'recommendations');
    await recordRuns(wh, [
      syncRun(full, { succeeded: ['ws_1'] }),
      syncRun(visibilityOnly, { succeeded: ['ws_1'], endpoints: ['me', 'brands', 'visibility'] }),
    ]);

    expect(
      await viewRows(wh, 'brands_latest', [
        'brand_id',
        'engine_mode',
        'competitor_count',
        'has_detail',
        'run_id',
      ]),
    ).toEqual([`ws_1|selected|4|true|${full.id}`]);
    // Each day from the newest run that read it; the day only the full run read keeps its row.
    expect(await viewRows(wh, 'visibility_daily_latest', ['date', 'overall_score', 'run_id'])).toEqual([
      `2026-03-09|40|${full.id}`,
      `2026-03-10|51|${visibilityOnly.id}`,
      `2026-03-11|52|${visibilityOnly.id}`,
    ]);
    expect(await viewRows(wh, 'recommendations_latest', ['run_id'])).toEqual([full.id]);
  });
});

describe('visibility_engine_daily_latest', () => {
  it('drops an engine a newer run no longer returned for a day it re-read', async () => {
    const wh = await openWarehouse();
    const [r1, r2] = [run(1), run(2)];
    const engineDay = (r: Run, date: string, engine: string) =>
      rowOf(tableByName('visibility_engine_daily'), r, 'ws_1', { date, engine, score: 1 });
    await load(
      wh,
      [
        engineDay(r1, '2026-03-09', 'chatgpt'),
        engineDay(r1, '2026-03-10', 'chatgpt'),
        engineDay(r1, '2026-03-10', 'gemini'),
        engineDay(r2, '2026-03-10', 'chatgpt'),
      ],
      'visibility_engine_daily',
    );
    await recordRuns(wh, [syncRun(r1, { succeeded: ['ws_1'] }), syncRun(r2, { succeeded: ['ws_1'] })]);

    expect(await viewRows(wh, 'visibility_engine_daily_latest', ['date', 'engine', 'run_id'])).toEqual([
      `2026-03-09|chatgpt|${r1.id}`,
      `2026-03-10|chatgpt|${r2.id}`,
    ]);
  });
});

describe('recommendation_status_changes', () => {
  it('reports a change between recorded runs, and none from a run without a sync_runs row', async () => {
    const [r1, r2, crashed] = [run(1), run(2), run(3)];
    const wh = await warehouseWith(
      {
        recommendations: [
          recommendation(r1, 'ws_1', 'rec_1', 'open'),
          recommendation(r2, 'ws_1', 'rec_1', 'done'),
          recommendation(crashed, 'ws_1', 'rec_1', 'dismissed'),
        ],
      },
      [syncRun(r1, { succeeded: ['ws_1'] }), syncRun(r2, { succeeded: ['ws_1'] })],
    );

    expect(
      await viewRows(wh, 'recommendation_status_changes', [
        'recommendation_id',
        'snapshot_date',
        'previous_status',
        'status',
      ]),
    ).toEqual([`rec_1|${r2.date}|open|done`]);
  });
});
