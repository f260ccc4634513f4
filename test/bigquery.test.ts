// The warehouse stage against the fake BigQuery server, through the real client: dataset, tables
// and views on first use, one deterministic load job per table per run, and what happens when a
// load is retried, fails, or brings a new column.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ColumnDef, TableDef, ViewDef } from '../src/catalogue/types.js';
import {
  createBigQuery,
  ensureTables,
  ensureViews,
  loadJobId,
  tableMetadata,
  Warehouse,
} from '../src/warehouse/index.js';
import { type FakeBigQuery, startFakeBigQuery } from './fakes/bigquery-server.js';

const PROJECT = 'test-project';
const DATASET = 'visibility';
const RUN = '20250615T020000Z-sync-abc123';

const col = (name: string, type: ColumnDef['type'], mode: ColumnDef['mode'] = 'NULLABLE'): ColumnDef => ({
  name,
  type,
  mode,
  description: `the ${name}`,
});

const COMMON = [
  col('account', 'STRING', 'REQUIRED'),
  col('brand_id', 'STRING', 'REQUIRED'),
  col('run_id', 'STRING', 'REQUIRED'),
  col('extracted_at', 'TIMESTAMP', 'REQUIRED'),
];

/** A table of one row per brand and `day` (a DATE column it is partitioned by). */
function brandTable(
  name: string,
  description: string,
  sources: TableDef['sources'],
  day: TableDef['partitionField'],
  columns: ColumnDef[],
): TableDef {
  return {
    name,
    description,
    grain: `brand_id, ${day}`,
    sources,
    columns: [...COMMON, col(day, 'DATE', 'REQUIRED'), ...columns],
    naturalKey: ['account', 'brand_id', day],
    partitionField: day,
    clustering: ['account', 'brand_id'],
  };
}

const BRANDS = brandTable('brands', 'One row per brand and snapshot', ['brands', 'brand'], 'snapshot_date', [
  col('name', 'STRING'),
  col('score', 'FLOAT64'),
  col('engines', 'STRING', 'REPEATED'),
  col('payload', 'JSON'),
]);

const VISIBILITY = brandTable('visibility_daily', 'One row per brand and day', ['visibility'], 'date', [
  col('mentions', 'INT64'),
  col('payload', 'JSON'),
]);

const LATEST: ViewDef = {
  name: 'brands_latest',
  description: 'Newest row per brand',
  render: (s) =>
    `SELECT * FROM ${s.table('brands')} QUALIFY ROW_NUMBER() OVER (PARTITION BY account, brand_id ORDER BY run_id DESC) = 1`,
  sql: (ds) =>
    `SELECT * FROM \`${ds}.brands\` QUALIFY ROW_NUMBER() OVER (PARTITION BY account, brand_id ORDER BY run_id DESC) = 1`,
  references: [{ table: 'brands', columns: ['account', 'brand_id', 'run_id'] }],
};

let fake: FakeBigQuery;
let dir: string;
const config = () => ({ projectId: PROJECT, dataset: DATASET, location: 'EU', apiEndpoint: fake.url });
const warehouse = (dataset = DATASET) =>
  new Warehouse({ ...config(), dataset }, { load: { pollIntervalMs: 5, retryDelayMs: 5 } });

