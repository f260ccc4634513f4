// What the API client reports about its requests, through a hook it is given: the client sits
// below the worker's metrics (src/ops/metrics.ts implements this), so it never imports them.

export interface ApiMetrics {
  /** One HTTP exchange with the API; `error` when it failed without a status (network, timeout). */
  apiRequest(account: string, endpoint: string, status: number | 'error'): void;
  /** Time a request waited for the account's shared budget (or a pause) before it was sent. */
  budgetWaited(account: string, waitedMs: number): void;
}

/** For a client nobody counts (tests, one-off calls). */
export const noApiMetrics: ApiMetrics = {
  apiRequest: () => {},
  budgetWaited: () => {},
};
