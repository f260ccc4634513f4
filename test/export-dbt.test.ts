// `visync export dbt` through the CLI: which target it picks, what it prints, what the project
// says (keys, required columns, known values, freshness), and every YAML file checked against
// dbt's own published JSON schemas (test/fixtures/dbt-jsonschema/README.md). That the models and
// tests run: test/export-dbt-duckdb.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { BRAND_EVENTS, EVENT_TYPES, TABLES, WAREHOUSE_TABLES } from '../src/catalogue/index.js';
import { rowKey } from '../src/export/dbt/index.js';
import { createObjectStore } from '../src/sinks/create-store.js';
import { tablePartKey } from '../src/sinks/layout.js';
import { projectFiles } from './helpers/dbt-compile.js';
import { configFile, sim, tempDir, visyncCli } from './helpers/harness.js';
import { startS3rver } from './helpers/s3rver.js';

const SCHEMAS = join(import.meta.dirname, 'fixtures', 'dbt-jsonschema');
const ajv = new Ajv({ strict: false, allErrors: true });
const schema = (file: string) => ajv.compile(JSON.parse(readFileSync(join(SCHEMAS, file), 'utf8')));
const validYml = schema('dbt_yml_files-latest.json');
const validProject = schema('dbt_project-latest.json');

type Test = string | Record<string, Record<string, unknown>>;
interface Column {
  name: string;
  data_type: string;
  data_tests?: Test[];
}
interface Table {
  name: string;
  config?: {
    loaded_at_field?: string;
    external_location?: string;
    freshness?: { warn_after: unknown; error_after: unknown; filter?: string };
  };
  data_tests?: Test[];
  columns: Column[];
}
interface Sources {
  sources: { name: string; database?: string; schema?: string; tables: Table[] }[];
}

const yamlOf = (dir: string, file: string) => parse(readFileSync(join(dir, file), 'utf8'));

async function exportDbt(sinks: Record<string, unknown> | undefined, args: string[] = []) {
  const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }], seed: 3 });
  const dir = tempDir();
  const { path } = configFile(s, dir, sinks ? { sinks } : {});
  const project = join(dir, 'project');
  const r = await visyncCli(path, ['export', 'dbt', '--out', project, ...args]);
  expect(s.log).toEqual([]); // no API call
  return { ...r, project, dir };
}

/** Every YAML file of the project, valid for dbt's schemas; returns them by path. */
function expectValidProject(out: string): string[] {
  const files = projectFiles(out);
  const problems: string[] = [];
  for (const f of files.filter((x) => x.endsWith('.yml'))) {
    if (f === 'profiles.yml') continue; // dbt publishes no schema for a dbt-core profile
    const check = f === 'dbt_project.yml' ? validProject : validYml;
    if (!check(yamlOf(out, f))) problems.push(`${f}: ${ajv.errorsText(check.errors)}`);
  }
  expect(problems).toEqual([]);
  // The schemas do reject: a column property dbt does not know (a misspelt data_type).
  expect(
    validYml({
      version: 2,
      sources: [{ name: 'x', tables: [{ name: 't', columns: [{ name: 'c', datatype: 'X' }] }] }],
    }),
  ).toBe(false);
  return files;
}

const testsOf = (c: Column) =>
  (c.data_tests ?? []).map((t) => (typeof t === 'string' ? t : Object.keys(t)[0]));

