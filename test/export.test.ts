// `visync export athena|duckdb`: what a data engineer gets from each command (dbt:
// test/export-dbt.test.ts). The DuckDB views
// are proven on real data: a `run --once` against the simulator into a local folder, then the
// generated SQL run in DuckDB must read back every row the run wrote, with the catalogue's types.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { WAREHOUSE_TABLES } from '../src/catalogue/index.js';
import { athenaType } from '../src/export/column-types.js';
import type { Manifest } from '../src/records/manifest.js';
import { manifestKey, parseManifestKey, parseTablePartKey } from '../src/sinks/layout.js';
import { shortened } from '../src/util/text.js';
import { configFile, listFiles, readText, runOnceCli, sim, tempDir, visyncCli } from './helpers/harness.js';

/** Two accounts of one workspace each: what the schema exports need (they read no data). */
const twoAccounts = () =>
  sim({
    accounts: [
      { name: 'acme', workspaces: 1 },
      { name: 'beta', workspaces: 1 },
    ],
    seed: 3,
  });

describe('visync export athena', () => {
  it('writes one CREATE EXTERNAL TABLE per table over the configured S3 sink, partitions projected', async () => {
    const s = await twoAccounts();
    const dir = tempDir();
    const { path } = configFile(s, dir, {
      sinks: { s3: { bucket: 'analytics', prefix: 'visync/prod' } },
    });
    const r = await visyncCli(path, ['export', 'athena']);
    expect(r.code, r.err.join('\n')).toBe(0);
    const ddl = r.out.join('\n');
    const statements = ddl.split('CREATE EXTERNAL TABLE IF NOT EXISTS ').slice(1);
    expect(statements).toHaveLength(WAREHOUSE_TABLES.length);
    expect(ddl).toMatch(/Athena runs ONE statement per query/);
    for (const table of WAREHOUSE_TABLES) {
      const stmt = statements.find((st) => st.startsWith(`\`${table.name}\` (`));
      expect(stmt, table.name).toBeDefined();
      // `account` is the partition column (Hive allows no name twice); every other column is declared.
      for (const c of table.columns.filter((x) => x.name !== 'account'))
        expect(stmt, `${table.name}.${c.name}`).toContain(`  \`${c.name}\` ${athenaType(c)} COMMENT '`);
      expect(stmt).not.toMatch(/^ {2}`account` /m);
      expect(stmt).toContain('PARTITIONED BY (`dt` string, `account` string)');
      expect(stmt).toContain("ROW FORMAT SERDE 'org.openx.data.jsonserde.JsonSerDe'");
      expect(stmt).toContain(`LOCATION 's3://analytics/visync/prod/tables/${table.name}/'`);
      expect(stmt).toContain("'projection.enabled' = 'true'");
      expect(stmt).toContain("'projection.dt.type' = 'date'");
      expect(stmt).toContain("'projection.dt.format' = 'yyyy-MM-dd'");
      expect(stmt).toContain("'projection.account.type' = 'enum'");
      expect(stmt).toContain("'projection.account.values' = 'acme,beta'");
      expect(stmt).toContain(
        `'storage.location.template' = 's3://analytics/visync/prod/tables/${table.name}/dt=\${dt}/account=\${account}/'`,
      );
    }
    // Types as mapped: arrays for REPEATED, timestamps read by the SerDe's formats, JSON as strings.
    expect(ddl).toContain("`keywords` array<string> COMMENT '");
    expect(ddl).toContain("`created_at` timestamp COMMENT '");
    expect(ddl).toContain(
      "WITH SERDEPROPERTIES ('timestamp.formats' = 'yyyy-MM-dd\\'T\\'HH:mm:ss.SSS\\'Z\\'",
    );
    expect(ddl).toContain("`snapshot_date` date COMMENT '");
    expect(ddl).toContain("`payload` string COMMENT '");
    // Quotes in descriptions are escaped, not ending the literal early.
    expect(ddl).toContain("The run\\'s logical date");
    // Glue keeps at most 255 characters of a column comment: longer ones are cut, not rejected.
    const comments = [...ddl.matchAll(/^ {2}`\w+` \S+ COMMENT '((?:[^'\\]|\\.)*)',?$/gm)].map((m) =>
      m[1]!.replace(/\\(.)/g, '$1'),
    );
    expect(comments.length).toBeGreaterThan(100);
    expect(Math.max(...comments.map((c) => c.length))).toBeLessThanOrEqual(255);
    const long = `${'word '.repeat(80)}end`;
    expect(shortened(long, 255)).toMatch(/^(word ){49}word\.\.\.$/);
    expect(shortened('short, as it is', 255)).toBe('short, as it is');
    expect(s.log).toEqual([]);
  });

  it('--location overrides the sink; with neither it says how to give one', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }], seed: 3 });
    const { path } = configFile(s, tempDir());
    const given = await visyncCli(path, ['export', 'athena', '--location', 's3://lake/raw']);
    expect(given.code).toBe(0);
    expect(given.out.join('\n')).toContain("LOCATION 's3://lake/raw/tables/brands/'");
    const none = await visyncCli(path, ['export', 'athena']);
    expect(none.code).toBe(1);
    expect(none.err.join('\n')).toContain('--root s3://bucket/prefix/');
  });
});

