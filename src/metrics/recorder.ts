// What the pipeline reports for the worker's /metrics, one line at each call site: a hook at the
// bottom of the layers, so any stage (the API client, extract, the run, the report) reports without
// importing the worker. This module loads nothing: the Prometheus registry (./prometheus.ts) is
// loaded for the worker's endpoint only, so `run --once`, `status` and the rest never load
// prom-client. Without an endpoint the reports go nowhere.

/** What the API client reports about its requests, through the hook it is given. */
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

// The API client's part (requests, budget waits) is the hook src/extract/extract-account.ts gives
// every client it makes.
export interface MetricsRecorder extends ApiMetrics {
  /** A succeeded warehouse load job. */
  rowsLoaded(table: string, rows: number): void;
  /** A run reached its terminal status. */
  runFinished(kind: string, status: string, startedAt: string | undefined, finishedAt: Date): void;
  /** Brand events a run's curate stage recorded, per event type (src/events/curate.ts). */
  brandEvents(type: string, count: number): void;
  /** This worker's last config reload failed (it runs the previous config), or succeeded again. */
  configReloadFailed(failed: boolean): void;
  /** A scheduled report reached a delivery state (src/delivery/scheduled/records.ts): made, draft, sent, stale, failed. */
  reportDelivery(state: string): void;
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
  brandEvents: (type, count) => recorder?.brandEvents(type, count),
  configReloadFailed: (failed) => recorder?.configReloadFailed(failed),
  reportDelivery: (state) => recorder?.reportDelivery(state),
};

type Report = {
  [K in keyof MetricsRecorder]: [K, Parameters<MetricsRecorder[K]>];
}[keyof MetricsRecorder];

/**
 * Counts from now on through the recorder that `load` installs, loaded with the first report or the
 * first call of the returned function (a scrape), whichever comes first: a worker that has neither
 * run a job nor been scraped has not paid for it. Reports made while it loads are kept and passed
 * on in order, so none is lost. A failed load drops them and is tried again by the next call.
 */
export function recordLazily<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Report[] = [];
  let loading: Promise<T> | undefined;
  const ensure = (): Promise<T> => {
    loading ??= load().then(
      (loaded) => {
        const kept = pending;
        pending = [];
        const target = recorder;
        if (target && target !== buffer) {
          for (const [name, args] of kept) (target[name] as (...a: typeof args) => void)(...args);
        }
        return loaded;
      },
      (err: unknown) => {
        loading = undefined;
        pending = [];
        throw err;
      },
    );
    return loading;
  };
  const keep = (report: Report) => {
    pending.push(report);
    // A failed load surfaces at the next scrape.
    ensure().catch(() => {});
  };
  const buffer: MetricsRecorder = {
    apiRequest: (...args) => keep(['apiRequest', args]),
    budgetWaited: (...args) => keep(['budgetWaited', args]),
    rowsLoaded: (...args) => keep(['rowsLoaded', args]),
    runFinished: (...args) => keep(['runFinished', args]),
    brandEvents: (...args) => keep(['brandEvents', args]),
    configReloadFailed: (...args) => keep(['configReloadFailed', args]),
    reportDelivery: (...args) => keep(['reportDelivery', args]),
  };
  // An endpoint started earlier in this process may have installed the registry already.
  recorder ??= buffer;
  return ensure;
}
