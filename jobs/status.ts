// What `visync status` shows, read from Redis only (no worker needs to run).
import type { Redis } from 'ioredis';
import { initialLimit } from '../src/api/account-source.js';
import type { Config } from '../src/config/schema.js';
import { lastSucceededRun } from '../src/records/history.js';
import type { Manifest } from '../src/records/manifest.js';
import { isFinishedStatus, withCurrentPhase } from '../src/records/run-state.js';
import type { ObjectStore } from '../src/sinks/object-store.js';
import type { Queue } from './bullmq.js';
import { type ReloadFailure, readReloadFailure } from './config-reload.js';
import { FINISH_QUEUE, finishQueue } from './finish-queue.js';
import type { LedgerRun, RunLedger } from './ledger.js';
import { LoadBatches } from './load-batches.js';
import type { AccountQueues } from './queues.js';
import { peekBudget } from './redis-rate-budget.js';
import {
  confirmOpenReports,
  type OpenReport,
  type ReviewedReport,
  readOpenReports,
  readReviewedReports,
  readToDateReports,
  type ToDateReport,
} from './report-index.js';
import { REPORT_QUEUE, reportQueue } from './report-queue.js';
import { schedulerId } from './schedules.js';

const COUNTS = [
  'waiting',
  'prioritized',
  'active',
  'delayed',
  'waiting-children',
  'completed',
  'failed',
] as const;

/** A failed or partial run and why: each failed workspace or load, or the account's stop reason. */
export type FailedRun = LedgerRun & { reasons: string[] };

export interface AccountStatus {
  account: string;
  last_success?: LedgerRun;
  running: LedgerRun[];
  failed: FailedRun[];
  next_nightly?: string;
  budget: { in_window: number; limit: number; paused_for_ms: number };
  /** Scheduled reports that need a person: stale, draft or failed (jobs/report-index.ts). */
  reports: OpenReport[];
  /** To-date reports sent by hand whose final report is still to follow (jobs/report-index.ts). */
  reports_to_date?: ToDateReport[];
  /** Reports held or approved on the review page: who and when (jobs/review-page.ts). */
  reports_reviewed?: ReviewedReport[];
}

export interface StatusReport {
  /** A worker refused (or could not apply) an edited config and runs the previous one. */
  config_reload_failed?: ReloadFailure;
  accounts: AccountStatus[];
  /** Totals over the queues (accounts share them: jobs/queues.ts), counted once each. */
  queue: Record<string, number>;
  /** The finish queue (jobs/finish-queue.ts): the runs' finish jobs and the load batches. */
  finish_queue: { queue_name: string; queue: Record<string, number> };
  /** The runs ready for a load batch not yet claimed; `queue_name` and `queue` repeat finish_queue's
   *  (what clients read before finish_queue; docs/cli-json.md). */
  load_batches: { queue_name: string; queue: Record<string, number>; runs_waiting: number };
  /** The scheduled reports' queue (jobs/report-queue.ts): a delivery waiting on a server shows here. */
  report_queue: { queue_name: string; queue: Record<string, number> };
}

