// A table's load in a load batch (src/run/load-batch.ts): one BigQuery job for the rows of several
// runs. The batch keeps each in Redis (jobs/load-batches.ts) as it ends, so a retried batch does
// not load a table twice, and each run's record takes its own rows from it.

/** A table's job in the batch and what each run put into it. */
export interface BatchTableLoad {
  job_id: string;
  status: 'succeeded' | 'failed';
  rows: number;
  error?: string;
  /** Rows of each run in the upload. */
  runs: Record<string, number>;
  /** Runs left out of the upload, and why (a part that could not be read). */
  left_out: Record<string, string>;
}