/** Rows per table of a run, as its manifest lists them (part files under tables/). */
function manifestRows(m: Manifest): Map<string, number> {
  const rows = new Map<string, number>();
  for (const f of m.files) {
    const part = parseTablePartKey(f.key);
    if (part) rows.set(part.table, (rows.get(part.table) ?? 0) + (f.rows ?? 0));
  }
  return rows;
}

describe('visync export duckdb', () => {
  it('gives views that read back every row a real run wrote, typed as the catalogue says', async () => {
    const s = await sim({
      accounts: [
        { name: 'acme', workspaces: 3 },
        { name: 'beta', workspaces: 2 },
      ],
      seed: 11,
    });
    const dir = tempDir();
    const data = join(dir, 'data');
    const run = await runOnceCli(s, dir, [], { sinks: { fs: { dir: data } } });
    expect(run.code, run.err.join('\n')).toBe(0);
    const manifests = listFiles(data)
      .filter((k) => parseManifestKey(k) !== undefined)
      .map((k) => JSON.parse(readText(data, k)) as Manifest);
    expect(manifests.map((m) => m.account).sort()).toEqual(['acme', 'beta']);
    const expected = new Map<string, number>();
    for (const m of manifests)
      for (const [t, n] of manifestRows(m)) expected.set(t, (expected.get(t) ?? 0) + n);
    expect(expected.size).toBeGreaterThan(5);

    const exported = await visyncCli(join(dir, 'visync.yaml'), ['export', 'duckdb', '--root', data]);
    expect(exported.code, exported.err.join('\n')).toBe(0);
    const sql = exported.out.join('\n');

    const db = await (await DuckDBInstance.create(':memory:')).connect();
    // The script runs whole: a table without files (brand_events on a first night) is an empty view.
    await db.run(sql);
    for (const table of WAREHOUSE_TABLES) {
      const count = await db.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM "${table.name}"`);
      expect(count.getRowObjects()[0]?.n, table.name).toBe(expected.get(table.name) ?? 0);
      const described = await db.runAndReadAll(`DESCRIBE "${table.name}"`);
      expect(described.getRowObjects().map((c) => c.column_name)).toEqual([
        ...table.columns.map((c) => c.name),
        'dt',
        'run',
      ]);
    }
    expect(expected.has('brand_events')).toBe(false);
    expect(sql).toContain('No part files yet (when this was generated) for: brand_events.');

    // Typed columns come back typed: DATE, TIMESTAMPTZ and lists, with the run's values.
    const runOf = new Map(manifests.map((m) => [m.run_id, m]));
    const brands = await db.runAndReadAll(
      'SELECT run_id, typeof(snapshot_date) AS d, snapshot_date::VARCHAR AS day, typeof(extracted_at) AS ts, ' +
        'epoch_ms(extracted_at) AS at_ms, typeof(keywords) AS kw, len(keywords) AS kw_len, ' +
        "json_extract_string(payload, '$.id') = brand_id AS payload_id FROM brands",
    );
    const brandRows = brands.getRowObjectsJson() as Record<string, unknown>[];
    expect(brandRows).toHaveLength(5);
    for (const row of brandRows) {
      const m = runOf.get(row.run_id as string)!;
      expect(row).toMatchObject({
        d: 'DATE',
        ts: 'TIMESTAMP WITH TIME ZONE',
        kw: 'VARCHAR[]',
        payload_id: true,
      });
      expect(row.day).toBe(m.run_date);
      expect(Number(row.at_ms)).toBeGreaterThanOrEqual(Date.parse(m.started_at));
      expect(Number(row.at_ms)).toBeLessThanOrEqual(Date.parse(m.finished_at));
      expect(Number(row.kw_len)).toBeGreaterThan(0);
    }
    // The run history reads too: one sync_runs row per run, its lists and JSON intact.
    const history = await db.runAndReadAll(
      'SELECT run_id, len(workspaces_succeeded) AS ok, typeof(started_at) AS ts, ' +
        "json_extract(table_rows, '$.brands')::INTEGER AS brand_rows FROM sync_runs ORDER BY account",
    );
    expect(history.getRowObjectsJson()).toEqual(
      [...manifests]
        .sort((a, b) => a.account.localeCompare(b.account))
        .map((m) => ({
          run_id: m.run_id,
          ok: String(m.workspaces.length),
          ts: 'TIMESTAMP WITH TIME ZONE',
          brand_rows: m.account === 'acme' ? 3 : 2,
        })),
    );
    const manifest = manifests.find((m) => m.account === 'acme')!;
    expect(listFiles(data)).toContain(manifestKey('acme', manifest.run_id));
  });
});

describe('visync export with per-account sinks', () => {
  it('accounts with their own datasets or prefixes are exported one at a time with --account', async () => {
    const s = await twoAccounts();
    const dir = tempDir();
    const { path } = configFile(s, dir, {
      accounts: {
        acme: { bigquery: { dataset: 'client_acme' }, s3: { prefix: 'clients/acme' } },
        beta: { bigquery: { dataset: 'client_beta' }, s3: { prefix: 'clients/beta' } },
      },
      sinks: {
        s3: { bucket: 'analytics', prefix: 'visync' },
        bigquery: { projectId: 'analytics-prj', dataset: 'visibility' },
      },
    });
    const project = join(dir, 'dbt');
    const ambiguous = await visyncCli(path, ['export', 'dbt', '--out', project]);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.err.join('\n')).toContain(
      'the accounts use 2 different datasets: export one at a time with --account NAME (e.g. acme, beta)',
    );
    const dbt = await visyncCli(path, ['export', 'dbt', '--account', 'beta', '--out', project]);
    expect(dbt.code, dbt.err.join('\n')).toBe(0);
    expect(parse(readFileSync(join(project, 'models', 'sources.yml'), 'utf8')).sources[0]).toMatchObject({
      database: 'analytics-prj',
      schema: 'client_beta',
    });

    const athena = await visyncCli(path, ['export', 'athena', '--account', 'acme']);
    expect(athena.code, athena.err.join('\n')).toBe(0);
    const ddl = athena.out.join('\n');
    expect(ddl).toContain("LOCATION 's3://analytics/clients/acme/tables/");
    expect(ddl).not.toContain('clients/beta');
    expect((await visyncCli(path, ['export', 'athena'])).err.join('\n')).toContain('2 different S3 prefixes');
  });
});
