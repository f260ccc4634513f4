// What every processor of the queued driver needs, built once per worker process
// (src/run/queued/worker.ts): the worker's Redis, queues and stores (jobs/worker-types.ts) and the
// warehouse runs load into.
import type { WorkerContext } from '../../../jobs/worker-types.js';
import type { RunLoader } from '../finish-run.js';

export interface JobContext extends WorkerContext {
  /** The account's warehouse (its own BigQuery dataset, else the configured one); none without BigQuery. */
  loaderFor(account: string): Promise<RunLoader | undefined>;
}
