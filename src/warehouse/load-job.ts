// One batch load job per table per run. The job id is derived from account, run and table, so a
// load retried after a crash (or by replay) collides with the first one (409 Already Exists) and we
// read that job's outcome instead of appending the same rows twice. A table whose rows for a run
// change between loads (`sync_runs`: a new row each time the run is recorded) passes `recording`,
// which the job id also carries: a new recording is a new job, a retried one still finds its job.
// Load jobs only: no streaming inserts, no DML.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { createGunzip } from 'node:zlib';
import type { BigQuery, Job, JobLoadMetadata, JobMetadata, Table } from '@google-cloud/bigquery';
import type { TableDef } from '../catalogue/types.js';
import type { LoadResult } from '../records/manifest.js';
import { errorMessage } from '../util/errors.js';
import { isAlreadyExists, isTransient } from './errors.js';
import { tableFields } from './schema.js';

export type { LoadResult };

export interface LoadOptions {
  /** First wait between jobs.get polls; grows by half each time up to `maxPollIntervalMs`. */
  pollIntervalMs?: number;
  maxPollIntervalMs?: number;
  /** Give up waiting (the job keeps running; a later load of the run finds it through its id). */
  timeoutMs?: number;
  /** Job ids tried per call (`_a2`, `_a3`, ... after failed jobs). */
  maxAttempts?: number;
  /** Re-sends of one upload after a throttled or dropped request, with the same job id. */
  uploadRetries?: number;
  retryDelayMs?: number;
}

export interface LoadTableArgs {
  bq: BigQuery;
  dataset: string;
  table: TableDef;
  account: string;
  runId: string;
  /** Local path of a gzipped NDJSON file holding all of this run's rows of the table. */
  file: string;
  /** Names these rows when a run's rows of the table differ between loads (see the header). */
  recording?: string | undefined;
  /** The job id of each attempt, instead of one derived from account, run and table (batches). */
  jobIdOf?: ((attempt: number) => string) | undefined;
  location: string;
  options?: LoadOptions;
}

const DEFAULTS: Required<LoadOptions> = {
  pollIntervalMs: 1000,
  maxPollIntervalMs: 10_000,
  timeoutMs: 30 * 60_000,
  maxAttempts: 10,
  uploadRetries: 3,
  retryDelayMs: 1000,
};

// Job failures worth a fresh attempt straight away; anything else is about the data or schema.
const TRANSIENT_JOB_REASONS = new Set([
  'backendError',
  'internalError',
  'rateLimitExceeded',
  'jobBackendError',
]);
const ERRORS_SHOWN = 3;
const MAX_BASE_LENGTH = 900;

/**
 * `visync_{account}_{runId}_{table}[_{content}]` with every character outside `[A-Za-z0-9_-]`
 * replaced; when that changed anything (or the id had to be shortened) a hash of the exact inputs
 * keeps distinct inputs apart. `content` (a digest of the rows) is given for tables of the sync
 * itself only. Attempt 2 and later get `_a{n}`.
 */
export function loadJobId(
  account: string,
  runId: string,
  table: string,
  attempt = 1,
  content?: string,
): string {
  const raw = `visync_${account}_${runId}_${table}${content === undefined ? '' : `_${content}`}`;
  return safeJobId(
    raw,
    content === undefined ? [account, runId, table] : [account, runId, table, content],
    attempt,
  );
}

/**
 * The job of one table of a load batch (runs of several accounts, one upload):
 * `visync_batch_{dataset}_{batchId}_{table}`. A batch retried after a crash gets the same id, and
 * so the first job's outcome (409) instead of a second append.
 */
export function loadBatchJobId(dataset: string, batchId: string, table: string, attempt = 1): string {
  return safeJobId(
    `visync_batch_${dataset}_${batchId}_${table}`,
    ['batch', dataset, batchId, table],
    attempt,
  );
}

