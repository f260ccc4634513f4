/**
 * A fake of the BigQuery REST API v2, for tests that drive the real `@google-cloud/bigquery` client
 * (`apiEndpoint: fake.url`) without Google. It holds everything in memory and never executes SQL.
 *
 * Emulated, following the documented wire format (JSON bodies, Google's error envelope
 * `{error: {code, message, errors: [{reason, message, domain}], status}}`, legacy type names
 * INTEGER/FLOAT/BOOLEAN in returned schemas, numbers as strings):
 * - datasets: insert (409 `duplicate`), get (404 `notFound`), list, patch, delete (`deleteContents`).
 * - tables: insert (schema, timePartitioning with expirationMs, requirePartitionFilter, clustering,
 *   description, or `view: {query, useLegacySql}` where useLegacySql defaults to true as in the
 *   API), get, list, patch/update (schema may only grow or relax modes; view query; the partition
 *   expiration and requirePartitionFilter, not the partitioning type or field), delete.
 * - jobs.insert of LOAD jobs through the media upload endpoint
 *   `POST /upload/bigquery/v2/projects/{p}/jobs?uploadType=multipart` (multipart/related, JSON job
 *   then the file; gzip detected by its magic bytes), jobs.get (with `location`), jobs.cancel.
 *   A duplicate job id answers 409 `duplicate` "Already Exists: Job p:LOC.id". Jobs run
 *   synchronously: DONE in the insert response, or after `jobPolls` jobs.get calls (rows become
 *   visible when the job turns DONE). Load semantics: NEWLINE_DELIMITED_JSON only; writeDisposition
 *   WRITE_APPEND (default) / WRITE_TRUNCATE (replaces rows and schema) / WRITE_EMPTY;
 *   createDisposition CREATE_IF_NEEDED (default) / CREATE_NEVER; `schema` reconciled with the
 *   table's (missing field, type change, mode change, field addition without ALLOW_FIELD_ADDITION
 *   are errors; ALLOW_FIELD_ADDITION / ALLOW_FIELD_RELAXATION apply); ignoreUnknownValues;
 *   maxBadRecords; per-type value checks (INT64, FLOAT64, BOOL, DATE, TIMESTAMP, JSON, REPEATED,
 *   REQUIRED). Job failures end DONE with `status.errorResult` and `status.errors` worded like
 *   BigQuery's (close, not byte-identical). The dataset's location must match the job's.
 * - tabledata.list with maxResults/pageToken/startIndex/selectedFields and the timestamp formats
 *   (`formatOptions.useInt64Timestamp`, `formatOptions.timestampOutputFormat`).
 * - Dry-run query jobs (`configuration.dryRun: true`): DONE in the insert response with 0 bytes
 *   processed, no job id, nothing stored; the SQL is not checked, so every dry run is valid.
 * - A bearer token is required (401 otherwise), so a test proves the client never runs
 *   unauthenticated; its value is not checked.
 *
 * Not emulated: SQL of any kind (query jobs other than dry runs, jobs.query, getQueryResults
 * answer 501; views are stored, never validated or expanded, and get no schema), streaming inserts
 * (insertAll: 501), copy/extract jobs, loads from gs:// URIs, resumable uploads, formats other than
 * NDJSON, RECORD / NUMERIC / BYTES / DATETIME / TIME / GEOGRAPHY columns, partition decorators,
 * partition expiry (expirationMs is kept and returned, no partition is ever deleted), the
 * partition filter requirement (kept and returned, never enforced: no SQL runs), etags and If-Match, IAM, quotas and rate limits, routines, models, row-level
 * order guarantees (rows come back in load order), jobs.list.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import {
  type Cell,
  convertRow,
  type FieldSchema,
  normaliseFields,
  plainCell,
  RowError,
  renderCell,
  SchemaError,
  type StoredRow,
  type TimestampFormat,
} from './bigquery-rows.js';
import { boundaryOf, parseMultipart } from './multipart.js';

export type { FieldSchema } from './bigquery-rows.js';

export interface FakeDataset {
  projectId: string;
  datasetId: string;
  location: string;
  description?: string;
  labels?: Record<string, string>;
  creationTime: number;
  lastModifiedTime: number;
}

export interface TimePartitioning {
  type: string;
  field?: string;
  expirationMs?: string;
}

export interface FakeTable {
  projectId: string;
  datasetId: string;
  tableId: string;
  type: 'TABLE' | 'VIEW';
  schema: FieldSchema[];
  timePartitioning?: TimePartitioning;
  clustering?: { fields: string[] };
  /** As last set by insert or patch; absent when never set (the API's default, false). */
  requirePartitionFilter?: boolean;
  view?: { query: string; useLegacySql: boolean };
  description?: string;
  labels?: Record<string, string>;
  rows: StoredRow[];
  creationTime: number;
  lastModifiedTime: number;
}

export interface JobError {
  reason: string;
  message: string;
  location?: string;
}

/** One call to jobs.insert, whatever came of it. */
export interface JobAttempt {
  projectId: string;
  jobId: string;
  location: string;
  via: 'upload' | 'jobs';
  jobType: string;
  /** `dataset.table` of a load. */
  destination?: string;
  outcome: 'created' | 'duplicate' | 'rejected' | 'dry-run';
  httpStatus: number;
  uploadBytes?: number;
  gzip?: boolean;
}

export interface RequestRecord {
  method: string;
  path: string;
  query: Record<string, string>;
  status: number;
  authorization?: string;
}

