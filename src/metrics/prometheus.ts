// Every visync_ metric, in one prom-client registry per process, loaded only by the worker's
// endpoint (the call sites report through ./recorder.ts, which loads nothing). The counters
// and the run histogram count what this process did: Prometheus scrapes each worker, and a fleet's
// total is the sum over its workers (each request, load and run is counted by the one process
// that made it). The gauges of the deployment (queue jobs, last success) are read from Redis at
// scrape time, so every worker reports the same, current values whichever of them ran the work;
// take `max` over instances of those, never `sum`.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { setMetricsRecorder } from './recorder.js';

export const registry = new Registry();

const apiRequests = new Counter({
  name: 'visync_api_requests_total',
  help: 'HTTP requests made to the AI-visibility API, by account, endpoint and HTTP status ("error" when no answer came)',
  labelNames: ['account', 'endpoint', 'status'] as const,
  registers: [registry],
});

const rateLimited = new Counter({
  name: 'visync_rate_limited_total',
  help: 'Requests the API answered with 429 (rate limited), by account',
  labelNames: ['account'] as const,
  registers: [registry],
});

const budgetWait = new Counter({
  name: 'visync_budget_wait_seconds_total',
  help: "Seconds requests waited for the account's shared request budget before being sent",
  labelNames: ['account'] as const,
  registers: [registry],
});

const runDuration = new Histogram({
  name: 'visync_run_duration_seconds',
  help: 'Time from the start of a run to its terminal status, by kind and status (observed by the worker that finished the run)',
  labelNames: ['kind', 'status'] as const,
  // Runs take from seconds (a small sync) to hours (a backfill waiting on its budget).
  buckets: [10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14_400, 28_800, 57_600, 86_400],
  registers: [registry],
});

const brandEvents = new Counter({
  name: 'visync_brand_events_total',
  help: 'Brand events (changes between complete runs) recorded by runs curated in this process, by type',
  labelNames: ['type'] as const,
  registers: [registry],
});

const rowsLoaded = new Counter({
  name: 'visync_rows_loaded_total',
  help: 'Rows loaded into the warehouse by succeeded load jobs, by table',
  labelNames: ['table'] as const,
  registers: [registry],
});

const lastSuccess = new Gauge({
  name: 'visync_last_success_timestamp_seconds',
  help: "Unix time at which the account's newest successful run finished (from the run ledger in Redis; absent until one succeeds)",
  labelNames: ['account'] as const,
  registers: [registry],
});

const queueJobs = new Gauge({
  name: 'visync_queue_jobs',
  help: "Jobs in this deployment's queues (one per account), by BullMQ state, read from Redis at scrape time",
  labelNames: ['state'] as const,
  registers: [registry],
});

const redisUp = new Gauge({
  name: 'visync_redis_up',
  help: 'Whether Redis answered while this scrape read the queue and ledger gauges (1) or not (0)',
  registers: [registry],
});

const reloadFailed = new Gauge({
  name: 'visync_config_reload_failed',
  help: "1 when this worker's last config reload failed and it runs the previous config (visync status and the log say why), else 0",
  registers: [registry],
});

const reports = new Counter({
  name: 'visync_reports_total',
  help: 'Scheduled reports that reached a delivery state in this worker: made, draft (kept for review), sent (every recipient), stale (no complete run covers the period end: not made), failed',
  labelNames: ['state'] as const,
  registers: [registry],
});

let enabled = false;
/**
 * Starts counting: the standard process and Node.js metrics (unprefixed names) and the pipeline's
 * reports from now on. Once per process; later calls do nothing.
 */
export function enableMetrics(): void {
  if (enabled) return;
  enabled = true;
  collectDefaultMetrics({ register: registry });
  reloadFailed.set(0);
  setMetricsRecorder({
    apiRequest(account, endpoint, status) {
      apiRequests.inc({ account, endpoint, status: String(status) });
      if (status === 429) rateLimited.inc({ account });
    },
    budgetWaited(account, waitedMs) {
      if (waitedMs > 0) budgetWait.inc({ account }, waitedMs / 1000);
    },
    rowsLoaded(table, rows) {
      rowsLoaded.inc({ table }, rows);
    },
    brandEvents(type, count) {
      brandEvents.inc({ type }, count);
    },
    runFinished(kind, status, startedAt, finishedAt) {
      // A run that never started has no duration.
      const started = startedAt ? Date.parse(startedAt) : Number.NaN;
      if (Number.isNaN(started)) return;
      runDuration.observe({ kind, status }, Math.max(0, (finishedAt.getTime() - started) / 1000));
    },
    configReloadFailed(failed) {
      reloadFailed.set(failed ? 1 : 0);
    },
    reportDelivery(state) {
      reports.inc({ state });
    },
  });
}

/** What the deployment looks like in Redis at the moment of a scrape. */
export interface DeploymentSnapshot {
  /** Jobs by state, summed over every queue of the deployment. */
  queueJobs: { state: string; count: number }[];
  lastSuccess: { account: string; finishedAt: Date }[];
}

/**
 * The Prometheus text of the registry, with the deployment gauges set from `snapshot`, or left
 * out (and visync_redis_up 0) when Redis could not be read.
 */
export async function metricsText(snapshot: DeploymentSnapshot | undefined): Promise<string> {
  queueJobs.reset();
  lastSuccess.reset();
  redisUp.set(snapshot ? 1 : 0);
  for (const q of snapshot?.queueJobs ?? []) queueJobs.set({ state: q.state }, q.count);
  for (const s of snapshot?.lastSuccess ?? [])
    lastSuccess.set({ account: s.account }, s.finishedAt.getTime() / 1000);
  return registry.metrics();
}

export const METRICS_CONTENT_TYPE = registry.contentType;