function safeJobId(raw: string, inputs: string[], attempt: number): string {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be >= 1, got ${attempt}`);
  let id = raw.replace(/[^A-Za-z0-9_-]/g, '_');
  if (id !== raw || id.length > MAX_BASE_LENGTH) {
    const digest = createHash('sha256').update(JSON.stringify(inputs)).digest('hex');
    id = `${id.slice(0, MAX_BASE_LENGTH)}_${digest.slice(0, 12)}`;
  }
  return attempt === 1 ? id : `${id}_a${attempt}`;
}

export async function loadTable(args: LoadTableArgs): Promise<LoadResult> {
  const { bq, dataset, table, account, runId, file, location } = args;
  const o = { ...DEFAULTS, ...args.options };
  // A missing file is a pipeline bug, and the client would never report it (the upload just hangs).
  await stat(file);
  const target = bq.dataset(dataset, { location }).table(table.name, { location });
  const result = (job_id: string, meta: JobMetadata | undefined, error?: string): LoadResult =>
    error === undefined
      ? { table: table.name, job_id, status: 'succeeded', rows: outputRows(meta) }
      : { table: table.name, job_id, status: 'failed', rows: 0, error, error_code: 'load_failed' };

  const content = args.recording;
  const jobIdOf = args.jobIdOf ?? ((n: number) => loadJobId(account, runId, table.name, n, content));
  let lastJobId = jobIdOf(1);
  let lastError = '';
  for (let attempt = 1; attempt <= o.maxAttempts; attempt++) {
    const jobId = jobIdOf(attempt);
    lastJobId = jobId;
    const submitted = await submit(target, file, readConfig(table, jobId), o);
    if (submitted.kind === 'error') return result(jobId, undefined, submitted.message);

    let job: Job;
    let meta: JobMetadata;
    if (submitted.kind === 'created') {
      job = submitted.job;
      meta = job.metadata as JobMetadata;
    } else {
      // The id is taken: an earlier try of this very load (crash, retry, replay) or, in theory,
      // someone else's job. Read it and decide.
      job = bq.job(jobId, { location });
      try {
        [meta] = await job.getMetadata();
      } catch (err) {
        return result(
          jobId,
          undefined,
          `job ${jobId} already exists but could not be read: ${errorMessage(err)}`,
        );
      }
      if (!loadsInto(meta, bq.projectId, dataset, table.name)) {
        lastError = `job id ${jobId} is taken by a job that does not load ${dataset}.${table.name}`;
        continue;
      }
    }

    const done = await waitForJob(job, meta, o);
    if (typeof done === 'string') return result(jobId, undefined, done);
    const failure = errorText(done);
    if (failure === undefined && submitted.kind === 'exists') {
      // Our id, but maybe not our rows: another process loaded this run's table from what had
      // landed by then (a run taken for crashed while it worked). Its job is ours only if it
      // loaded every row we would; otherwise the table is short and must say so, not succeed.
      const ours = await countRows(file);
      if (outputRows(done) !== ours)
        return result(
          jobId,
          undefined,
          `job ${jobId} was already there with ${outputRows(done)} rows of ${table.name}, this run has ${ours}: ` +
            `BigQuery holds another load of this run's ${table.name}, not loaded again so that no row is appended twice`,
        );
    }
    if (failure === undefined) return result(jobId, done);
    lastError = failure;
    const reason = done.status?.errorResult?.reason ?? '';
    // A job of ours that failed on its data is reported; an older attempt found failed, or a
    // backend hiccup, is followed by a fresh attempt under the next id.
    if (submitted.kind === 'created' && !TRANSIENT_JOB_REASONS.has(reason))
      return result(jobId, undefined, failure);
    if (submitted.kind === 'created') await sleep(o.retryDelayMs);
  }
  return result(lastJobId, undefined, `gave up after ${o.maxAttempts} job ids: ${lastError}`);
}