export interface FakeBigQueryOptions {
  /** jobs.get calls that still see a new job RUNNING before it turns DONE (0: DONE at insert). */
  jobPolls?: number;
  /** Answer 401 to requests without a bearer token (default true). */
  requireAuth?: boolean;
}

export interface FakeBigQuery {
  url: string;
  close(): Promise<void>;
  /** Keyed `project:dataset`. */
  datasets: Map<string, FakeDataset>;
  /** Keyed `project:dataset.table`. */
  tables: Map<string, FakeTable>;
  table(project: string, dataset: string, table: string): FakeTable | undefined;
  /** Stored rows as plain values: numbers, booleans, TIMESTAMP as ISO with micros, JSON parsed. */
  rows(project: string, dataset: string, table: string): Record<string, unknown>[];
  /** Every jobs.insert attempt in order, including rejected ones. */
  jobs: JobAttempt[];
  /** The job resource as jobs.get would answer it (without advancing its state). */
  job(project: string, jobId: string): Record<string, unknown> | undefined;
  /** The next load job into `table` (`table` or `dataset.table`) ends DONE with this error. */
  failNextLoad(table: string, message: string, reason?: string): void;
  requests: RequestRecord[];
  options: Required<FakeBigQueryOptions>;
  /** Awaited before each authenticated request is handled: lets a test act "in between" calls. */
  onRequest?: (req: { method: string; path: string; query: Record<string, string> }) => Promise<void> | void;
}

interface FakeJob {
  projectId: string;
  jobId: string;
  location: string;
  configuration: Record<string, unknown>;
  state: 'RUNNING' | 'DONE';
  pollsLeft: number;
  data: Buffer;
  errorResult?: JobError;
  errors?: JobError[];
  creationTime: number;
  startTime: number;
  endTime?: number;
  load?: Record<string, string>;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ALREADY_EXISTS',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
};

/** Thrown from `onRequest`, it is answered as BigQuery would answer that error (a 403 on a dataset, say). */
export class HttpError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

const invalid = (message: string) => new HttpError(400, 'invalid', message);
const notFound = (message: string) => new HttpError(404, 'notFound', message);
const unimplemented = (what: string) =>
  new HttpError(501, 'notImplemented', `${what} is not emulated by the fake BigQuery server`);

const DATASET_ID = /^[A-Za-z0-9_]{1,1024}$/;
const TABLE_ID = /^[\p{L}\p{M}\p{N}\p{Pc}\p{Pd} ]{1,1024}$/u;
const JOB_ID = /^[A-Za-z0-9_-]{1,1024}$/;
const SUPPORTED_UPDATE_OPTIONS = new Set(['ALLOW_FIELD_ADDITION', 'ALLOW_FIELD_RELAXATION']);

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const sameLocation = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