describe('visync export dbt', () => {
  it('with only a local folder exits 0 and writes a DuckDB project over the store, and says what to run', async () => {
    const r = await exportDbt(undefined);
    expect(r.code, r.err.join('\n')).toBe(0);
    const printed = r.out.join('\n');
    expect(printed).toContain(`wrote a dbt project for duckdb in ${r.project}`);
    for (const f of [
      'dbt_project.yml',
      'profiles.yml',
      'models/sources.yml',
      'models/staging/stg_brands.sql',
    ])
      expect(printed).toContain(`  ${f}`);
    expect(printed).toContain('pip install dbt-core dbt-duckdb');
    expect(printed).toContain('dbt build --profiles-dir .');

    const files = expectValidProject(r.project);
    for (const t of TABLES) expect(files).toContain(`models/staging/stg_${t.name}.sql`);
    expect(yamlOf(r.project, 'profiles.yml').visync.outputs.prod.type).toBe('duckdb');
    const sources = yamlOf(r.project, 'models/sources.yml') as Sources;
    const source = sources.sources[0]!;
    expect(source.name).toBe('visync');
    expect(source.database).toBeUndefined();
    // A first night has not run yet: no part files, so every table reads as empty with its columns.
    const tableNames = new Set(WAREHOUSE_TABLES.map((t) => t.name));
    for (const t of source.tables.filter((x) => tableNames.has(x.name)))
      expect(t.config?.external_location, t.name).toMatch(/^\(SELECT CAST\(NULL AS /);
    // The views, declared as sources beside the tables, read those empty tables (no part file read).
    for (const t of source.tables.filter((x) => !tableNames.has(x.name)))
      expect(t.config?.external_location, t.name).not.toContain('read_json');
  });

  it('keys with run_id, required columns not null, known values accepted, on sources and staging models', async () => {
    const r = await exportDbt(undefined);
    expect(r.code).toBe(0);
    const source = (yamlOf(r.project, 'models/sources.yml') as Sources).sources[0]!;
    for (const t of WAREHOUSE_TABLES) {
      const entry = source.tables.find((x) => x.name === t.name)!;
      expect(entry.columns.map((c) => c.name)).toEqual(t.columns.map((c) => c.name));
      expect(entry.data_tests).toEqual([{ visync_unique_key: { columns: rowKey(t) } }]);
      expect(rowKey(t)).toContain('run_id');
      for (const c of t.columns) {
        const tests = testsOf(entry.columns.find((x) => x.name === c.name)!);
        expect(tests.includes('not_null'), `${t.name}.${c.name}`).toBe(
          c.mode === 'REQUIRED' || rowKey(t).includes(c.name),
        );
      }
    }
    const events = source.tables.find((x) => x.name === BRAND_EVENTS.name)!;
    expect(events.columns.find((c) => c.name === 'event_type')!.data_tests).toContainEqual({
      accepted_values: { values: [...EVENT_TYPES] },
    });
    const staging = yamlOf(r.project, 'models/staging/_staging.yml') as { models: Table[] };
    for (const t of TABLES) {
      const model = staging.models.find((m) => m.name === `stg_${t.name}`)!;
      const keyTest =
        t.naturalKey.length > 1
          ? model.data_tests
          : testsOf(model.columns.find((c) => c.name === t.naturalKey[0])!);
      expect(keyTest, t.name).toEqual(
        t.naturalKey.length > 1
          ? [{ visync_unique_key: { columns: [...t.naturalKey] } }]
          : ['not_null', 'unique'],
      );
    }
    // The generic test the key tests use is in the project: no package to install.
    expect(readFileSync(join(r.project, 'tests/generic/visync_unique_key.sql'), 'utf8')).toContain(
      '{% test visync_unique_key(model, columns) %}',
    );
  });

  it('with sinks.bigquery defaults to BigQuery; freshness carries the partition filter when the dataset requires one', async () => {
    const bigquery = { projectId: 'analytics-prj', dataset: 'visibility', requirePartitionFilter: true };
    const r = await exportDbt({ fs: { dir: './data' }, bigquery });
    expect(r.code, r.err.join('\n')).toBe(0);
    expect(r.out.join('\n')).toContain('wrote a dbt project for bigquery');
    expectValidProject(r.project);
    const profile = yamlOf(r.project, 'profiles.yml').visync.outputs.prod;
    expect(profile).toMatchObject({ type: 'bigquery', project: 'analytics-prj', dataset: 'visibility_dbt' });
    const source = (yamlOf(r.project, 'models/sources.yml') as Sources).sources[0]!;
    expect(source).toMatchObject({ database: 'analytics-prj', schema: 'visibility' });
    for (const t of WAREHOUSE_TABLES) {
      const entry = source.tables.find((x) => x.name === t.name)!;
      expect(entry.columns.find((c) => c.name === 'run_id')?.data_type).toBe('STRING');
      const freshness = entry.config?.freshness;
      if (t.name === 'brand_events') expect(freshness).toBeUndefined();
      // sync_runs never requires a partition filter (src/warehouse/schema.ts).
      else if (t.name === 'sync_runs') expect(freshness?.filter).toBeUndefined();
      else
        expect(freshness?.filter, t.name).toBe(
          `${t.partitionField} >= DATE_SUB(CURRENT_DATE(), INTERVAL 4 DAY)`,
        );
    }
    const model = readFileSync(join(r.project, 'models/staging/stg_brands.sql'), 'utf8');
    expect(model).toContain("FROM {{ source('visync', 'brands') }} AS t");
    expect(model).toContain('IN UNNEST(');

    // Without requirePartitionFilter: no filter.
    const plain = await exportDbt({
      fs: { dir: './data' },
      bigquery: { ...bigquery, requirePartitionFilter: false },
    });
    const plainSource = (yamlOf(plain.project, 'models/sources.yml') as Sources).sources[0]!;
    expect(plainSource.tables.map((t) => t.config?.freshness?.filter).filter(Boolean)).toEqual([]);
  });

  it('--target duckdb with BigQuery configured, --target athena, and --target bigquery without it', async () => {
    const bigquery = { projectId: 'analytics-prj', dataset: 'visibility' };
    const duck = await exportDbt({ fs: { dir: './data' }, bigquery }, ['--target', 'duckdb']);
    expect(duck.code).toBe(0);
    expect(duck.out.join('\n')).toContain('for duckdb');

    const athena = await exportDbt({ s3: { bucket: 'lake', prefix: 'visync', region: 'eu-west-1' } }, [
      '--target',
      'athena',
      '--database',
      'visync_raw',
    ]);
    expect(athena.code, athena.err.join('\n')).toBe(0);
    expectValidProject(athena.project);
    expect(yamlOf(athena.project, 'profiles.yml').visync.outputs.prod).toMatchObject({
      type: 'athena',
      region_name: 'eu-west-1',
    });
    const source = (yamlOf(athena.project, 'models/sources.yml') as Sources).sources[0]!;
    expect(source).toMatchObject({ database: 'awsdatacatalog', schema: 'visync_raw' });
    const brands = source.tables.find((t) => t.name === 'brands')!;
    expect(brands.config?.freshness?.filter).toBe(
      "dt >= date_format(current_date - interval '4' day, '%Y-%m-%d')",
    );
    // Athena reads extracted_at as a timestamp (src/export/column-types.ts): no conversion needed.
    expect(brands.config?.loaded_at_field).toBe('extracted_at');
    expect(readFileSync(join(athena.project, 'models/staging/stg_brands.sql'), 'utf8')).toContain(
      "{{ source('visync', 'brands') }}",
    );

    const missing = await exportDbt(undefined, ['--target', 'bigquery']);
    expect(missing.code).toBe(1);
    expect(missing.err.join('\n')).toContain('no sinks.bigquery in the config');
    const wrong = await exportDbt(undefined, ['--target', 'snowflake']);
    expect(wrong.code).not.toBe(0);
    expect(wrong.err.join('\n')).toContain('bigquery, duckdb, athena');
  });

  it('DuckDB over S3: with --list the configured prefix is listed, a table without files reads as empty; httpfs in the profile', async () => {
    const s3rver = await startS3rver({ buckets: ['lake'] });
    const s3 = {
      bucket: 'lake',
      prefix: 'visync/',
      region: 'eu-west-1',
      endpoint: s3rver.endpoint,
      forcePathStyle: true,
    };
    const store = await createObjectStore({ s3: { ...s3, requestTimeoutSeconds: 10, maxAttempts: 1 } });
    try {
      const key = tablePartKey({
        table: 'brands',
        partitionDate: '2026-11-20',
        account: 'acme',
        runId: 'r1',
        part: 0,
      });
      await store.put(key, gzipSync('{}\n'), {
        contentType: 'application/x-ndjson',
        contentEncoding: 'gzip',
      });
      const listed = await exportDbt({ s3 }, ['--list']);
      expect(listed.code, listed.err.join('\n')).toBe(0);
      const tables = (yamlOf(listed.project, 'models/sources.yml') as Sources).sources[0]!.tables;
      const at = (name: string) => tables.find((t) => t.name === name)!.config!.external_location!;
      expect(at('brands')).toMatch(/^read_json\('s3:\/\/lake\/visync\/tables\/brands\/dt=\*/);
      expect(at('brand_events')).toMatch(/^\(SELECT CAST\(NULL AS /);
      const prod = yamlOf(listed.project, 'profiles.yml').visync.outputs.prod;
      expect(prod).toMatchObject({
        extensions: ['httpfs'],
        secrets: [{ type: 's3', provider: 'credential_chain', region: 'eu-west-1' }],
      });

      // Without --list the S3 client is not loaded: every table is read.
      const unlisted = await exportDbt({ s3 });
      const all = (yamlOf(unlisted.project, 'models/sources.yml') as Sources).sources[0]!.tables;
      expect(all.find((t) => t.name === 'brand_events')!.config!.external_location).toMatch(/^read_json\(/);
    } finally {
      (store as { close?: () => void }).close?.();
      await s3rver.close();
    }
  });
});