function readConfig(table: TableDef, jobId: string): JobLoadMetadata {
  return {
    jobId,
    sourceFormat: 'NEWLINE_DELIMITED_JSON',
    writeDisposition: 'WRITE_APPEND',
    // ensureTables created the table with partitioning and clustering; a load must not create a bare one.
    createDisposition: 'CREATE_NEVER',
    schema: { fields: tableFields(table) },
    schemaUpdateOptions: ['ALLOW_FIELD_ADDITION'],
    // Rows are written from the same catalogue; an unknown or bad value is a bug to surface, not skip.
    ignoreUnknownValues: false,
    maxBadRecords: 0,
  };
}

type Submitted = { kind: 'created'; job: Job } | { kind: 'exists' } | { kind: 'error'; message: string };

async function submit(
  target: Table,
  file: string,
  config: JobLoadMetadata,
  o: Required<LoadOptions>,
): Promise<Submitted> {
  for (let retry = 0; ; retry++) {
    try {
      // The client mutates the metadata it is given, so each try gets its own copy.
      const [job] = await target.createLoadJob(file, structuredClone(config));
      return { kind: 'created', job };
    } catch (err) {
      if (isAlreadyExists(err)) return { kind: 'exists' };
      // Resending is safe: if the first upload did create the job, the resend gets a 409.
      if (isTransient(err) && retry < o.uploadRetries) {
        await sleep(o.retryDelayMs * 2 ** retry);
        continue;
      }
      return { kind: 'error', message: `load job ${config.jobId} was not accepted: ${errorMessage(err)}` };
    }
  }
}

/** The job's final metadata, or why we stopped waiting. */
async function waitForJob(
  job: Job,
  first: JobMetadata,
  o: Required<LoadOptions>,
): Promise<JobMetadata | string> {
  let meta = first;
  let interval = o.pollIntervalMs;
  const deadline = Date.now() + o.timeoutMs;
  while (meta.status?.state !== 'DONE') {
    if (Date.now() >= deadline) {
      return `job ${job.id} still ${meta.status?.state ?? 'pending'} after ${Math.round(o.timeoutMs / 1000)} s; a later load of this run will pick up its result`;
    }
    await sleep(interval);
    interval = Math.min(o.maxPollIntervalMs, Math.round(interval * 1.5));
    try {
      [meta] = await job.getMetadata();
    } catch (err) {
      return `lost track of job ${job.id}: ${errorMessage(err)}; a later load of this run will pick up its result`;
    }
  }
  return meta;
}

function loadsInto(
  meta: JobMetadata,
  projectId: string | undefined,
  dataset: string,
  table: string,
): boolean {
  const dest = meta.configuration?.load?.destinationTable;
  return (
    !!dest &&
    dest.datasetId === dataset &&
    dest.tableId === table &&
    (!projectId || dest.projectId === projectId)
  );
}

/** BigQuery's own words: the errorResult, then the first few distinct errors[]. */
function errorText(meta: JobMetadata): string | undefined {
  const status = meta.status;
  if (!status?.errorResult) return undefined;
  const head = status.errorResult.message ?? status.errorResult.reason ?? 'load job failed';
  const details = [
    ...new Set((status.errors ?? []).map((e) => e.message ?? '').filter((m) => m && m !== head)),
  ];
  const shown = details.slice(0, ERRORS_SHOWN);
  const rest = details.length - shown.length;
  return [head, ...shown].join(' | ') + (rest > 0 ? ` | (${rest} more errors)` : '');
}

/** Rows of a gzipped NDJSON file: its lines (a last line without a newline counts too). */
async function countRows(file: string): Promise<number> {
  let lines = 0;
  let last = 0x0a;
  for await (const chunk of createReadStream(file).pipe(createGunzip()) as AsyncIterable<Buffer>) {
    for (const byte of chunk) if (byte === 0x0a) lines++;
    if (chunk.length) last = chunk[chunk.length - 1]!;
  }
  return last === 0x0a ? lines : lines + 1;
}

function outputRows(meta: JobMetadata | undefined): number {
  return Number(meta?.statistics?.load?.outputRows ?? 0);
}
