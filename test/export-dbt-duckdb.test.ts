// `visync export dbt` with only a local folder, run as dbt-duckdb would run it (dbt cannot be
// installed here: test/helpers/dbt-compile.ts compiles the project as dbt does): every staging
// model built in real DuckDB over the store real runs wrote, and every data test passing, on the
// demo's data (`npm run demo`, two workspaces) and on two runs of one day.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TABLES, WAREHOUSE_TABLES } from '../src/catalogue/index.js';
import { rowKey } from '../src/export/dbt/index.js';
import { utcDate } from '../src/util/time.js';
import { builtVisync, NODE22 } from './helpers/built-bin.js';
import { startProcess } from './helpers/cli-process.js';
import { dbtBuild, loadDbtProject } from './helpers/dbt-compile.js';
import { duckdbIn } from './helpers/duckdb.js';
import * as h from './helpers/harness.js';
import { syncNight } from './helpers/nights.js';

const ROOT = join(import.meta.dirname, '..');
async function exportProject(config: string, args: string[]) {
  const r = await h.visyncCli(config, ['export', 'dbt', ...args]);
  expect(r.code, r.err.join('\n')).toBe(0);
  return r;
}

/** Every table's key is tested on its source (with run_id) and on its staging model (its current state). */
function expectKeyTests(names: string[], ran: number): void {
  expect(ran).toBe(names.length);
  const keyTest = (owner: string, key: readonly string[]) =>
    key.length > 1 ? `${owner}: visync_unique_key(${key.join(', ')})` : `${owner}.${key[0]}: unique`;
  for (const t of WAREHOUSE_TABLES) expect(names).toContain(keyTest(`source visync.${t.name}`, rowKey(t)));
  for (const t of TABLES) expect(names).toContain(keyTest(`model stg_${t.name}`, t.naturalKey));
  for (const t of WAREHOUSE_TABLES)
    for (const col of t.columns.filter((x) => x.mode === 'REQUIRED'))
      expect(names).toContain(`source visync.${t.name}.${col.name}: not_null`);
}

/** Builds every model and runs every data test in DuckDB; all pass, the key tests among them. */
async function buildPasses(out: string, project: ReturnType<typeof loadDbtProject>) {
  const c = await duckdbIn(out);
  const { failures, ran } = await dbtBuild(c, project);
  expect(failures).toEqual([]);
  expectKeyTests(
    project.tests.map((t) => t.name),
    ran,
  );
  return c;
}

const count = async (c: Awaited<ReturnType<typeof duckdbIn>>, sql: string) =>
  Number((await c.runAndReadAll(sql)).getRows()[0]![0]);

