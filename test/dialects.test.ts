// One definition of the current state and the changes, rendered per engine (src/catalogue/dialect.ts).
// Real runs of the simulator into a local folder, then the script of `visync export duckdb` run whole
// in DuckDB: every current-state and change view must give, row for row, what the BigQuery views
// give (their BigQuery text run on DuckDB through test/helpers/duckdb.ts, the oracle), after two runs
// on one day, on a first night with tables that have no files, and after a workspace was removed;
// so must the Athena (Trino) rendering, run on DuckDB with only its functions mapped.
import { join, relative } from 'node:path';
import { DuckDBInstance, type Json } from '@duckdb/node-api';
import { afterEach, describe, expect, it } from 'vitest';
import {
  currentStateViews,
  DIALECTS,
  grainColumns,
  tableByName,
  VIEWS,
  WAREHOUSE_TABLES,
} from '../src/catalogue/index.js';
import type { DataChange } from '../src/simulator/changes.js';
import { openWarehouse } from './helpers/duckdb.js';
import { listFiles, runOnceCli, sim, tempDir, visyncCli } from './helpers/harness.js';

const closing: (() => void)[] = [];
afterEach(() => {
  while (closing.length) closing.pop()?.();
});

type Rows = Record<string, Json>[];

/** The export script of `dir`'s store, run whole in a fresh DuckDB: a query function over it. */
async function exported(
  dir: string,
  root = dir,
): Promise<{ sql: string; query: (q: string) => Promise<Rows> }> {
  const r = await visyncCli(join(dir, 'visync.yaml'), ['export', 'duckdb', '--root', root]);
  expect(r.code, r.err.join('\n')).toBe(0);
  const sql = r.out.join('\n');
  const instance = await DuckDBInstance.create(':memory:');
  const db = await instance.connect();
  closing.push(() => {
    db.closeSync();
    instance.closeSync();
  });
  await db.run("SET TimeZone = 'UTC'");
  // The whole script in one go: a statement that fails stops it, as in the DuckDB CLI.
  await db.run(sql);
  return { sql, query: async (q) => (await db.runAndReadAll(q)).getRowObjectsJson() };
}

/** Columns compared: a `_latest` view's are its table's (the DuckDB one adds `dt` and `run`). */
async function columnsOf(view: string, oracle: (q: string) => Promise<Rows>): Promise<string[]> {
  if (view.endsWith('_latest'))
    return tableByName(view.slice(0, -'_latest'.length)).columns.map((c) => c.name);
  return (await oracle(`DESCRIBE visibility."${view}"`)).map((c) => String(c.column_name));
}

const sorted = (rows: Rows) => rows.map((r) => JSON.stringify(r)).sort();

/**
 * The Athena (Trino) rendering run on DuckDB: only the functions are mapped (Trino's array and JSON
 * functions to DuckDB's); QUALIFY's rewrite as a subquery, the part most likely to go wrong, runs as written.
 */