beforeEach(async () => {
  fake = await startFakeBigQuery();
  dir = mkdtempSync(join(tmpdir(), 'visync-bq-'));
});
afterEach(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

let files = 0;
function gzFile(rows: Record<string, unknown>[]): string {
  const file = join(dir, `part-${files++}.ndjson.gz`);
  writeFileSync(file, gzipSync(rows.map((r) => JSON.stringify(r) + '\n').join('')));
  return file;
}

const brandRow = (brand: string, extra: Record<string, unknown> = {}) => ({
  account: 'acme',
  brand_id: brand,
  run_id: RUN,
  extracted_at: '2025-06-15T02:00:05.000Z',
  snapshot_date: '2025-06-15',
  name: `Brand ${brand}`,
  score: 71.5,
  engines: ['chatgpt', 'gemini'],
  payload: { id: brand, unknown_field: [1, 2] },
  ...extra,
});

const visRow = (brand: string, date: string) => ({
  account: 'acme',
  brand_id: brand,
  run_id: RUN,
  extracted_at: '2025-06-15T02:00:05.000Z',
  date,
  mentions: 12,
  payload: { date },
});

const tableRows = async (table: string) => {
  // A fresh Table object: the client caches a table's schema after the first read.
  const bq = createBigQuery(config());
  const [rows] = await bq.dataset(DATASET).table(table).getRows();
  return rows;
};

describe('prepare', () => {
  it('creates the dataset, partitioned and clustered tables with their schemas, and views with their SQL', async () => {
    const result = await warehouse().prepare([BRANDS, VISIBILITY], [LATEST]);
    expect(result).toEqual({
      dataset: 'created',
      tables: [
        { name: 'brands', action: 'created' },
        { name: 'visibility_daily', action: 'created' },
      ],
      views: [{ name: 'brands_latest', action: 'created' }],
    });
    expect(fake.datasets.get(`${PROJECT}:${DATASET}`)?.location).toBe('EU');

    const brands = fake.table(PROJECT, DATASET, 'brands')!;
    expect(brands.schema.map((f) => [f.name, f.type, f.mode])).toEqual([
      ['account', 'STRING', 'REQUIRED'],
      ['brand_id', 'STRING', 'REQUIRED'],
      ['run_id', 'STRING', 'REQUIRED'],
      ['extracted_at', 'TIMESTAMP', 'REQUIRED'],
      ['snapshot_date', 'DATE', 'REQUIRED'],
      ['name', 'STRING', 'NULLABLE'],
      ['score', 'FLOAT', 'NULLABLE'],
      ['engines', 'STRING', 'REPEATED'],
      ['payload', 'JSON', 'NULLABLE'],
    ]);
    expect(brands.schema[0]?.description).toBe('the account');
    expect(brands.description).toBe('One row per brand and snapshot');
    expect(brands.timePartitioning).toEqual({ type: 'DAY', field: 'snapshot_date' });
    expect(brands.clustering).toEqual({ fields: ['account', 'brand_id'] });
    expect(fake.table(PROJECT, DATASET, 'visibility_daily')?.timePartitioning).toEqual({
      type: 'DAY',
      field: 'date',
    });

    const view = fake.table(PROJECT, DATASET, 'brands_latest')!;
    expect(view.type).toBe('VIEW');
    expect(view.view).toEqual({ query: LATEST.sql(`${PROJECT}.${DATASET}`), useLegacySql: false });
    expect(view.view?.query).toContain('`test-project.visibility.brands`');
  });

  it('runs once per process and catalogue, and leaves existing objects alone', async () => {
    await warehouse().prepare([BRANDS], [LATEST]);
    const calls = fake.requests.length;
    await warehouse().prepare([BRANDS], [LATEST]);
    expect(fake.requests.length).toBe(calls);

    const bq = createBigQuery(config());
    expect(await ensureTables(bq, DATASET, [BRANDS])).toEqual([{ name: 'brands', action: 'exists' }]);
    expect(await ensureViews(bq, DATASET, [LATEST])).toEqual([{ name: 'brands_latest', action: 'exists' }]);
    expect(fake.requests.slice(calls).every((r) => r.method === 'GET')).toBe(true);
  });

  it('updates a view whose SQL changed', async () => {
    await warehouse().prepare([BRANDS], [LATEST]);
    const changed: ViewDef = { ...LATEST, sql: (ds) => `SELECT account, brand_id FROM \`${ds}.brands\`` };
    const bq = createBigQuery(config());
    expect(await ensureViews(bq, DATASET, [changed])).toEqual([{ name: 'brands_latest', action: 'updated' }]);
    expect(fake.table(PROJECT, DATASET, 'brands_latest')?.view?.query).toBe(
      'SELECT account, brand_id FROM `test-project.visibility.brands`',
    );
  });

  it('tolerates another worker creating the same table in between (409)', async () => {
    await warehouse().prepare([], []);
    const other = createBigQuery(config());
    // The other worker creates the table after our get answered 404 and before our insert lands.
    fake.onRequest = async ({ method, path }) => {
      if (method === 'POST' && path.endsWith(`/datasets/${DATASET}/tables`)) {
        fake.onRequest = undefined;
        await other.dataset(DATASET).createTable('brands', tableMetadata(BRANDS));
      }
    };
    const result = await ensureTables(createBigQuery(config()), DATASET, [BRANDS]);
    expect(result).toEqual([{ name: 'brands', action: 'exists' }]);
    expect(fake.requests.filter((r) => r.path.endsWith('/tables')).map((r) => r.status)).toEqual([409, 200]); // in arrival order: ours, then the other worker's
  });

  it('refuses a dataset that lives in another location', async () => {
    await warehouse().prepare([], []);
    const us = new Warehouse({ ...config(), location: 'US' });
    await expect(us.prepare([BRANDS], [])).rejects.toThrow(
      /is in location EU, but sinks.bigquery.location is US/,
    );
  });
});

describe('load', () => {
  it('loads each table with one job under a deterministic id; rows are readable with getRows()', async () => {
    const wh = warehouse();
    await wh.prepare([BRANDS, VISIBILITY], []);
    const brands = await wh.load({
      table: BRANDS,
      account: 'acme',
      runId: RUN,
      file: gzFile([brandRow('b1'), brandRow('b2')]),
    });
    const vis = await wh.load({
      table: VISIBILITY,
      account: 'acme',
      runId: RUN,
      file: gzFile([visRow('b1', '2025-06-13'), visRow('b1', '2025-06-14'), visRow('b2', '2025-06-14')]),
    });
    expect(brands).toEqual({
      table: 'brands',
      job_id: loadJobId('acme', RUN, 'brands'),
      status: 'succeeded',
      rows: 2,
    });
    expect(vis).toMatchObject({
      status: 'succeeded',
      rows: 3,
      job_id: `visync_acme_${RUN}_visibility_daily`,
    });

    const load = fake.jobs.map((j) => [j.jobId, j.via, j.jobType, j.outcome, j.gzip]);
    expect(load).toEqual([
      [brands.job_id, 'upload', 'LOAD', 'created', true],
      [vis.job_id, 'upload', 'LOAD', 'created', true],
    ]);
    const config = fake.job(PROJECT, brands.job_id)?.['configuration'] as { load: Record<string, unknown> };
    expect(config.load).toMatchObject({
      sourceFormat: 'NEWLINE_DELIMITED_JSON',
      writeDisposition: 'WRITE_APPEND',
      createDisposition: 'CREATE_NEVER',
      schemaUpdateOptions: ['ALLOW_FIELD_ADDITION'],
    });
    // Batch loads only: nothing ever goes through streaming inserts or queries.
    expect(fake.requests.some((r) => /insertAll|queries/.test(r.path))).toBe(false);

    const rows = await tableRows('brands');
    expect(rows.map((r) => r.brand_id)).toEqual(['b1', 'b2']);
    expect(rows[0].snapshot_date.value).toBe('2025-06-15');
    expect(rows[0].engines).toEqual(['chatgpt', 'gemini']);
    expect(JSON.parse(rows[0].payload)).toEqual({ id: 'b1', unknown_field: [1, 2] });
    expect((await tableRows('visibility_daily')).map((r) => r.date.value)).toEqual([
      '2025-06-13',
      '2025-06-14',
      '2025-06-14',
    ]);
  });

  it('loading the same run again hits 409, appends nothing and reports the first job as succeeded', async () => {
    const wh = warehouse();
    await wh.prepare([BRANDS], []);
    const file = gzFile([brandRow('b1'), brandRow('b2')]);
    const first = await wh.load({ table: BRANDS, account: 'acme', runId: RUN, file });
    const again = await wh.load({ table: BRANDS, account: 'acme', runId: RUN, file });
    expect(again).toEqual(first);
    expect(fake.jobs.map((j) => [j.jobId, j.outcome])).toEqual([
      [first.job_id, 'created'],
      [first.job_id, 'duplicate'],
    ]);
    expect(fake.rows(PROJECT, DATASET, 'brands')).toHaveLength(2);
  });

  it('a job found on 409 that loaded other rows than this load is no success: failed, naming the table and both counts', async () => {
    const wh = warehouse();
    await wh.prepare([BRANDS], []);
    const load = (rows: Record<string, unknown>[]) =>
      wh.load({ table: BRANDS, account: 'acme', runId: RUN, file: gzFile(rows) });
    // Another process loaded the run's table from half of its rows, under the run's job id.
    const half = await load([brandRow('b1')]);
    const mine = await load([brandRow('b1'), brandRow('b2')]);
    expect(mine).toMatchObject({ table: 'brands', job_id: half.job_id, status: 'failed', rows: 0 });
    expect(mine.error).toMatch(/already there with 1 rows of brands, this run has 2/);
    // Nothing appended a second time, nothing taken for done.
    expect(fake.rows(PROJECT, DATASET, 'brands')).toHaveLength(1);
    expect(fake.jobs.map((j) => j.outcome)).toEqual(['created', 'duplicate']);
  });

  it('a failed job is reported with BigQuery error text; the next load of the run uses attempt id _a2', async () => {
    const wh = warehouse();
    await wh.prepare([BRANDS], []);
    const file = gzFile([brandRow('b1')]);
    fake.failNextLoad('brands', 'Error while reading data, error message: injected backend trouble');
    const failed = await wh.load({ table: BRANDS, account: 'acme', runId: RUN, file });
    expect(failed).toEqual({
      table: 'brands',
      job_id: loadJobId('acme', RUN, 'brands'),
      status: 'failed',
      rows: 0,
      error: 'Error while reading data, error message: injected backend trouble',
      error_code: 'load_failed',
    });
    expect(fake.rows(PROJECT, DATASET, 'brands')).toHaveLength(0);

    const retried = await wh.load({ table: BRANDS, account: 'acme', runId: RUN, file });
    expect(retried).toEqual({ table: 'brands', job_id: `${failed.job_id}_a2`, status: 'succeeded', rows: 1 });
    expect(loadJobId('acme', RUN, 'brands', 2)).toBe(retried.job_id);

    // A third pass finds attempt 1 failed and attempt 2 done: still one copy of the rows.
    const third = await wh.load({ table: BRANDS, account: 'acme', runId: RUN, file });
    expect(third).toEqual(retried);
    expect(fake.jobs.map((j) => [j.jobId.replace(failed.job_id, 'ID'), j.outcome])).toEqual([
      ['ID', 'created'],
      ['ID', 'duplicate'],
      ['ID_a2', 'created'],
      ['ID', 'duplicate'],
      ['ID_a2', 'duplicate'],
    ]);
    expect(fake.rows(PROJECT, DATASET, 'brands')).toHaveLength(1);
  });

  it('retries at once under the next id after a backend error, and resends an upload answered 5xx', async () => {
    const wh = warehouse();
    await wh.prepare([BRANDS], []);
    fake.failNextLoad(
      'brands',
      'An internal error occurred and the request could not be completed.',
      'backendError',
    );
    const result = await wh.load({
      table: BRANDS,
      account: 'acme',
      runId: RUN,
      file: gzFile([brandRow('b1')]),
    });
    expect(result).toMatchObject({
      status: 'succeeded',
      rows: 1,
      job_id: loadJobId('acme', RUN, 'brands', 2),
    });

    let refused = 0;
    fake.onRequest = ({ path }) => {
      if (path.startsWith('/upload/') && refused++ === 0) throw new Error('connection trouble');
    };
    const vis = await warehouse().load({
      table: BRANDS,
      account: 'acme',
      runId: 'run2',
      file: gzFile([brandRow('b2')]),
    });
    expect(vis).toMatchObject({ status: 'succeeded', rows: 1, job_id: loadJobId('acme', 'run2', 'brands') });
    expect(fake.requests.filter((r) => r.path.startsWith('/upload/')).map((r) => r.status)).toEqual([
      200, 200, 500, 200,
    ]);
    expect(fake.rows(PROJECT, DATASET, 'brands')).toHaveLength(2);
  });

  it('a row with a bad DATE fails the load with the reasons BigQuery gives, without throwing', async () => {
    const wh = warehouse();
    await wh.prepare([BRANDS], []);
    const result = await wh.load({
      table: BRANDS,
      account: 'acme',
      runId: RUN,
      file: gzFile([brandRow('b1'), brandRow('b2', { snapshot_date: '2025-13-01' })]),
    });
    expect(result.status).toBe('failed');
    expect(result.rows).toBe(0);
    expect(result.error).toMatch(
      /^Error while reading data, error message: JSON table encountered too many errors/,
    );
    expect(result.error).toMatch(/ \| .*Could not parse '2025-13-01' as DATE for field snapshot_date/);
    expect(fake.rows(PROJECT, DATASET, 'brands')).toHaveLength(0);
  });

  it('a column added to the TableDef is added to the table by prepare (views may read it); older rows read NULL', async () => {
    const wh = warehouse();
    await wh.prepare([BRANDS], []);
    await wh.load({ table: BRANDS, account: 'acme', runId: RUN, file: gzFile([brandRow('b1')]) });

    const v2: TableDef = { ...BRANDS, columns: [...BRANDS.columns, col('category', 'STRING')] };
    // Before any load: a view reading the column is made in the same prepare.
    expect((await warehouse().prepare([v2], [])).tables).toEqual([{ name: 'brands', action: 'updated' }]);
    expect(fake.table(PROJECT, DATASET, 'brands')?.schema.map((f) => f.name)).toEqual(
      v2.columns.map((c) => c.name),
    );
    expect(await ensureTables(createBigQuery(config()), DATASET, [v2])).toEqual([
      { name: 'brands', action: 'exists' },
    ]);
    const run2 = '20250616T020000Z-sync-def456';
    const loaded = await wh.load({
      table: v2,
      account: 'acme',
      runId: run2,
      file: gzFile([brandRow('b1', { run_id: run2, category: 'retail' })]),
    });
    expect(loaded).toMatchObject({ status: 'succeeded', rows: 1 });
    expect(fake.table(PROJECT, DATASET, 'brands')?.schema.at(-1)).toEqual({
      name: 'category',
      type: 'STRING',
      mode: 'NULLABLE',
      description: 'the category',
    });
    const rows = await tableRows('brands');
    expect(rows.map((r) => [r.run_id, r.category])).toEqual([
      [RUN, null],
      [run2, 'retail'],
    ]);
  });

  it('waits for a job that another worker started and that is still running', async () => {
    const wh = warehouse();
    await wh.prepare([BRANDS], []);
    const file = gzFile([brandRow('b1')]);
    fake.options.jobPolls = 3;
    // The "other worker": same deterministic id, submitted and never waited for.
    const [running] = await wh.bq
      .dataset(DATASET, { location: 'EU' })
      .table('brands', { location: 'EU' })
      .createLoadJob(file, {
        jobId: loadJobId('acme', RUN, 'brands'),
        sourceFormat: 'NEWLINE_DELIMITED_JSON',
        schema: { fields: tableMetadata(BRANDS).schema.fields },
      });
    expect(running.metadata.status.state).toBe('RUNNING');

    const result = await wh.load({ table: BRANDS, account: 'acme', runId: RUN, file });
    expect(result).toEqual({ table: 'brands', job_id: running.id, status: 'succeeded', rows: 1 });
    expect(fake.rows(PROJECT, DATASET, 'brands')).toHaveLength(1);
  });

  it('does not adopt a job of the same id that loads another dataset', async () => {
    await warehouse().prepare([BRANDS], []);
    await warehouse('other').prepare([BRANDS], []);
    const file = gzFile([brandRow('b1')]);
    await warehouse().load({ table: BRANDS, account: 'acme', runId: RUN, file });
    const other = await warehouse('other').load({ table: BRANDS, account: 'acme', runId: RUN, file });
    expect(other).toMatchObject({
      status: 'succeeded',
      rows: 1,
      job_id: loadJobId('acme', RUN, 'brands', 2),
    });
    expect(fake.rows(PROJECT, 'other', 'brands')).toHaveLength(1);
  });

  it('throws for a missing file instead of reporting a BigQuery failure', async () => {
    const wh = warehouse();
    await wh.prepare([BRANDS], []);
    await expect(
      wh.load({ table: BRANDS, account: 'acme', runId: RUN, file: join(dir, 'absent.ndjson.gz') }),
    ).rejects.toThrow(/ENOENT/);
  });
});

describe('loadJobId', () => {
  it('is deterministic, uses only job id characters, and suffixes attempts', () => {
    const id = loadJobId('acme', RUN, 'brands');
    expect(id).toBe(`visync_acme_${RUN}_brands`);
    expect(loadJobId('acme', RUN, 'brands')).toBe(id);
    expect(loadJobId('acme', RUN, 'brands', 1)).toBe(id);
    expect(loadJobId('acme', RUN, 'brands', 2)).toBe(`${id}_a2`);
    expect(loadJobId('acme', RUN, 'brands', 12)).toBe(`${id}_a12`);
    expect(() => loadJobId('acme', RUN, 'brands', 0)).toThrow(RangeError);
  });

  it('sanitises other characters and keeps inputs that sanitise alike apart', () => {
    const a = loadJobId('acme.eu', 'run:1', 'brands');
    const b = loadJobId('acme_eu', 'run_1', 'brands');
    const c = loadJobId('acme/eu', 'run 1', 'brands');
    for (const id of [a, b, c, loadJobId('x'.repeat(2000), RUN, 'brands', 3)]) {
      expect(id).toMatch(/^[A-Za-z0-9_-]{1,1024}$/);
    }
    expect(new Set([a, b, c]).size).toBe(3);
  });
});

describe('tableMetadata', () => {
  it('maps a TableDef to schema, DAY partitioning and clustering, and rejects impossible ones', () => {
    const meta = tableMetadata(BRANDS);
    expect(meta.timePartitioning).toEqual({ type: 'DAY', field: 'snapshot_date' });
    expect(meta.clustering).toEqual({ fields: ['account', 'brand_id'] });
    expect(meta.schema.fields[3]).toEqual({
      name: 'extracted_at',
      type: 'TIMESTAMP',
      mode: 'REQUIRED',
      description: 'the extracted_at',
    });
    expect(tableMetadata({ ...BRANDS, clustering: [] }).clustering).toBeUndefined();
    expect(() => tableMetadata({ ...BRANDS, partitionField: 'date' })).toThrow(/partition field date/);
    expect(() => tableMetadata({ ...BRANDS, clustering: ['payload'] })).toThrow(/clustering field payload/);
  });
});
