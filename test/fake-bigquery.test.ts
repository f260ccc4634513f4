// The fake BigQuery server driven by the real @google-cloud/bigquery client: what the warehouse
// tests rely on must look like the documented REST API from the client's side.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { BigQuery } from '@google-cloud/bigquery';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBigQuery } from '../src/warehouse/bigquery-client.js';
import { type FakeBigQuery, startFakeBigQuery } from './fakes/bigquery-server.js';

const PROJECT = 'test-project';
let fake: FakeBigQuery;
let bq: BigQuery;
let dir: string;

beforeEach(async () => {
  fake = await startFakeBigQuery();
  bq = createBigQuery({ projectId: PROJECT, dataset: 'ds', location: 'EU', apiEndpoint: fake.url });
  dir = mkdtempSync(join(tmpdir(), 'visync-fakebq-'));
});
afterEach(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

// biome-ignore lint/suspicious/noExplicitAny: errors from the client are untyped
async function rejection(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

function ndjson(rows: unknown[], gzip = true): string {
  const file = join(dir, `part-${Math.random().toString(36).slice(2)}.ndjson${gzip ? '.gz' : ''}`);
  const text = rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
  writeFileSync(file, gzip ? gzipSync(text) : text);
  return file;
}

const FIELDS = [
  { name: 'account', type: 'STRING', mode: 'REQUIRED' },
  { name: 'snapshot_date', type: 'DATE', mode: 'REQUIRED' },
  { name: 'extracted_at', type: 'TIMESTAMP', mode: 'NULLABLE' },
  { name: 'score', type: 'FLOAT64', mode: 'NULLABLE' },
  { name: 'count', type: 'INT64', mode: 'NULLABLE' },
  { name: 'ok', type: 'BOOL', mode: 'NULLABLE' },
  { name: 'tags', type: 'STRING', mode: 'REPEATED' },
  { name: 'payload', type: 'JSON', mode: 'NULLABLE' },
];

async function makeTable(name = 't') {
  await bq.createDataset('ds', { location: 'EU' });
  await bq.dataset('ds').createTable(name, {
    schema: { fields: FIELDS },
    timePartitioning: { type: 'DAY', field: 'snapshot_date' },
    clustering: { fields: ['account'] },
  });
  return bq.dataset('ds', { location: 'EU' }).table(name, { location: 'EU' });
}

const loadOpts = (extra: Record<string, unknown> = {}) => ({
  sourceFormat: 'NEWLINE_DELIMITED_JSON',
  writeDisposition: 'WRITE_APPEND',
  ...extra,
});

describe('datasets', () => {
  it('answers 404 notFound in Google error format, creates with location, 409 on duplicate', async () => {
    const missing = await rejection(bq.dataset('ds').get());
    expect(missing.code).toBe(404);
    expect(missing.message).toBe(`Not found: Dataset ${PROJECT}:ds`);
    expect(missing.errors).toEqual([
      { message: `Not found: Dataset ${PROJECT}:ds`, domain: 'global', reason: 'notFound' },
    ]);

    const [ds] = await bq.createDataset('ds', { location: 'EU' });
    expect(ds.metadata.location).toBe('EU');
    const [meta] = await bq.dataset('ds').getMetadata();
    expect(meta.datasetReference).toEqual({ datasetId: 'ds', projectId: PROJECT });
    expect(meta.location).toBe('EU');
    expect(fake.datasets.get(`${PROJECT}:ds`)?.location).toBe('EU');

    const dup = await rejection(bq.createDataset('ds', { location: 'EU' }));
    expect(dup.code).toBe(409);
    expect(dup.errors[0].reason).toBe('duplicate');
    expect(dup.message).toBe(`Already Exists: Dataset ${PROJECT}:ds`);
  });

  it('sends the bearer token of the auth client and refuses requests without one', async () => {
    await bq.createDataset('ds', { location: 'EU' });
    expect(fake.requests[0]?.authorization).toBe('Bearer placeholder');
    const res = await fetch(`${fake.url}/bigquery/v2/projects/${PROJECT}/datasets/ds`);
    expect(res.status).toBe(401);
    const body = (await res.json()) as { error: { status: string; errors: { reason: string }[] } };
    expect(body.error.status).toBe('UNAUTHENTICATED');
  });
});

describe('tables', () => {
  it('creates a partitioned, clustered table and returns its metadata with legacy type names', async () => {
    await makeTable();
    const [meta] = await bq.dataset('ds').table('t').getMetadata();
    expect(meta.type).toBe('TABLE');
    expect(meta.tableReference).toEqual({ projectId: PROJECT, datasetId: 'ds', tableId: 't' });
    expect(meta.timePartitioning).toEqual({ type: 'DAY', field: 'snapshot_date' });
    expect(meta.clustering).toEqual({ fields: ['account'] });
    expect(meta.schema.fields.map((f: { type: string }) => f.type)).toEqual([
      'STRING',
      'DATE',
      'TIMESTAMP',
      'FLOAT',
      'INTEGER',
      'BOOLEAN',
      'STRING',
      'JSON',
    ]);
    expect(meta.numRows).toBe('0');

    const dup = await rejection(bq.dataset('ds').createTable('t', { schema: { fields: FIELDS } }));
    expect(dup.code).toBe(409);
    expect(dup.message).toBe(`Already Exists: Table ${PROJECT}:ds.t`);

    const missing = await rejection(bq.dataset('ds').table('nope').getMetadata());
    expect(missing.code).toBe(404);
    expect(missing.errors[0].reason).toBe('notFound');
    expect(missing.message).toBe(`Not found: Table ${PROJECT}:ds.nope`);
  });

  it('rejects partitioning on a missing or non-date field and creating a table in a missing dataset', async () => {
    const noDs = await rejection(bq.dataset('nods').createTable('t', { schema: { fields: FIELDS } }));
    expect(noDs.code).toBe(404);
    expect(noDs.message).toBe(`Not found: Dataset ${PROJECT}:nods`);
    await bq.createDataset('ds', { location: 'EU' });
    const bad = await rejection(
      bq.dataset('ds').createTable('t', {
        schema: { fields: FIELDS },
        timePartitioning: { type: 'DAY', field: 'account' },
      }),
    );
    expect(bad.code).toBe(400);
    expect(bad.message).toMatch(/can only be of type TIMESTAMP, DATE or DATETIME/);
  });

  it('stores views with their SQL and updates it through setMetadata (tables.patch)', async () => {
    await bq.createDataset('ds', { location: 'EU' });
    await bq.dataset('ds').createTable('v', { view: 'SELECT 1 AS x' });
    expect(fake.table(PROJECT, 'ds', 'v')?.view).toEqual({ query: 'SELECT 1 AS x', useLegacySql: false });
    const [meta] = await bq.dataset('ds').table('v').getMetadata();
    expect(meta.type).toBe('VIEW');
    await bq
      .dataset('ds')
      .table('v')
      .setMetadata({ view: { query: 'SELECT 2 AS x', useLegacySql: false } });
    expect(fake.table(PROJECT, 'ds', 'v')?.view?.query).toBe('SELECT 2 AS x');
    expect(fake.requests.some((r) => r.method === 'PATCH' && r.path.endsWith('/tables/v'))).toBe(true);
  });
});

describe('load jobs through the multipart upload', () => {
  const row = {
    account: 'acme',
    snapshot_date: '2025-06-15',
    extracted_at: '2025-06-15T02:00:00.123456Z',
    score: 0.5,
    count: 3,
    ok: true,
    tags: ['a', 'b'],
    payload: { nested: { k: [1, 2] } },
  };

  it('loads gzipped and plain NDJSON, records the job, and serves rows through tabledata.list', async () => {
    const table = await makeTable();
    const [job] = await table.createLoadJob(ndjson([row, { account: 'acme', snapshot_date: '2025-06-16' }]), {
      ...loadOpts(),
      jobId: 'job_gz',
    });
    expect(job.id).toBe('job_gz');
    expect(job.metadata.status.state).toBe('DONE');
    expect(job.metadata.statistics.load.outputRows).toBe('2');
    expect(job.metadata.jobReference).toEqual({ projectId: PROJECT, jobId: 'job_gz', location: 'EU' });
    await table.createLoadJob(ndjson([row], false), { ...loadOpts(), jobId: 'job_plain' });

    const upload = fake.requests.find((r) => r.path === `/upload/bigquery/v2/projects/${PROJECT}/jobs`);
    expect(upload?.query['uploadType']).toBe('multipart');
    expect(fake.jobs.map((j) => [j.jobId, j.outcome, j.gzip, j.destination])).toEqual([
      ['job_gz', 'created', true, 'ds.t'],
      ['job_plain', 'created', false, 'ds.t'],
    ]);

    const [rows] = await bq.dataset('ds').table('t').getRows();
    expect(rows).toHaveLength(3);
    const first = rows[0];
    expect(first.account).toBe('acme');
    expect(first.snapshot_date.value).toBe('2025-06-15');
    // The client renders TIMESTAMP with nanosecond digits.
    expect(first.extracted_at.value).toBe('2025-06-15T02:00:00.123456000Z');
    expect(first.score).toBe(0.5);
    expect(first.count).toBe(3);
    expect(first.ok).toBe(true);
    expect(first.tags).toEqual(['a', 'b']);
    expect(JSON.parse(first.payload)).toEqual({ nested: { k: [1, 2] } });
    expect(rows[1]).toMatchObject({ extracted_at: null, tags: [], payload: null, score: null });

    expect(fake.rows(PROJECT, 'ds', 't')[0]).toMatchObject({
      extracted_at: '2025-06-15T02:00:00.123456Z',
      payload: { nested: { k: [1, 2] } },
    });
  });

  it('pages tabledata.list with maxResults and pageToken', async () => {
    const table = await makeTable();
    const many = Array.from({ length: 5 }, (_, i) => ({ account: `a${i}`, snapshot_date: '2025-06-15' }));
    await table.createLoadJob(ndjson(many), loadOpts());
    const [page1, next] = await bq.dataset('ds').table('t').getRows({ maxResults: 2, autoPaginate: false });
    expect(page1.map((r) => r.account)).toEqual(['a0', 'a1']);
    expect(next?.pageToken).toBeTruthy();
    const [page2, next2] = await bq
      .dataset('ds')
      .table('t')
      .getRows({ ...next, autoPaginate: false });
    expect(page2.map((r) => r.account)).toEqual(['a2', 'a3']);
    const [page3, last] = await bq
      .dataset('ds')
      .table('t')
      .getRows({ ...next2, autoPaginate: false });
    expect(page3.map((r) => r.account)).toEqual(['a4']);
    expect(last).toBeNull();
    const [all] = await bq.dataset('ds').table('t').getRows();
    expect(all).toHaveLength(5);
  });

  it('answers 409 duplicate "Already Exists: Job p:LOC.id" for a reused job id and logs the attempt', async () => {
    const table = await makeTable();
    await table.createLoadJob(ndjson([row]), { ...loadOpts(), jobId: 'same' });
    const err = await rejection(table.createLoadJob(ndjson([row]), { ...loadOpts(), jobId: 'same' }));
    expect(err.code).toBe(409);
    expect(err.message).toBe(`Already Exists: Job ${PROJECT}:EU.same`);
    expect(err.errors[0]).toMatchObject({ reason: 'duplicate', domain: 'global' });
    expect(fake.jobs.map((j) => j.outcome)).toEqual(['created', 'duplicate']);
    expect(fake.rows(PROJECT, 'ds', 't')).toHaveLength(1);

    const [meta] = await bq.job('same', { location: 'EU' }).getMetadata();
    expect(meta.status).toEqual({ state: 'DONE' });
    const wrongLoc = await rejection(bq.job('same', { location: 'US' }).getMetadata());
    expect(wrongLoc.code).toBe(404);
  });

  it('fails jobs the way BigQuery does: unknown field, bad DATE, missing REQUIRED, bad JSON', async () => {
    const table = await makeTable();
    const cases: [unknown[], RegExp][] = [
      [[{ ...row, extra: 1 }], /No such field: extra\./],
      [
        [{ ...row, snapshot_date: '2025-02-30' }],
        /Could not parse '2025-02-30' as DATE for field snapshot_date/,
      ],
      [[{ snapshot_date: '2025-06-15' }], /Missing required field: account\./],
      [[{ ...row, count: 'many' }], /Could not convert value 'many' to integer/],
      [[{ ...row, extracted_at: 'yesterday' }], /Could not parse 'yesterday' as a timestamp/],
    ];
    for (const [rows, detail] of cases) {
      const [job] = await table.createLoadJob(ndjson(rows), loadOpts());
      const status = job.metadata.status;
      expect(status.state).toBe('DONE');
      expect(status.errorResult.reason).toBe('invalid');
      expect(status.errorResult.message).toMatch(
        /^Error while reading data, error message: JSON table encountered too many errors, giving up\. Rows: 1; errors: 1\./,
      );
      expect(status.errors[1].message).toMatch(/JSON parsing error in row starting at position 0: /);
      expect(status.errors[1].message).toMatch(detail);
    }
    expect(fake.rows(PROJECT, 'ds', 't')).toHaveLength(0);

    // table.load() polls the job and rejects on errorResult, like against BigQuery.
    const err = await rejection(table.load(ndjson([{ ...row, nope: 1 }]), loadOpts()));
    expect(err.message).toMatch(/JSON table encountered too many errors/);

    const [ignored] = await table.createLoadJob(
      ndjson([{ ...row, nope: 1 }]),
      loadOpts({ ignoreUnknownValues: true }),
    );
    expect(ignored.metadata.status.errorResult).toBeUndefined();
  });

  it('honours schema updates, create and write dispositions', async () => {
    const table = await makeTable();
    const wider = { fields: [...FIELDS, { name: 'added', type: 'STRING', mode: 'NULLABLE' }] };
    await table.createLoadJob(ndjson([row]), loadOpts());

    const [refused] = await table.createLoadJob(
      ndjson([{ ...row, added: 'x' }]),
      loadOpts({ schema: wider }),
    );
    expect(refused.metadata.status.errorResult.message).toBe(
      `Provided Schema does not match Table ${PROJECT}:ds.t. Cannot add fields (field: added)`,
    );
    const [added] = await table.createLoadJob(
      ndjson([{ ...row, added: 'x' }]),
      loadOpts({ schema: wider, schemaUpdateOptions: ['ALLOW_FIELD_ADDITION'] }),
    );
    expect(added.metadata.status.errorResult).toBeUndefined();
    expect(fake.table(PROJECT, 'ds', 't')?.schema.at(-1)).toEqual({
      name: 'added',
      type: 'STRING',
      mode: 'NULLABLE',
    });
    expect(fake.rows(PROJECT, 'ds', 't').map((r) => r['added'])).toEqual([null, 'x']);

    const [missing] = await table.createLoadJob(ndjson([row]), loadOpts({ schema: { fields: FIELDS } }));
    expect(missing.metadata.status.errorResult.message).toMatch(/Field added is missing in new schema/);

    const [empty] = await table.createLoadJob(ndjson([row]), loadOpts({ writeDisposition: 'WRITE_EMPTY' }));
    expect(empty.metadata.status.errorResult.reason).toBe('duplicate');
    const [truncate] = await table.createLoadJob(
      ndjson([row]),
      loadOpts({ writeDisposition: 'WRITE_TRUNCATE' }),
    );
    expect(truncate.metadata.status.errorResult).toBeUndefined();
    expect(fake.rows(PROJECT, 'ds', 't')).toHaveLength(1);

    const other = bq.dataset('ds', { location: 'EU' }).table('absent', { location: 'EU' });
    const [never] = await other.createLoadJob(ndjson([row]), loadOpts({ createDisposition: 'CREATE_NEVER' }));
    expect(never.metadata.status.errorResult).toEqual({
      reason: 'notFound',
      message: `Not found: Table ${PROJECT}:ds.absent`,
    });
    const [created] = await other.createLoadJob(ndjson([row]), loadOpts({ schema: { fields: FIELDS } }));
    expect(created.metadata.status.errorResult).toBeUndefined();
    expect(fake.rows(PROJECT, 'ds', 'absent')).toHaveLength(1);
  });

  it('fails the next load into a table on request, and keeps jobs RUNNING for jobPolls polls', async () => {
    const table = await makeTable();
    fake.failNextLoad('t', 'Injected failure');
    const [failed] = await table.createLoadJob(ndjson([row]), loadOpts());
    expect(failed.metadata.status.errorResult).toEqual({ reason: 'invalid', message: 'Injected failure' });
    const [ok] = await table.createLoadJob(ndjson([row]), loadOpts());
    expect(ok.metadata.status.errorResult).toBeUndefined();

    fake.options.jobPolls = 1;
    const [running] = await table.createLoadJob(ndjson([row]), { ...loadOpts(), jobId: 'slow' });
    expect(running.metadata.status.state).toBe('RUNNING');
    expect(fake.rows(PROJECT, 'ds', 't')).toHaveLength(1);
    const [meta] = await running.getMetadata();
    expect(meta.status.state).toBe('DONE');
    expect(fake.rows(PROJECT, 'ds', 't')).toHaveLength(2);
  });

  it('rejects a load into a dataset of another location and does not run SQL', async () => {
    await makeTable();
    const us = bq.dataset('ds', { location: 'US' }).table('t', { location: 'US' });
    const [job] = await us.createLoadJob(ndjson([row]), loadOpts());
    expect(job.metadata.status.errorResult.message).toBe(
      `Not found: Dataset ${PROJECT}:ds was not found in location US`,
    );
    const err = await rejection(bq.query('SELECT 1'));
    expect(err.code).toBe(501);
  });
});