function trinoOnDuckDb(sql: string): string {
  return sql
    .replace(/\bcontains\(/g, 'list_contains(')
    .replace(/\bcardinality\(/g, 'len(')
    .replace(/CAST\(json_parse\(([\w.]+)\) AS ARRAY\(JSON\)\)/g, 'CAST(CAST($1 AS JSON) AS JSON[])')
    .replace(/\bjson_extract_scalar\(/g, 'json_extract_string(');
}

/** Every view, DuckDB rendering against the BigQuery rendering (oracle); the rows of each by name. */
async function compareAll(dir: string): Promise<{ rows: Map<string, Rows>; sql: string }> {
  const duck = await exported(dir);
  const wh = await openWarehouse();
  await wh.loadTableParts(dir);
  const rows = new Map<string, Rows>();
  for (const v of VIEWS) {
    const cols = (await columnsOf(v.name, wh.query)).map((c) => `"${c}"`).join(', ');
    const mine = await duck.query(`SELECT ${cols} FROM "${v.name}"`);
    const oracle = await wh.query(`SELECT ${cols} FROM visibility."${v.name}"`);
    expect(sorted(mine), v.name).toEqual(sorted(oracle));
    const athena = currentStateViews('athena', (t) => `"${t}"`).find((a) => a.name === v.name)!;
    const trino = await duck.query(`SELECT ${cols} FROM (${trinoOnDuckDb(athena.sql)})`);
    expect(sorted(trino), `${v.name} (Athena)`).toEqual(sorted(oracle));
    rows.set(v.name, mine);
  }
  return { rows, sql: duck.sql };
}

const key = (r: Record<string, Json>, ...cols: string[]) => cols.map((c) => String(r[c])).join('|');

describe('current-state views rendered for DuckDB, over the store of real runs', () => {
  it('two runs on one day: one row per listed workspace and per workspace and day, the night’s changes', async () => {
    const spec = { accounts: [{ name: 'acme', workspaces: 3 }], seed: 21, today: '2026-03-10' };
    const first = await sim(spec);
    const ids = first.accounts[0]!.workspaceIds;
    const changes: DataChange[] = [
      { kind: 'engine-drop', account: 'acme', workspace: 0, points: 20 },
      { kind: 'false-claim', account: 'acme', workspace: 1, claim: 'Founded on the moon.' },
      { kind: 'competitor-win', account: 'acme', workspace: 0, competitor: 'Rivalco' },
      { kind: 'unlist-recommendation', account: 'acme', workspace: 2 },
    ];
    const second = await sim({ ...spec, changes });
    const dir = tempDir();
    expect((await runOnceCli(first, dir, [])).code).toBe(0);
    expect((await runOnceCli(second, dir, [])).code).toBe(0);

    const { rows } = await compareAll(dir);
    const brands = rows.get('brands_latest')!;
    expect(brands.map((r) => r.brand_id).sort()).toEqual([...ids].sort());
    const daily = rows.get('visibility_daily_latest')!;
    expect(daily.length).toBeGreaterThan(ids.length);
    expect(new Set(daily.map((r) => key(r, 'account', 'brand_id', 'date'))).size).toBe(daily.length);

    // The changes of the second run against the first, nothing older.
    const secondRun = brands[0]!.run_id;
    const engine = rows.get('engine_score_changes')!;
    expect(engine.length).toBeGreaterThan(0);
    expect(engine.every((r) => r.run_id === secondRun && r.brand_id === ids[0])).toBe(true);
    expect(engine.some((r) => Number(r.score_delta) <= -20)).toBe(true);
    const flags = rows.get('reputation_flag_changes')!;
    expect(flags.some((r) => r.brand_id === ids[1] && r.change === 'new')).toBe(true);
    const losses = rows.get('buyer_intent_loss_changes')!;
    expect(
      losses.some((r) => r.brand_id === ids[0] && r.competitor === 'Rivalco' && r.change === 'new'),
    ).toBe(true);
    // Per snapshot day: two runs of one day are one snapshot, no status change.
    expect(rows.get('recommendation_status_changes')).toEqual([]);

    // docs/tables.md's grains hold: each table unique on its grain (run_id included), each `_latest`
    // view on its natural key, while without run_id two runs of one day repeat every key.
    const duck = await exported(dir);
    const duplicates = async (from: string, cols: readonly string[]) => {
      const list = cols.map((c) => `"${c}"`).join(', ');
      const r = await duck.query(
        `SELECT count(*)::INTEGER AS n FROM (SELECT ${list} FROM "${from}" GROUP BY ALL HAVING count(*) > 1)`,
      );
      return r[0]?.n;
    };
    for (const t of WAREHOUSE_TABLES) {
      expect(await duplicates(t.name, grainColumns(t)), `${t.name} grain`).toBe(0);
      if (VIEWS.some((v) => v.name === `${t.name}_latest`))
        expect(await duplicates(`${t.name}_latest`, t.naturalKey), `${t.name}_latest`).toBe(0);
    }
    const withoutRun = grainColumns(tableByName('visibility_daily')).filter((c) => c !== 'run_id');
    expect(await duplicates('visibility_daily', withoutRun)).toBeGreaterThan(0);
  });

  it('a first night with tables that have no files: the script runs whole, empty typed views', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }], seed: 4, today: '2026-03-10' });
    const dir = tempDir();
    // The first night has nothing to compare with: no brand_events file.
    expect((await runOnceCli(s, dir, [])).code).toBe(0);
    const tables = new Set(listFiles(dir).flatMap((k) => /^tables\/([^/]+)\//.exec(k)?.[1] ?? []));
    expect(tables.has('brand_events')).toBe(false);
    expect(tables.has('sync_runs')).toBe(true);

    const { rows, sql } = await compareAll(dir);
    expect(sql).toMatch(/No part files yet \(when this was generated\) for: brand_events\./);
    expect(
      rows
        .get('brands_latest')!
        .map((r) => r.brand_id)
        .sort(),
    ).toEqual([...s.accounts[0]!.workspaceIds].sort());
    const daily = rows.get('visibility_daily_latest')!;
    expect(daily.length).toBeGreaterThan(0);
    expect(new Set(daily.map((r) => key(r, 'brand_id', 'date'))).size).toBe(daily.length);
    expect(rows.get('recommendations_latest')!.length).toBeGreaterThan(0);
    // One run: nothing changed yet.
    expect(rows.get('prompt_changes')).toEqual([]);

    // The empty view keeps its types, as a view over files would have them.
    const duck = await exported(dir);
    expect(await duck.query('SELECT * FROM brand_events')).toEqual([]);
    const wh = await openWarehouse();
    const types = (rows: Rows) => rows.map((c) => `${c.column_name} ${c.column_type}`);
    expect(types(await duck.query('DESCRIBE brand_events'))).toEqual([
      ...types(await wh.query('DESCRIBE visibility.brand_events')),
      'dt DATE',
      'run VARCHAR',
    ]);
  });

  it('a run after a workspace was removed: it leaves the _latest views, its history stays', async () => {
    const spec = { accounts: [{ name: 'acme', workspaces: 3 }], seed: 8, today: '2026-03-10' };
    const before = await sim(spec);
    const ids = before.accounts[0]!.workspaceIds;
    const after = await sim({
      ...spec,
      changes: [{ kind: 'remove-workspace', account: 'acme', workspace: 1 }],
    });
    const dir = tempDir();
    expect((await runOnceCli(before, dir, [])).code).toBe(0);
    expect((await runOnceCli(after, dir, [])).code).toBe(0);

    const { rows } = await compareAll(dir);
    const kept = ids.filter((_, i) => i !== 1).sort();
    for (const view of [
      'brands_latest',
      'recommendations_latest',
      'visibility_daily_latest',
      'prompts_latest',
    ])
      expect([...new Set(rows.get(view)!.map((r) => r.brand_id))].sort(), view).toEqual(kept);
    const duck = await exported(dir);
    const history = await duck.query(
      `SELECT count(*)::INTEGER AS n FROM brands WHERE brand_id = '${ids[1]}'`,
    );
    expect(history[0]?.n).toBe(1);
  });

  it('a relative --root stays relative, and a filter on dt or run is a column of every table view', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }], seed: 2, today: '2026-03-10' });
    const dir = tempDir();
    expect((await runOnceCli(s, dir, [], { sinks: { fs: { dir: join(dir, 'out') } } })).code).toBe(0);
    // Relative to where visync and DuckDB run (this process).
    const root = relative(process.cwd(), join(dir, 'out'));
    const r = await visyncCli(join(dir, 'visync.yaml'), ['export', 'duckdb', '--root', root]);
    expect(r.code).toBe(0);
    const sql = r.out.join('\n');
    expect(root.startsWith('/')).toBe(false);
    expect(sql).toContain(`'${root}/tables/brands/dt=*/account=*/run=*/part-*.ndjson.gz'`);
    const instance = await DuckDBInstance.create(':memory:');
    const db = await instance.connect();
    closing.push(() => {
      db.closeSync();
      instance.closeSync();
    });
    await db.run(sql);
    const cols = (await db.runAndReadAll('DESCRIBE visibility_daily')).getRowObjectsJson();
    expect(cols.map((c) => c.column_name)).toEqual(expect.arrayContaining(['dt', 'run', 'date']));
    const runs = (
      await db.runAndReadAll('SELECT DISTINCT run, run_id, dt FROM sync_runs')
    ).getRowObjectsJson();
    expect(runs).toHaveLength(1);
    expect(runs[0]!.run).toBe(runs[0]!.run_id);
    const none = await db.runAndReadAll(
      "SELECT count(*)::INTEGER AS n FROM visibility_daily WHERE dt = DATE '2001-01-01'",
    );
    expect(none.getRowObjectsJson()[0]?.n).toBe(0);
  });
});

describe('currentStateViews', () => {
  it('renders every view in every dialect from the one definition, the BigQuery text as the sink creates it', () => {
    const ref = (t: string) => `\`analytics-prj.visibility.${t}\``;
    const bq = currentStateViews('bigquery', ref);
    expect(bq.map((v) => v.name)).toEqual(VIEWS.map((v) => v.name));
    for (const v of VIEWS)
      expect(bq.find((b) => b.name === v.name)?.sql).toBe(v.sql('analytics-prj.visibility'));
    for (const dialect of DIALECTS) {
      const dbt = currentStateViews(dialect, (t) => `{{ source('visync', '${t}') }}`);
      for (const v of dbt) {
        expect(v.sql, `${dialect} ${v.name}`).toMatch(/^WITH |^SELECT /);
        expect(v.sql).toContain("{{ source('visync', '");
        expect(v.sql).not.toMatch(/CREATE /);
      }
    }
    const athena = currentStateViews('athena', (t) => `"${t}"`);
    for (const v of athena) {
      expect(v.sql, v.name).not.toMatch(/\bQUALIFY\b|\bIN UNNEST\b|`|\bIS (NOT )?TRUE\b|JSON_VALUE/);
    }
  });
});