export async function readStatus(o: {
  queues: AccountQueues;
  ledger: RunLedger;
  redis: Redis;
  config: Config;
  /** Why a run went wrong (default: the ledger's error); the command reads the manifests. */
  reasonsOf?: (r: LedgerRun) => Promise<string[]>;
  /** Only these accounts (default all of the config's). */
  accounts?: readonly string[];
  /** The account's object store: its scheduled reports' records confirm what the Redis index says. */
  storeFor?: (account: string) => Promise<ObjectStore>;
}): Promise<StatusReport> {
  const reasonsOf = o.reasonsOf ?? (async (r: LedgerRun) => (r.error ? [r.error] : []));
  const accounts: AccountStatus[] = [];
  const storeFor = o.storeFor;
  for (const a of o.config.accounts) {
    if (o.accounts?.length && !o.accounts.includes(a.name)) continue;
    const queue = o.queues.for(a.name);
    const recent = (await o.ledger.recent(a.name, 50)).map(withCurrentPhase);
    const scheduler = await queue.getJobScheduler(schedulerId(a.name));
    const limit = initialLimit(a);
    const budget = await peekBudget(o.redis, o.config.redis.prefix, a.name, limit);
    const lastSuccess = await lastSuccessOf(o, a.name);
    const last = lastSuccess && withCurrentPhase(lastSuccess);
    accounts.push({
      account: a.name,
      // Printed, or served as JSON (an undefined key is left out), never tested with `in`.
      last_success: last,
      running: recent.filter((r) => !isFinishedStatus(r.status)),
      failed: await Promise.all(
        recent
          .filter((r) => r.status === 'failed' || r.status === 'partial')
          .slice(0, 5)
          .map(async (r) => ({ ...r, reasons: await reasonsOf(r) })),
      ),
      next_nightly: scheduler?.next ? new Date(scheduler.next).toISOString() : undefined,
      budget: { in_window: budget.inWindow, limit: limit.requests, paused_for_ms: budget.pausedForMs },
      reports: await openReports(o, a.name),
      reports_to_date: await readToDateReports(o.redis, o.config.redis.prefix, a.name),
      reports_reviewed: await readReviewedReports(
        o.redis,
        o.config.redis.prefix,
        a.name,
        storeFor && (() => storeFor(a.name)),
      ),
    });
  }
  const queue = await countJobs(o.queues.all());
  // Apart from the runs' queues: a run's finish and a load batch are not a run extracting, and a
  // failed batch is news of its own.
  const finishes = finishQueue(o.redis, o.config.redis.prefix);
  const reports = reportQueue(o.redis, o.config.redis.prefix);
  try {
    const [finishJobs, runsWaiting, reportJobs] = await Promise.all([
      countJobs([finishes]),
      new LoadBatches(o.redis, o.config.redis.prefix).waitingRuns(),
      countJobs([reports]),
    ]);
    return {
      config_reload_failed: await readReloadFailure(o.redis, o.config.redis.prefix),
      accounts,
      queue,
      finish_queue: { queue_name: FINISH_QUEUE, queue: finishJobs },
      // queue_name and queue: the finish queue again, under the name clients read before it had its own.
      load_batches: { queue_name: FINISH_QUEUE, queue: finishJobs, runs_waiting: runsWaiting },
      report_queue: { queue_name: REPORT_QUEUE, queue: reportJobs },
    };
  } finally {
    await Promise.all([finishes.close(), reports.close()]);
  }
}

/**
 * The account's last success: the ledger's mark, or a newer run its manifest records by the same
 * rule (src/records/history.ts): a `run --once` made without Redis (before redis.url was set, or
 * after Redis lost its data) is in the manifests only. Read from the ledger's mark on, so a status
 * reads the manifests of the runs since, not the account's whole history (all of it only when the
 * ledger has no mark).
 */
async function lastSuccessOf(
  o: { ledger: RunLedger; storeFor?: (account: string) => Promise<ObjectStore> },
  account: string,
): Promise<LedgerRun | undefined> {
  const ledger = await o.ledger.lastSuccess(account);
  if (!o.storeFor) return ledger;
  const m = await lastSucceededRun(await o.storeFor(account), account, undefined, ledger);
  return m ? manifestRun(m) : ledger;
}

/** A run its manifest records, in the ledger's shape (`from: 'manifest'` says where it was read). */
function manifestRun(m: Manifest): LedgerRun {
  return {
    run_id: m.run_id,
    account: m.account,
    kind: m.kind,
    status: m.status,
    run_date: m.run_date,
    created_at: m.started_at,
    started_at: m.started_at,
    finished_at: m.finished_at,
    visibility_days: m.window.visibility_days,
    window_from: m.window.from,
    window_to: m.window.to,
    workspaces_total: m.workspaces.length,
    workspaces_done: m.workspaces.length,
    workspaces_failed: m.workspaces.filter((w) => w.status === 'failed').length,
    ...m.requests,
    from: 'manifest',
  };
}

/** Job counts by state, summed over the queues. */
async function countJobs(queues: Queue[]): Promise<Record<string, number>> {
  const total: Record<string, number> = Object.fromEntries(COUNTS.map((c) => [c, 0]));
  for (const counts of await Promise.all(queues.map((q) => q.getJobCounts(...COUNTS))))
    for (const c of COUNTS) total[c] = (total[c] ?? 0) + (counts[c] ?? 0);
  return total;
}

async function openReports(
  o: { redis: Redis; config: Config; storeFor?: (account: string) => Promise<ObjectStore> },
  account: string,
): Promise<OpenReport[]> {
  const open = await readOpenReports(o.redis, o.config.redis.prefix, account);
  return open.length && o.storeFor ? confirmOpenReports(await o.storeFor(account), account, open) : open;
}