describe('visync export dbt on DuckDB over the object store', () => {
  it('a first night, then two runs of one day: every model builds, every data test passes, each staging model has one row per key', async () => {
    const dir = h.tempDir();
    const night = utcDate(new Date());
    const spec = { accounts: [{ name: 'acme', workspaces: 2 }], seed: 5 };
    const first = await syncNight(dir, spec, night);
    expect(first.status).toBe('succeeded');
    // The first night: brand_events has no files yet (nothing to compare with); it reads as empty.
    const firstOut = join(dir, 'first-night');
    await exportProject(first.config, ['--out', firstOut]);
    const firstProject = loadDbtProject(firstOut);
    expect(firstProject.sources.get('visync.brand_events')!.config!.external_location).toMatch(
      /^\(SELECT CAST\(NULL AS /,
    );
    const firstBuild = await dbtBuild(await duckdbIn(firstOut), firstProject);
    expect(firstBuild.failures).toEqual([]);
    expectKeyTests(
      firstProject.tests.map((t) => t.name),
      firstBuild.ran,
    );

    const second = await syncNight(dir, spec, night);
    expect(second.status).toBe('succeeded');

    // A relative store root stays relative: from the project folder, where dbt runs.
    const out = join(dir, 'project');
    const r = await exportProject(second.config, ['--out', out, '--root', relative(process.cwd(), dir)]);
    expect(r.out.join('\n')).toContain('wrote a dbt project for duckdb');
    const project = loadDbtProject(out);
    const brands = project.sources.get('visync.brands')!.config!.external_location!;
    expect(brands).toContain("read_json('../tables/brands/dt=*/account=*/run=*/part-*.ndjson.gz'");

    const c = await buildPasses(out, project);

    // Two snapshots of the day in the base table, one current state in the staging model.
    const src = (t: string) => project.sources.get(`visync.${t}`)!.config!.external_location!;
    const keys = TABLES.find((t) => t.name === 'visibility_daily')!.naturalKey.join(', ');
    const distinct = await count(
      c,
      `select count(*) from (select distinct ${keys} from ${src('visibility_daily')})`,
    );
    expect(await count(c, `select count(*) from ${src('visibility_daily')}`)).toBe(2 * distinct);
    expect(await count(c, 'select count(*) from stg_visibility_daily')).toBe(distinct);
    expect(await count(c, 'select count(*) from stg_brands')).toBe(2);
    expect(await count(c, `select count(distinct run_id) from stg_brands`)).toBe(1);
    // The unique test as docs/tables.md once named the key (without run_id) fails on this data:
    // the tests above could fail, and run_id belongs to the key.
    const withoutRun = project.tests.find((t) =>
      t.name.startsWith('source visync.visibility_daily: visync_unique_key'),
    )!;
    expect(withoutRun.sql).toContain('run_id');
    const dup = await c.runAndReadAll(withoutRun.sql.replace(/, run_id/g, ''));
    expect(dup.getRows().length).toBe(distinct);

    // Freshness reads only the recent dt partitions and finds tonight's rows.
    for (const f of project.freshness) {
      if (f.table === 'brand_events') continue;
      expect(f.sql, f.table).toContain('where dt >= current_date - ');
      const newest = (await c.runAndReadAll(f.sql)).getRowObjectsJson()[0]!.max_loaded_at;
      expect(newest, f.table).not.toBeNull();
    }
  }, 180_000);

  it('through the built bin, with only a relative local folder: exit 0, ./visync_dbt written, the root relative to it', async () => {
    const dir = h.tempDir();
    const night = utcDate(new Date());
    mkdirSync(join(dir, 'data'));
    const synced = await syncNight(
      join(dir, 'data'),
      { accounts: [{ name: 'acme', workspaces: 1 }], seed: 5 },
      night,
    );
    expect(synced.status).toBe('succeeded');
    const built = builtVisync();
    writeFileSync(
      join(dir, 'visync.yaml'),
      [
        'accounts:',
        '  - name: acme',
        '    apiKey: ${ACME_KEY}',
        '    baseUrl: https://api.example/api/v1',
        'sinks:',
        '  fs: { dir: ./data }',
        '',
      ].join('\n'),
    );
    const r = await startProcess(NODE22, [built.bin, '--config', 'visync.yaml', 'export', 'dbt'], {
      cwd: dir,
      env: { ACME_KEY: 'test-key-1234' },
    }).exited;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('wrote a dbt project for duckdb in visync_dbt');
    expect(r.stdout).toContain('dbt build --profiles-dir .');
    const project = loadDbtProject(join(dir, 'visync_dbt'));
    expect(project.sources.get('visync.brands')!.config!.external_location).toMatch(
      /^read_json\('\.\.\/data\/tables\/brands\/dt=\*/,
    );
    const { failures } = await dbtBuild(await duckdbIn(join(dir, 'visync_dbt')), project);
    expect(failures).toEqual([]);
  }, 90_000);

  it("the demo's data (two nights, `npm run demo` with two workspaces): every model builds, every data test passes", async () => {
    const dir = h.tempDir();
    const demo = startProcess(process.execPath, ['--import', 'tsx', 'scripts/demo.ts'], {
      cwd: ROOT,
      env: { DEMO_WORKSPACES: '2', DEMO_DATA_DIR: dir },
      guardMs: 90_000,
    });
    const { code, stderr } = await demo.exited;
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const out = join(dir, 'dbt');
    await exportProject(join(dir, '.demo', 'visync.yaml'), ['--out', out]);
    const project = loadDbtProject(out);
    // The demo's folder is absolute in its config: so it is in the project.
    expect(project.sources.get('visync.brands')!.config!.external_location).toContain(
      `read_json('${dir}/tables/`,
    );
    const c = await buildPasses(out, project);
    expect(await count(c, 'select count(*) from stg_brands')).toBe(2);
    // The views are sources too, as 0.1.0 declared them: `source('visync', 'visibility_daily_latest')`
    // reads what the staging model reads, and a change view's source runs.
    const viewSource = (name: string) =>
      project.sources.get(`visync.${name}`)!.config!.external_location!.replaceAll('%%', '%');
    const latest = viewSource('visibility_daily_latest');
    expect(await count(c, `select count(*) from ${latest}`)).toBe(
      await count(c, 'select count(*) from stg_visibility_daily'),
    );
    expect(
      await count(
        c,
        `select count(*) from (select * from ${latest} except select * from stg_visibility_daily)`,
      ),
    ).toBe(0);
    await count(c, `select count(*) from ${viewSource('recommendation_status_changes')}`);
    for (const t of WAREHOUSE_TABLES)
      expect(project.sources.get(`visync.${t.name}`)?.config?.external_location, t.name).toMatch(
        /^read_json\(|^\(SELECT/,
      );
  }, 120_000);
});
