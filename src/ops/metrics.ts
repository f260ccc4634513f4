// What the pipeline reports for the worker's /metrics, one line at each call site. This module
// loads nothing: the Prometheus registry (./prometheus.ts) is loaded by the worker's endpoint
// only and records from then on, so `run --once`, `status` and the rest never load prom-client.
// Without an endpoint the reports go nowhere.

export interface MetricsRecorder {
  /** One HTTP exchange with the API; `error` when it failed without a status (network, timeout). */
  apiRequest(account: string, endpoint: string, status: number | 'error'): void;
  /** Time a request waited for the account's shared budget (or a pause) before it was sent. */
  budgetWaited(account: string, waitedMs: number): void;
  /** A succeeded warehouse load job. */
  rowsLoaded(table: string, rows: number): void;
  /** A run reached its terminal status. */
  runFinished(kind: string, status: string, startedAt: string | undefined, finishedAt: Date): void;
}

let recorder: MetricsRecorder | undefined;

export function setMetricsRecorder(r: MetricsRecorder | undefined): void {
  recorder = r;
}

export const metrics: MetricsRecorder = {
  apiRequest: (account, endpoint, status) => recorder?.apiRequest(account, endpoint, status),
  budgetWaited: (account, waitedMs) => recorder?.budgetWaited(account, waitedMs),
  rowsLoaded: (table, rows) => recorder?.rowsLoaded(table, rows),
  runFinished: (kind, status, startedAt, finishedAt) =>
    recorder?.runFinished(kind, status, startedAt, finishedAt),
};