export async function startFakeBigQuery(opts: FakeBigQueryOptions = {}): Promise<FakeBigQuery> {
  const options: Required<FakeBigQueryOptions> = {
    jobPolls: opts.jobPolls ?? 0,
    requireAuth: opts.requireAuth ?? true,
  };
  const datasets = new Map<string, FakeDataset>();
  const tables = new Map<string, FakeTable>();
  const jobs = new Map<string, FakeJob>();
  const attempts: JobAttempt[] = [];
  const requests: RequestRecord[] = [];
  const failures: { table: string; error: JobError }[] = [];
  let baseUrl = '';

  const dsKey = (p: string, d: string) => `${p}:${d}`;
  const tKey = (p: string, d: string, t: string) => `${p}:${d}.${t}`;

  // ---------- resources ----------

  function datasetResource(ds: FakeDataset): Json {
    return {
      kind: 'bigquery#dataset',
      etag: etag(ds.lastModifiedTime),
      id: dsKey(ds.projectId, ds.datasetId),
      selfLink: `${baseUrl}/bigquery/v2/projects/${ds.projectId}/datasets/${ds.datasetId}`,
      datasetReference: { datasetId: ds.datasetId, projectId: ds.projectId },
      location: ds.location,
      type: 'DEFAULT',
      ...(ds.description !== undefined && { description: ds.description }),
      ...(ds.labels && { labels: ds.labels }),
      creationTime: String(ds.creationTime),
      lastModifiedTime: String(ds.lastModifiedTime),
    };
  }

  function tableResource(t: FakeTable): Json {
    const ds = datasets.get(dsKey(t.projectId, t.datasetId));
    return {
      kind: 'bigquery#table',
      etag: etag(t.lastModifiedTime),
      id: tKey(t.projectId, t.datasetId, t.tableId),
      selfLink: `${baseUrl}/bigquery/v2/projects/${t.projectId}/datasets/${t.datasetId}/tables/${t.tableId}`,
      tableReference: { projectId: t.projectId, datasetId: t.datasetId, tableId: t.tableId },
      ...(t.description !== undefined && { description: t.description }),
      ...(t.labels && { labels: t.labels }),
      ...(t.type === 'TABLE' && { schema: { fields: t.schema.map((f) => ({ ...f })) } }),
      ...(t.timePartitioning && { timePartitioning: { ...t.timePartitioning } }),
      ...(t.clustering && { clustering: { fields: [...t.clustering.fields] } }),
      ...(t.requirePartitionFilter !== undefined && { requirePartitionFilter: t.requirePartitionFilter }),
      ...(t.view && { view: { ...t.view } }),
      ...(t.type === 'TABLE' && {
        numRows: String(t.rows.length),
        numBytes: String(Buffer.byteLength(JSON.stringify(t.rows))),
      }),
      creationTime: String(t.creationTime),
      lastModifiedTime: String(t.lastModifiedTime),
      type: t.type,
      location: ds?.location ?? 'US',
    };
  }

  function jobResource(job: FakeJob): Json {
    const status: Json = { state: job.state };
    if (job.errorResult) status['errorResult'] = job.errorResult;
    if (job.errors) status['errors'] = job.errors;
    return {
      kind: 'bigquery#job',
      etag: etag(job.endTime ?? job.startTime),
      id: `${job.projectId}:${job.location}.${job.jobId}`,
      selfLink: `${baseUrl}/bigquery/v2/projects/${job.projectId}/jobs/${job.jobId}?location=${job.location}`,
      user_email: 'fake@example.invalid',
      configuration: job.configuration,
      jobReference: { projectId: job.projectId, jobId: job.jobId, location: job.location },
      statistics: {
        creationTime: String(job.creationTime),
        startTime: String(job.startTime),
        ...(job.endTime !== undefined && { endTime: String(job.endTime) }),
        ...(job.load && { load: job.load }),
      },
      status,
    };
  }

  // ---------- datasets ----------

  function getDataset(p: string, d: string): FakeDataset {
    const ds = datasets.get(dsKey(p, d));
    if (!ds) throw notFound(`Not found: Dataset ${p}:${d}`);
    return ds;
  }

  function insertDataset(p: string, body: Json): Json {
    const ref = obj(body['datasetReference']);
    const d = String(ref['datasetId'] ?? '');
    if (!d) throw invalid('Required parameter is missing: datasetReference.datasetId');
    if (!DATASET_ID.test(d)) {
      throw invalid(
        `Invalid dataset ID "${d}". Dataset IDs must be alphanumeric (plus underscores) and must be at most 1024 characters long.`,
      );
    }
    if (datasets.has(dsKey(p, d))) throw new HttpError(409, 'duplicate', `Already Exists: Dataset ${p}:${d}`);
    const now = Date.now();
    const ds: FakeDataset = {
      projectId: p,
      datasetId: d,
      location: typeof body['location'] === 'string' ? body['location'] : 'US',
      creationTime: now,
      lastModifiedTime: now,
    };
    if (typeof body['description'] === 'string') ds.description = body['description'];
    if (body['labels']) ds.labels = obj(body['labels']) as Record<string, string>;
    datasets.set(dsKey(p, d), ds);
    return datasetResource(ds);
  }

  function patchDataset(ds: FakeDataset, body: Json): Json {
    if (typeof body['location'] === 'string' && !sameLocation(body['location'], ds.location)) {
      throw invalid(`Cannot change dataset location from ${ds.location} to ${body['location']}`);
    }
    if (typeof body['description'] === 'string') ds.description = body['description'];
    if (body['labels']) ds.labels = obj(body['labels']) as Record<string, string>;
    ds.lastModifiedTime = Date.now();
    return datasetResource(ds);
  }

  function deleteDataset(ds: FakeDataset, deleteContents: boolean): void {
    const prefix = `${dsKey(ds.projectId, ds.datasetId)}.`;
    const inside = [...tables.keys()].filter((k) => k.startsWith(prefix));
    if (inside.length > 0 && !deleteContents) {
      throw new HttpError(400, 'resourceInUse', `Dataset ${ds.projectId}:${ds.datasetId} is still in use`);
    }
    for (const k of inside) tables.delete(k);
    datasets.delete(dsKey(ds.projectId, ds.datasetId));
  }

  // ---------- tables ----------

  function getTable(p: string, d: string, t: string): FakeTable {
    getDataset(p, d);
    const table = tables.get(tKey(p, d, t));
    if (!table) throw notFound(`Not found: Table ${p}:${d}.${t}`);
    return table;
  }

  function parseSchema(schema: unknown): FieldSchema[] {
    try {
      return normaliseFields(obj(schema)['fields'] ?? []);
    } catch (err) {
      if (err instanceof SchemaError) throw invalid(err.message);
      throw err;
    }
  }

  function checkPartitioning(fields: FieldSchema[], tp: unknown): TimePartitioning | undefined {
    if (tp === undefined || tp === null) return undefined;
    const raw = obj(tp);
    const type = String(raw['type'] ?? '').toUpperCase();
    if (!['DAY', 'HOUR', 'MONTH', 'YEAR'].includes(type)) {
      throw invalid(`Invalid value for type: ${raw['type']} is not a valid value`);
    }
    const out: TimePartitioning = { type };
    if (raw['field'] !== undefined) {
      const field = fields.find((f) => f.name.toLowerCase() === String(raw['field']).toLowerCase());
      if (!field) throw invalid('The field specified for partitioning cannot be found in the schema');
      if (!['DATE', 'TIMESTAMP', 'DATETIME'].includes(field.type) || field.mode === 'REPEATED') {
        throw invalid(
          `The field specified for time partitioning can only be of type TIMESTAMP, DATE or DATETIME. The type found is: ${field.type}.`,
        );
      }
      out.field = field.name;
    }
    if (raw['expirationMs'] !== undefined && raw['expirationMs'] !== null) {
      const ms = String(raw['expirationMs']);
      if (!/^\d+$/.test(ms) || Number(ms) <= 0) throw invalid(`Invalid value for expirationMs: ${ms}`);
      out.expirationMs = ms;
    }
    return out;
  }

  function checkRequireFilter(table: FakeTable, v: unknown): boolean | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') throw invalid(`Invalid value for requirePartitionFilter: ${String(v)}`);
    // BigQuery refuses the requirement on a table without partitions: it could never be met.
    if (v && !table.timePartitioning) {
      throw invalid('requirePartitionFilter can only be set on a partitioned table.');
    }
    return v;
  }

  function checkClustering(fields: FieldSchema[], cl: unknown): { fields: string[] } | undefined {
    if (cl === undefined || cl === null) return undefined;
    const names = obj(cl)['fields'];
    if (!Array.isArray(names) || names.length === 0) return undefined;
    if (names.length > 4) throw invalid('Too many clustering fields: 5, only 4 are allowed.');
    return {
      fields: names.map((n) => {
        const field = fields.find((f) => f.name.toLowerCase() === String(n).toLowerCase());
        if (!field) {
          throw invalid(
            `The field specified for clustering cannot be found in the schema. Invalid field: ${n}.`,
          );
        }
        if (field.mode === 'REPEATED' || ['JSON', 'FLOAT'].includes(field.type)) {
          throw invalid(
            `Field ${field.name} is of type ${field.type} which is not supported for clustering.`,
          );
        }
        return field.name;
      }),
    };
  }

  function insertTable(p: string, d: string, body: Json): Json {
    getDataset(p, d);
    const ref = obj(body['tableReference']);
    const t = String(ref['tableId'] ?? '');
    if (!t) throw invalid('Required parameter is missing: tableReference.tableId');
    if (!TABLE_ID.test(t)) throw invalid(`Invalid table ID "${t}".`);
    if (tables.has(tKey(p, d, t)))
      throw new HttpError(409, 'duplicate', `Already Exists: Table ${p}:${d}.${t}`);
    const now = Date.now();
    const viewIn = body['view'] === undefined ? undefined : obj(body['view']);
    const schema = parseSchema(body['schema']);
    const table: FakeTable = {
      projectId: p,
      datasetId: d,
      tableId: t,
      type: viewIn ? 'VIEW' : 'TABLE',
      schema: viewIn ? [] : schema,
      rows: [],
      creationTime: now,
      lastModifiedTime: now,
    };
    if (viewIn) {
      if (typeof viewIn['query'] !== 'string' || viewIn['query'].trim() === '') {
        throw invalid('Required parameter is missing: view.query');
      }
      table.view = { query: viewIn['query'], useLegacySql: viewIn['useLegacySql'] !== false };
    } else {
      const tp = checkPartitioning(schema, body['timePartitioning']);
      if (tp) table.timePartitioning = tp;
      const cl = checkClustering(schema, body['clustering']);
      if (cl) table.clustering = cl;
      const filter = checkRequireFilter(table, body['requirePartitionFilter']);
      if (filter !== undefined) table.requirePartitionFilter = filter;
    }
    if (typeof body['description'] === 'string') table.description = body['description'];
    if (body['labels']) table.labels = obj(body['labels']) as Record<string, string>;
    tables.set(tKey(p, d, t), table);
    return tableResource(table);
  }

  /** Shared by tables.patch and load jobs: how a new schema may differ from the stored one. */
  function evolveSchema(
    table: FakeTable,
    next: FieldSchema[],
    allow: { addition: boolean; relaxation: boolean },
  ): FieldSchema[] {
    const ref = tKey(table.projectId, table.datasetId, table.tableId);
    const mismatch = (detail: string) => `Provided Schema does not match Table ${ref}. ${detail}`;
    const out: FieldSchema[] = [];
    for (const old of table.schema) {
      const neu = next.find((f) => f.name.toLowerCase() === old.name.toLowerCase());
      if (!neu) throw new SchemaError(mismatch(`Field ${old.name} is missing in new schema`));
      if (neu.type !== old.type) {
        throw new SchemaError(mismatch(`Field ${old.name} has changed type from ${old.type} to ${neu.type}`));
      }
      let mode = old.mode;
      if (neu.mode !== old.mode) {
        if (!(allow.relaxation && old.mode === 'REQUIRED' && neu.mode === 'NULLABLE')) {
          throw new SchemaError(
            mismatch(`Field ${old.name} has changed mode from ${old.mode} to ${neu.mode}`),
          );
        }
        mode = 'NULLABLE';
      }
      const description = neu.description ?? old.description;
      out.push({ ...old, mode, ...(description !== undefined && { description }) });
    }
    for (const neu of next) {
      if (out.some((f) => f.name.toLowerCase() === neu.name.toLowerCase())) continue;
      if (!allow.addition) throw new SchemaError(mismatch(`Cannot add fields (field: ${neu.name})`));
      if (neu.mode === 'REQUIRED') {
        throw new SchemaError(
          mismatch(`Cannot add required fields to an existing schema. (field: ${neu.name})`),
        );
      }
      out.push(neu);
    }
    return out;
  }

  function patchTable(table: FakeTable, body: Json): Json {
    if (body['schema'] !== undefined && table.type === 'TABLE') {
      const next = parseSchema(body['schema']);
      try {
        // tables.patch may add NULLABLE fields and relax modes; that is the API's rule.
        table.schema = evolveSchema(table, next, { addition: true, relaxation: true });
      } catch (err) {
        if (err instanceof SchemaError) throw invalid(err.message);
        throw err;
      }
    }
    if (body['view'] !== undefined) {
      if (table.type !== 'VIEW') throw invalid(`Cannot change a table into a view: ${table.tableId}`);
      const v = obj(body['view']);
      if (typeof v['query'] === 'string')
        table.view = { query: v['query'], useLegacySql: table.view!.useLegacySql };
      if (typeof v['useLegacySql'] === 'boolean') table.view!.useLegacySql = v['useLegacySql'];
    }
    if (body['timePartitioning'] !== undefined && table.type === 'TABLE') {
      const tp = checkPartitioning(table.schema, body['timePartitioning']);
      if (tp?.type !== table.timePartitioning?.type || tp?.field !== table.timePartitioning?.field) {
        throw invalid('Cannot change partitioning/clustering spec for a partitioned/clustered table.');
      }
      table.timePartitioning = tp;
    }
    if (body['requirePartitionFilter'] !== undefined && table.type === 'TABLE') {
      const filter = checkRequireFilter(table, body['requirePartitionFilter']);
      if (filter !== undefined) table.requirePartitionFilter = filter;
    }
    if (body['clustering'] !== undefined && table.type === 'TABLE') {
      const cl = checkClustering(table.schema, body['clustering']);
      if (cl) table.clustering = cl;
      else delete table.clustering;
    }
    if (typeof body['description'] === 'string') table.description = body['description'];
    if (body['labels']) table.labels = obj(body['labels']) as Record<string, string>;
    table.lastModifiedTime = Date.now();
    return tableResource(table);
  }

  function listData(table: FakeTable, q: URLSearchParams): Json {
    if (table.type === 'VIEW') throw invalid('Cannot list a table of type VIEW.');
    const total = table.rows.length;
    const start = Number(q.get('pageToken') ?? q.get('startIndex') ?? 0);
    const max = q.has('maxResults') ? Number(q.get('maxResults')) : 100_000;
    const end = Math.min(total, start + Math.max(0, max));
    const selected = q
      .get('selectedFields')
      ?.split(',')
      .map((s) => s.trim().toLowerCase());
    const fields = selected
      ? table.schema.filter((f) => selected.includes(f.name.toLowerCase()))
      : table.schema;
    const tsFormat: TimestampFormat =
      q.get('formatOptions.useInt64Timestamp') === 'true' ||
      q.get('formatOptions.timestampOutputFormat') === 'INT64'
        ? 'int64'
        : q.get('formatOptions.timestampOutputFormat') === 'ISO8601_STRING'
          ? 'iso'
          : 'float';
    const rows = table.rows
      .slice(start, end)
      .map((row) => ({ f: fields.map((f) => renderCell(f, row[f.name], tsFormat)) }));
    return {
      kind: 'bigquery#tableDataList',
      etag: etag(table.lastModifiedTime),
      totalRows: String(total),
      ...(rows.length > 0 && { rows }),
      ...(end < total && { pageToken: String(end) }),
    };
  }

  // ---------- jobs ----------

  function insertJob(p: string, resource: Json, via: 'upload' | 'jobs', data?: Buffer): Json {
    const ref = obj(resource['jobReference']);
    const config = obj(resource['configuration']);
    const jobType = config['load']
      ? 'LOAD'
      : config['query']
        ? 'QUERY'
        : config['copy']
          ? 'COPY'
          : config['extract']
            ? 'EXTRACT'
            : 'UNKNOWN';
    const load = obj(config['load']);
    const dest = obj(load['destinationTable']);
    const destDataset = datasets.get(dsKey(String(dest['projectId'] ?? p), String(dest['datasetId'] ?? '')));
    const jobId =
      typeof ref['jobId'] === 'string' ? ref['jobId'] : `job_${randomBytes(12).toString('base64url')}`;
    const location = typeof ref['location'] === 'string' ? ref['location'] : (destDataset?.location ?? 'US');
    const attempt: JobAttempt = {
      projectId: p,
      jobId,
      location,
      via,
      jobType,
      outcome: 'rejected',
      httpStatus: 200,
      ...(jobType === 'LOAD' && { destination: `${dest['datasetId']}.${dest['tableId']}` }),
      ...(data && { uploadBytes: data.length, gzip: isGzip(data) }),
    };
    attempts.push(attempt);
    try {
      if (!JOB_ID.test(jobId)) {
        throw invalid(
          `Invalid job ID "${jobId}". Job IDs must be alphanumeric (plus underscores and dashes) and must be at most 1024 characters long.`,
        );
      }
      const existing = jobs.get(`${p}:${jobId}`);
      if (existing) {
        attempt.outcome = 'duplicate';
        throw new HttpError(409, 'duplicate', `Already Exists: Job ${p}:${existing.location}.${jobId}`);
      }
      if (jobType === 'QUERY' && config['dryRun'] === true) {
        attempt.outcome = 'dry-run';
        return dryRunResource(p, location, config);
      }
      if (jobType !== 'LOAD') throw unimplemented(`${jobType} jobs`);
      if (!data) throw unimplemented('Load jobs from Cloud Storage URIs');
      if (!dest['datasetId'] || !dest['tableId']) {
        throw invalid('Required parameter is missing: configuration.load.destinationTable');
      }
      const format = String(load['sourceFormat'] ?? 'CSV');
      if (format !== 'NEWLINE_DELIMITED_JSON') throw unimplemented(`sourceFormat ${format}`);
      const now = Date.now();
      const job: FakeJob = {
        projectId: p,
        jobId,
        location,
        configuration: {
          ...config,
          jobType: 'LOAD',
          load: { ...load, destinationTable: { projectId: p, ...dest } },
        },
        state: 'RUNNING',
        pollsLeft: options.jobPolls,
        data,
        creationTime: now,
        startTime: now,
      };
      jobs.set(`${p}:${jobId}`, job);
      attempt.outcome = 'created';
      if (job.pollsLeft <= 0) finishJob(job);
      return jobResource(job);
    } catch (err) {
      if (err instanceof HttpError) attempt.httpStatus = err.code;
      throw err;
    }
  }

  /** As BigQuery answers a valid dry run: DONE at once, priced, no job id, nothing stored or run. */
  function dryRunResource(p: string, location: string, config: Json): Json {
    return {
      kind: 'bigquery#job',
      etag: etag(Date.now()),
      user_email: 'fake@example.invalid',
      configuration: { ...config, jobType: 'QUERY' },
      jobReference: { projectId: p, location },
      statistics: {
        creationTime: String(Date.now()),
        totalBytesProcessed: '0',
        query: { totalBytesProcessed: '0', totalBytesBilled: '0', cacheHit: false, statementType: 'SELECT' },
      },
      status: { state: 'DONE' },
    };
  }

  function getJob(p: string, jobId: string, location: string | null): FakeJob {
    const job = jobs.get(`${p}:${jobId}`);
    if (!job || (location && !sameLocation(location, job.location))) {
      throw notFound(`Not found: Job ${p}:${location ?? job?.location ?? 'US'}.${jobId}`);
    }
    return job;
  }

  function finishJob(job: FakeJob): void {
    if (job.state === 'DONE') return;
    const result = runLoad(job);
    job.state = 'DONE';
    job.endTime = Date.now();
    job.data = Buffer.alloc(0);
    if ('error' in result) {
      job.errorResult = result.error;
      job.errors = result.errors;
      job.load = {
        inputFiles: '1',
        inputFileBytes: String(result.inputBytes),
        outputRows: '0',
        badRecords: '0',
      };
    } else {
      job.load = {
        inputFiles: '1',
        inputFileBytes: String(result.inputBytes),
        outputRows: String(result.outputRows),
        outputBytes: String(result.outputBytes),
        badRecords: String(result.badRecords),
      };
    }
  }

  type LoadOutcome =
    | { error: JobError; errors: JobError[]; inputBytes: number }
    | { outputRows: number; outputBytes: number; badRecords: number; inputBytes: number };

  function runLoad(job: FakeJob): LoadOutcome {
    const load = obj(job.configuration['load']);
    const dest = obj(load['destinationTable']);
    const [p, d, t] = [String(dest['projectId']), String(dest['datasetId']), String(dest['tableId'])];
    const inputBytes = job.data.length;
    const fail = (reason: string, message: string, more: JobError[] = []): LoadOutcome => {
      const error = { reason, message };
      return { error, errors: [error, ...more], inputBytes };
    };

    const ds = datasets.get(dsKey(p, d));
    if (!ds) return fail('notFound', `Not found: Dataset ${p}:${d}`);
    if (!sameLocation(ds.location, job.location)) {
      return fail('notFound', `Not found: Dataset ${p}:${d} was not found in location ${job.location}`);
    }
    const injected = failures.findIndex((f) => f.table === t || f.table === `${d}.${t}`);
    if (injected >= 0) {
      const error = failures.splice(injected, 1)[0]!.error;
      return fail(error.reason, error.message);
    }

    const existing = tables.get(tKey(p, d, t));
    if (existing?.type === 'VIEW') {
      return fail('invalid', `Cannot load data into ${p}:${d}.${t}: it is a view, not a table.`);
    }
    const write = String(load['writeDisposition'] ?? 'WRITE_APPEND');
    const create = String(load['createDisposition'] ?? 'CREATE_IF_NEEDED');
    const updates = Array.isArray(load['schemaUpdateOptions']) ? load['schemaUpdateOptions'].map(String) : [];
    for (const u of updates) {
      if (!SUPPORTED_UPDATE_OPTIONS.has(u)) return fail('invalid', `Invalid schema update option: ${u}`);
    }
    if (updates.length > 0 && write !== 'WRITE_APPEND') {
      return fail(
        'invalid',
        'Schema update options should only be specified with WRITE_APPEND disposition, or with WRITE_TRUNCATE disposition on a table partition.',
      );
    }

    let loadFields: FieldSchema[] | undefined;
    try {
      if (load['schema'] !== undefined) loadFields = normaliseFields(obj(load['schema'])['fields'] ?? []);
    } catch (err) {
      if (err instanceof SchemaError) return fail('invalid', err.message);
      throw err;
    }

    let fields: FieldSchema[];
    if (!existing) {
      if (create === 'CREATE_NEVER') return fail('notFound', `Not found: Table ${p}:${d}.${t}`);
      if (!loadFields || loadFields.length === 0)
        return fail('invalid', 'No schema specified on job or table.');
      fields = loadFields;
    } else if (!loadFields || write === 'WRITE_TRUNCATE') {
      fields = loadFields ?? existing.schema;
    } else {
      try {
        fields = evolveSchema(existing, loadFields, {
          addition: updates.includes('ALLOW_FIELD_ADDITION'),
          relaxation: updates.includes('ALLOW_FIELD_RELAXATION'),
        });
      } catch (err) {
        if (err instanceof SchemaError) return fail('invalid', err.message);
        throw err;
      }
    }
    if (write === 'WRITE_EMPTY' && existing && existing.rows.length > 0) {
      return fail('duplicate', `Already Exists: Table ${p}:${d}.${t}`);
    }
    if (!['WRITE_APPEND', 'WRITE_TRUNCATE', 'WRITE_EMPTY'].includes(write)) {
      return fail('invalid', `Invalid value for writeDisposition: ${write}`);
    }

    let text: string;
    try {
      text = (isGzip(job.data) ? gunzipSync(job.data) : job.data).toString('utf8');
    } catch (err) {
      return fail(
        'invalid',
        `Error while reading data, error message: Failed to decompress gzip data: ${err}`,
      );
    }
    const ignoreUnknown = load['ignoreUnknownValues'] === true;
    const maxBad = Number(load['maxBadRecords'] ?? 0);
    const rows: StoredRow[] = [];
    const rowErrors: JobError[] = [];
    let position = 0;
    let lineNo = 0;
    for (const line of text.split('\n')) {
      const start = position;
      position += Buffer.byteLength(line, 'utf8') + 1;
      if (line.trim() === '') continue;
      lineNo++;
      try {
        let parsed: unknown;
        try {
          parsed = JSON.parse(line);
        } catch {
          throw new RowError('Parser terminated before end of string');
        }
        rows.push(convertRow(parsed, fields, ignoreUnknown));
      } catch (err) {
        if (!(err instanceof RowError)) throw err;
        rowErrors.push({
          reason: 'invalid',
          location: 'file-00000000',
          message: `Error while reading data, error message: JSON parsing error in row starting at position ${start}: ${err.message}`,
        });
        if (rowErrors.length > maxBad) {
          return fail(
            'invalid',
            `Error while reading data, error message: JSON table encountered too many errors, giving up. Rows: ${lineNo}; errors: ${rowErrors.length}. Please look into the errors[] collection for more details.`,
            rowErrors,
          );
        }
      }
    }

    const now = Date.now();
    let table = existing;
    if (!table) {
      table = {
        projectId: p,
        datasetId: d,
        tableId: t,
        type: 'TABLE',
        schema: fields,
        rows: [],
        creationTime: now,
        lastModifiedTime: now,
      };
      try {
        const tp = checkPartitioning(fields, load['timePartitioning']);
        if (tp) table.timePartitioning = tp;
        const cl = checkClustering(fields, load['clustering']);
        if (cl) table.clustering = cl;
      } catch (err) {
        if (err instanceof HttpError) return fail(err.reason, err.message);
        throw err;
      }
      tables.set(tKey(p, d, t), table);
    }
    table.schema = fields;
    table.rows = write === 'WRITE_TRUNCATE' ? rows : [...table.rows, ...rows];
    table.lastModifiedTime = now;
    return {
      outputRows: rows.length,
      outputBytes: Buffer.byteLength(JSON.stringify(rows)),
      badRecords: rowErrors.length,
      inputBytes,
    };
  }

  // ---------- HTTP ----------

  async function route(
    req: IncomingMessage,
    url: URL,
    body: Buffer,
  ): Promise<{ status: number; json?: Json }> {
    const method = req.method ?? 'GET';
    const segs = url.pathname
      .split('/')
      .filter(Boolean)
      .map((s) => decodeURIComponent(s));
    const q = url.searchParams;
    const json = (): Json => {
      if (body.length === 0) return {};
      try {
        return obj(JSON.parse(body.toString('utf8')));
      } catch {
        throw invalid('Invalid JSON payload received.');
      }
    };

    if (segs[0] === 'upload') {
      const [, bq, v2, projects, p, kind, ...rest] = segs;
      if (
        bq !== 'bigquery' ||
        v2 !== 'v2' ||
        projects !== 'projects' ||
        !p ||
        kind !== 'jobs' ||
        rest.length
      ) {
        throw notFound(`Unknown upload path ${url.pathname}`);
      }
      if (method !== 'POST') throw new HttpError(405, 'badRequest', `Method ${method} not allowed`);
      if (q.get('uploadType') !== 'multipart') throw unimplemented(`uploadType=${q.get('uploadType')}`);
      const boundary = boundaryOf(req.headers['content-type']);
      if (!boundary) throw invalid('Upload requests must be multipart/related with a boundary.');
      const parts = parseMultipart(body, boundary);
      const [meta, media] = parts;
      if (!meta || !media) throw invalid('Upload requests need a metadata part and a media part.');
      let resource: Json;
      try {
        resource = obj(JSON.parse(meta.body.toString('utf8')));
      } catch {
        throw invalid('Invalid JSON payload received in the metadata part.');
      }
      return { status: 200, json: insertJob(p, resource, 'upload', media.body) };
    }

    const [bq, v2, projects, p, coll, id, sub, subId, leaf, ...rest] = segs;
    if (bq !== 'bigquery' || v2 !== 'v2' || projects !== 'projects' || !p) {
      throw notFound(`Unknown path ${url.pathname}`);
    }

    if (coll === 'datasets') {
      if (!id) {
        if (method === 'POST') return { status: 200, json: insertDataset(p, json()) };
        if (method === 'GET') {
          const list = [...datasets.values()].filter((ds) => ds.projectId === p);
          return {
            status: 200,
            json: {
              kind: 'bigquery#datasetList',
              datasets: list.map((ds) => ({
                kind: 'bigquery#dataset',
                id: dsKey(p, ds.datasetId),
                datasetReference: { datasetId: ds.datasetId, projectId: p },
                location: ds.location,
              })),
            },
          };
        }
      } else if (!sub) {
        const ds = getDataset(p, id);
        if (method === 'GET') return { status: 200, json: datasetResource(ds) };
        if (method === 'PATCH' || method === 'PUT') return { status: 200, json: patchDataset(ds, json()) };
        if (method === 'DELETE') {
          deleteDataset(ds, q.get('deleteContents') === 'true');
          return { status: 204 };
        }
      } else if (sub === 'tables') {
        if (!subId) {
          if (method === 'POST') return { status: 200, json: insertTable(p, id, json()) };
          if (method === 'GET') {
            getDataset(p, id);
            const list = [...tables.values()].filter((t) => t.projectId === p && t.datasetId === id);
            return {
              status: 200,
              json: {
                kind: 'bigquery#tableList',
                totalItems: list.length,
                tables: list.map((t) => ({
                  kind: 'bigquery#table',
                  id: tKey(p, id, t.tableId),
                  tableReference: { projectId: p, datasetId: id, tableId: t.tableId },
                  type: t.type,
                })),
              },
            };
          }
        } else if (!leaf) {
          const table = getTable(p, id, subId);
          if (method === 'GET') return { status: 200, json: tableResource(table) };
          if (method === 'PATCH' || method === 'PUT') return { status: 200, json: patchTable(table, json()) };
          if (method === 'DELETE') {
            tables.delete(tKey(p, id, subId));
            return { status: 204 };
          }
        } else if (leaf === 'data' && !rest.length) {
          const table = getTable(p, id, subId);
          if (method === 'GET') return { status: 200, json: listData(table, q) };
        } else if (leaf === 'insertAll') {
          throw unimplemented('tabledata.insertAll (streaming inserts)');
        }
      }
    } else if (coll === 'jobs') {
      if (!id && method === 'POST') return { status: 200, json: insertJob(p, json(), 'jobs') };
      if (id && !sub && method === 'GET') {
        const job = getJob(p, id, q.get('location'));
        if (job.state === 'RUNNING' && --job.pollsLeft <= 0) finishJob(job);
        return { status: 200, json: jobResource(job) };
      }
      if (id && sub === 'cancel' && method === 'POST') {
        const job = getJob(p, id, q.get('location'));
        return { status: 200, json: { kind: 'bigquery#jobCancelResponse', job: jobResource(job) } };
      }
      if (!id && method === 'GET') throw unimplemented('jobs.list');
    } else if (coll === 'queries') {
      throw unimplemented('Queries');
    }
    throw notFound(`Unknown route ${method} ${url.pathname}`);
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const record: RequestRecord = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        status: 0,
        ...(req.headers.authorization !== undefined && { authorization: req.headers.authorization }),
      };
      requests.push(record);
      const reply = (status: number, json?: Json) => {
        record.status = status;
        send(res, status, json);
      };
      if (options.requireAuth && !/^Bearer \S+/.test(req.headers.authorization ?? '')) {
        const err = new HttpError(
          401,
          'required',
          'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
        );
        reply(err.code, errorBody(err));
        return;
      }
      Promise.resolve()
        .then(() => fake.onRequest?.({ method: record.method, path: record.path, query: record.query }))
        .then(() => route(req, url, Buffer.concat(chunks)))
        .then(
          ({ status, json }) => reply(status, json),
          (err: unknown) => {
            const e =
              err instanceof HttpError
                ? err
                : new HttpError(500, 'internalError', `Fake BigQuery internal error: ${String(err)}`);
            reply(e.code, errorBody(e));
          },
        );
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  baseUrl = `http://127.0.0.1:${port}`;

  const fake: FakeBigQuery = {
    url: baseUrl,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
    datasets,
    tables,
    table: (p, d, t) => tables.get(tKey(p, d, t)),
    rows(p, d, t) {
      const table = tables.get(tKey(p, d, t));
      if (!table) throw new Error(`fake BigQuery: no table ${tKey(p, d, t)}`);
      return table.rows.map((row) =>
        Object.fromEntries(table.schema.map((f) => [f.name, plainCell(f, row[f.name] as Cell | undefined)])),
      );
    },
    jobs: attempts,
    job(p, jobId) {
      const job = jobs.get(`${p}:${jobId}`);
      return job ? jobResource(job) : undefined;
    },
    failNextLoad(table, message, reason = 'invalid') {
      failures.push({ table, error: { reason, message } });
    },
    requests,
    options,
  };
  return fake;
}

function isGzip(data: Buffer): boolean {
  return data.length >= 2 && data[0] === 0x1f && data[1] === 0x8b;
}

function etag(n: number): string {
  return Buffer.from(String(n)).toString('base64');
}

function errorBody(e: HttpError): Json {
  return {
    error: {
      code: e.code,
      message: e.message,
      errors: [{ message: e.message, domain: 'global', reason: e.reason }],
      status: STATUS_TEXT[e.code] ?? 'UNKNOWN',
    },
  };
}

function send(res: ServerResponse, status: number, json?: Json): void {
  if (json === undefined) {
    res.writeHead(status);
    res.end();
    return;
  }
  const text = JSON.stringify(json);
  // The client's HTTP layer parses JSON only for exactly this content type.
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}
