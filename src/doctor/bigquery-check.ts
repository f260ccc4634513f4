// BigQuery as a run needs it: the dataset (or the right to create it on the first load) and the
// right to create jobs, proven with a dry-run query, which BigQuery validates and prices but never
// runs or bills. The client retries nothing here: doctor reports the first answer.
import { globalAgent as httpAgent } from 'node:http';
import { globalAgent as httpsAgent } from 'node:https';
import type { BigQuery } from '@google-cloud/bigquery';
import type { BigQuerySinkConfig } from '../config/schema.js';
import { reasonOf } from '../util/errors.js';
import { createBigQuery } from '../warehouse/bigquery-client.js';
import { apiCode } from '../warehouse/errors.js';
import { type CheckResult, fail, pass, systemCode, warn } from './check.js';

type Decorated = ReturnType<NonNullable<BigQuery['interceptors'][number]['request']>>;

export const DATASET_CHECK = 'bigquery dataset';
export const JOBS_CHECK = 'bigquery jobs';

export function bigQueryClient(cfg: BigQuerySinkConfig): BigQuery {
  const bq = createBigQuery(cfg, { maxRetries: 0 });
  // Node's global agent instead of the client's private keep-alive pool (as the client does itself
  // on Cloud Functions), so releaseBigQuerySockets can reach the sockets.
  bq.interceptors.push({ request: (reqOpts) => Object.assign(reqOpts, { forever: false }) as Decorated });
  return bq;
}

/**
 * The client's HTTP layer takes no deadline or abort signal (its fetch ignores `timeout`), so a
 * server that accepts and never answers would keep its sockets, and this process, alive. After the
 * checks, the sockets still waiting on the BigQuery endpoint are closed.
 */
export function releaseBigQuerySockets(cfg: BigQuerySinkConfig): void {
  const url = new URL(cfg.apiEndpoint ?? 'https://bigquery.googleapis.com');
  const http = url.protocol === 'http:';
  const port = url.port || (http ? '80' : '443');
  const agent = http ? httpAgent : httpsAgent;
  for (const [name, sockets] of Object.entries(agent.sockets)) {
    if (name.startsWith(`${url.hostname}:${port}:`)) for (const s of sockets ?? []) s.destroy();
  }
}

export async function checkDataset(
  bq: BigQuery,
  cfg: BigQuerySinkConfig,
  check = DATASET_CHECK,
): Promise<CheckResult> {
  const name = `${cfg.projectId}:${cfg.dataset}`;
  try {
    const [meta] = await bq.dataset(cfg.dataset).getMetadata();
    const location = String(meta.location ?? '');
    if (location && location.toLowerCase() !== cfg.location.toLowerCase()) {
      return fail(
        check,
        `${name} is in location ${location}, but sinks.bigquery.location is ${cfg.location}`,
        `set sinks.bigquery.location: ${location} (load jobs run where the dataset is)`,
      );
    }
    return pass(check, `${name} exists (location ${location || cfg.location})`);
  } catch (err) {
    if (apiCode(err) === 404 && /\bdataset\b/i.test(reasonOf(err))) {
      return warn(
        check,
        `${name} does not exist yet: it will be created on first load`,
        `nothing to do if this identity may create datasets (bigquery.datasets.create); otherwise create ${cfg.dataset} in location ${cfg.location}`,
      );
    }
    return explain(check, cfg, err, 'BigQuery Data Editor on the dataset or project');
  }
}

export async function checkJobs(bq: BigQuery, cfg: BigQuerySinkConfig): Promise<CheckResult> {
  try {
    await bq.createQueryJob({ query: 'SELECT 1', dryRun: true, location: cfg.location });
    return pass(
      JOBS_CHECK,
      `a dry-run query (SELECT 1) was accepted in project ${cfg.projectId}: jobs may run there (a dry run costs nothing)`,
    );
  } catch (err) {
    return explain(
      JOBS_CHECK,
      cfg,
      err,
      `BigQuery Job User (bigquery.jobs.create) on project ${cfg.projectId}`,
    );
  }
}

function explain(check: string, cfg: BigQuerySinkConfig, err: unknown, role: string): CheckResult {
  const code = apiCode(err);
  const message = reasonOf(err);
  if (code === 403) return fail(check, `BigQuery refused: ${message}`, `grant this identity ${role}`);
  if (code === 404) return fail(check, `BigQuery: ${message}`, 'check sinks.bigquery.projectId and dataset');
  if (code === 401 || /default credentials/i.test(message)) {
    return fail(
      check,
      `BigQuery did not accept the credentials: ${message}`,
      'set GOOGLE_APPLICATION_CREDENTIALS to a service account key file, or use a workload identity',
    );
  }
  const sys = systemCode(err);
  if (sys) {
    const where = cfg.apiEndpoint ?? 'bigquery.googleapis.com';
    return fail(
      check,
      `cannot reach BigQuery at ${where} (${sys})`,
      'check sinks.bigquery.apiEndpoint, the network and any proxy',
    );
  }
  return fail(check, `BigQuery: ${message}${code ? ` (HTTP ${code})` : ''}`, 'check sinks.bigquery');
}
