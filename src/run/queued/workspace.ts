// The `workspace` job: every call of a few workspaces of a run, one workspace after another, each
// body landed as it arrives. Landed calls (and workspaces that failed for good) are written back
// into the job's data before it can run again (a retry, a budget delay) and every lockSeconds
// meanwhile, so a resumed job does not spend budget on them again (raw keys are per run and call,
// so a call repeated after a crash rewrites the same file). Each workspace ends on its own: one
// that fails for good is failed, the others of the job go on; a server error that may pass
// retries the job, which then makes only the calls that have not landed.
import type { Job } from 'bullmq';
import { UnrecoverableError } from '../../../jobs/bullmq.js';
import {
  jobPriority,
  kindOfPriority,
  WORKSPACES_AT_ONCE,
  type WorkspaceJobData,
  type WorkspaceJobResult,
  WorkspaceJobSchema,
} from '../../../jobs/definitions.js';
import { accountOf } from '../../../jobs/worker-types.js';
import { callId, type WorkspaceEndpoint } from '../../api/endpoints.js';
import { BudgetWaitTooLong, Reservation } from '../../api/rate-budget.js';
import { emptyStats, type RequestStats } from '../../api/request-stats.js';
import { deadlinePassed, deadlineReason, runDeadline } from '../../api/run-deadline.js';
import type { AccountConfig } from '../../config/schema.js';
import { callLimits, createAccountClient, extractWorkspace } from '../../extract/extract-account.js';
import { workspaceCalls } from '../../extract/plan.js';
import type { DriftEntry, WorkspaceResult } from '../../records/manifest.js';
import {
  endFailure,
  type Failure,
  failureOf,
  storedFailure,
  type WorkspaceEnd,
  workspaceOutcome,
} from '../../records/workspace-outcome.js';
import type { ObjectStore } from '../../sinks/object-store.js';
import { mapSettled } from '../../util/pool.js';
import { budgetDelayLimit, stepAsideForBudget } from './budget-delays.js';
import type { JobContext } from './context.js';

/**
 * The longest wait for budget a workspace job sits out in its worker slot (or
 * jobs.maxBudgetWaitSeconds when shorter); past it the job steps aside. Slots are shared by every
 * account of a queue: a job waiting there for its account's budget would keep another account's
 * job out, and an account paced at a few requests a second would fill them all (measured: 100
 * accounts at 2 requests/s kept 32 slots waiting and used 42% of their budgets).
 */
const START_WAIT_MS = 1000;

/** Calls settled in one script, and reserved in one once the job's first reservation is used up
 *  (a job of 40 calls: four settles). */
const BATCH = 10;

export async function processWorkspace(
  job: Job<WorkspaceJobData>,
  token: string | undefined,
  ctx: JobContext,
): Promise<WorkspaceJobResult> {
  const s = jobState(WorkspaceJobSchema.parse(job.data));
  const { data } = s;
  const start = await startOrRefuse(job, ctx, s);
  if ('end' in start) return endJob(job, ctx, s, start.end);
  const { account, startedAt } = start;

  const toCall = openWorkspaces(s).reduce(
    (n, b) => n + s.calls.filter((c) => !s.done.get(b)?.has(c)).length,
    0,
  );
  // The job's calls are reserved at once (one script), so it starts only with budget in hand and
  // rarely has to step aside mid-way (src/api/rate-budget.ts, Reservation). They are settled a
  // few at a time, so the account's next window can use them as they free, and a job that runs
  // into its window's end takes its next calls' slots as they free.
  const budget = new Reservation(ctx.budget, toCall, data.limit.windowMs, BATCH);
  const maxWaitMs = Math.min(ctx.config.jobs.maxBudgetWaitSeconds * 1000, START_WAIT_MS);
  const client = createAccountClient({
    account,
    budget,
    logger: ctx.logger.child({ account: data.account, run_id: data.runId }),
    limit: data.limit,
    stats: s.stats,
    limits: callLimits(ctx.config, startedAt),
    maxBudgetWaitMs: maxWaitMs,
  });
  const stepAside = (err: BudgetWaitTooLong) => stepAsideForJob(job, token, ctx, s, budget, err);
  // A job whose account has no budget now steps aside before its first call rather than hold a
  // worker slot waiting: slots are shared by every account of the queue. It comes back when the
  // budget should be free for it (after the jobs of its account refused before it).
  const startWait = toCall > 0 ? await budget.open(data.account, data.limit) : 0;
  if (startWait > maxWaitMs) return stepAside(new BudgetWaitTooLong(data.account, startWait));
  return extractOpenWorkspaces(job, ctx, s, { client, budget, stepAside });
}

/** What a job knows of its workspaces: the calls each needs, those landed, those failed. */
interface JobState {
  data: WorkspaceJobData;
  plan: ReturnType<typeof extractPlan>;
  calls: string[];
  done: Map<string, Set<string>>;
  /** Workspaces failed for good, with their failure (message and code). */
  failed: Map<string, Failure>;
  stats: RequestStats;
  drift: DriftEntry[];
}

function extractPlan(data: WorkspaceJobData) {
  return {
    visibilityDays: data.plan.visibilityDays,
    buyerIntentDays: data.plan.buyerIntentDays,
    endpoints: data.plan.endpoints as WorkspaceEndpoint[] | undefined,
  };
}

function jobState(data: WorkspaceJobData): JobState {
  const plan = extractPlan(data);
  return {
    data,
    plan,
    calls: workspaceCalls('', plan).map(callId),
    done: new Map(data.brandIds.map((b) => [b, new Set(data.done[b] ?? [])])),
    failed: new Map(Object.entries(data.failed).map(([b, f]) => [b, storedFailure(f)])),
    stats: emptyStats(),
    drift: [],
  };
}

const landedAll = (s: JobState, brandId: string) => s.calls.every((c) => s.done.get(brandId)?.has(c));

/** Workspaces this attempt has still to work on: neither finished nor failed for good. */
const openWorkspaces = (s: JobState) => s.data.brandIds.filter((b) => !s.failed.has(b) && !landedAll(s, b));

const progress = (s: JobState) => ({
  done: Object.fromEntries([...s.done].map(([b, ids]) => [b, [...ids]])),
  failed: Object.fromEntries(s.failed),
});

const outcomes = (s: JobState) =>
  s.data.brandIds
    .filter((b) => s.failed.has(b) || landedAll(s, b))
    .map((workspace) => ({ workspace, failed: s.failed.has(workspace) }));

/**
 * The job is over: each workspace has its outcome (those still open end with `end`), by the one
 * rule of both drivers (src/records/workspace-outcome.ts). The ledger gets them and the requests in
 * one script. A job none of whose workspaces succeeded, all for one reason, fails as a job (as a
 * job of one workspace did), its workspaces' failures and codes kept in its data for the
 * workspaces-done job (workspace-results.ts); otherwise it returns each workspace's result for it.
 */
async function endJob(
  job: Job<WorkspaceJobData>,
  ctx: JobContext,
  s: JobState,
  end?: WorkspaceEnd,
): Promise<WorkspaceJobResult> {
  const { data, failed } = s;
  if (end !== undefined) for (const b of openWorkspaces(s)) failed.set(b, endFailure(end));
  await ctx.ledger.workspacesFinished(data.runId, outcomes(s), s.stats);
  const workspaces: WorkspaceResult[] = data.brandIds.map((brand_id) => {
    const failure = failed.get(brand_id);
    return workspaceOutcome(brand_id, failure && { failure });
  });
  const reasons = new Set([...failed.values()].map((f) => f.error));
  if (failed.size === data.brandIds.length && reasons.size === 1) {
    await job.updateData({ ...s.data, ...progress(s) });
    throw new UnrecoverableError([...reasons][0] as string);
  }
  for (const [brand_id, f] of failed)
    ctx.logger.warn(
      { account: data.account, run_id: data.runId, brand_id, err: f.error, code: f.error_code },
      'workspace failed',
    );
  return { workspaces, drift: s.drift };
}

/** The account and run start to work with, or why the job's open workspaces fail unattempted. */
async function startOrRefuse(
  job: Job<WorkspaceJobData>,
  ctx: JobContext,
  { data }: JobState,
): Promise<{ end: WorkspaceEnd } | { account: AccountConfig; startedAt: Date | string }> {
  const run = await ctx.ledger.progressOf(data.runId);
  if (run.stopped) return { end: { halted: run.stopped, attempted: false } };
  const account = accountOf(ctx, data.account);
  if (!account)
    return {
      end: {
        failure: { error: `account ${data.account} is not in this worker's config`, error_code: 'internal' },
      },
    };
  // Budget delays (a long Retry-After, a 429 on every call) end here at the latest.
  const startedAt = run.started_at ?? new Date(job.timestamp);
  const deadline = runDeadline(startedAt, ctx.config.jobs.maxRunHours);
  if (deadlinePassed(deadline))
    return { end: { failure: { error: deadlineReason(deadline), error_code: 'deadline_passed' } } };
  return { account, startedAt };
}

/** No budget soon: the job frees its slot and comes back later, its progress kept. */
async function stepAsideForJob(
  job: Job<WorkspaceJobData>,
  token: string | undefined,
  ctx: JobContext,
  s: JobState,
  budget: Reservation,
  err: BudgetWaitTooLong,
): Promise<WorkspaceJobResult> {
  await budget.flush();
  // Workspaces finished so far count now; the rest when the job comes back.
  await ctx.ledger.workspacesFinished(s.data.runId, outcomes(s), s.stats);
  // Comes back ahead of new work: its account's window has freed by then (kind order kept).
  const kind = kindOfPriority(job.opts.priority ?? 0);
  const resumed = kind ? jobPriority(kind, 'resumed') : undefined;
  const limit = budgetDelayLimit(ctx.config.jobs);
  const reason = await stepAsideForBudget(job, token, err, limit, progress(s), resumed);
  s.stats.calls = s.stats.rate_limited = s.stats.retries = s.stats.waited_ms = 0;
  return endJob(job, ctx, s, { failure: { error: reason, error_code: 'budget_wait' } });
}

/**
 * Landed calls go into the job's data when the job may run again (a step aside, a retry) and at
 * most every lockSeconds meanwhile (a crash then repeats at most that much), not per call.
 */
function progressSaver(job: Job<WorkspaceJobData>, ctx: JobContext, s: JobState) {
  let savedAt = Date.now();
  let unsaved = false;
  const save = async () => {
    savedAt = Date.now();
    if (!unsaved) return;
    unsaved = false;
    await job.updateData({ ...s.data, ...progress(s) });
  };
  return {
    save,
    changed: () => {
      unsaved = true;
    },
    saveIfDue: async () => {
      if (Date.now() - savedAt >= ctx.config.jobs.lockSeconds * 1000) await save();
    },
  };
}

interface Extraction {
  client: ReturnType<typeof createAccountClient>;
  budget: Reservation;
  stepAside: (err: BudgetWaitTooLong) => Promise<WorkspaceJobResult>;
}

/**
 * The open workspaces extracted together, WORKSPACES_AT_ONCE at a time, their landed calls saved as
 * they land; the first one that stops the account (or throws) halts the others before their next call.
 */
async function extractTogether(
  s: JobState,
  open: string[],
  client: Extraction['client'],
  store: ObjectStore,
  saver: ReturnType<typeof progressSaver>,
) {
  const { data } = s;
  let halted = false;
  return mapSettled(open, WORKSPACES_AT_ONCE, async (brandId) => {
    const landed = s.done.get(brandId) as Set<string>;
    try {
      const ws = await extractWorkspace({
        client,
        run: { account: data.account, runId: data.runId, runDate: data.runDate },
        store,
        plan: s.plan,
        brandId,
        skip: landed,
        halted: () => halted,
        onLanded: async (id) => {
          landed.add(id);
          saver.changed();
          await saver.saveIfDue();
        },
      });
      if (ws.stop) halted = true;
      return ws;
    } catch (err) {
      halted = true;
      throw err;
    }
  });
}

/**
 * A job's workspaces at once (at most WORKSPACES_AT_ONCE), each one's calls in turn: an account's
 * calls then come in a short burst even when it has few worker slots (the sliding window only
 * lets its next window's calls go as its first ones age out, so a slow burst stretches the whole
 * run). Once all have had a go, in this order: a call that stopped the account ends the job; no
 * budget soon steps it aside; another failure retries it (or, on its last attempt, fails what is
 * open); failures that may pass retry it for those workspaces. A workspace that has to stop
 * halts the others before their next call: their calls not made stay open for the next try.
 */
async function extractOpenWorkspaces(
  job: Job<WorkspaceJobData>,
  ctx: JobContext,
  s: JobState,
  { client, budget, stepAside }: Extraction,
): Promise<WorkspaceJobResult> {
  const { data, failed } = s;
  const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
  const saver = progressSaver(job, ctx, s);
  const open = openWorkspaces(s);
  const settled = await extractTogether(s, open, client, await ctx.storeFor(data.account), saver);
  await budget.flush();
  // Each workspace that ended with its outcome, paired with its id (a rejected one threw).
  const ended = settled.flatMap((r, i) =>
    r.status === 'fulfilled' ? [{ brandId: open[i] as string, ws: r.value }] : [],
  );
  for (const { ws } of ended) s.drift.push(...ws.drift);

  const stopped = ended.find(({ ws }) => ws.stop);
  if (stopped?.ws.stop) {
    const stop = failureOf(stopped.ws.stop);
    await ctx.ledger.stop(data.runId, stop.error, stop.error_code);
    // Cut short by its own call, as inline: the run records the stop's code, the workspace not_completed.
    failed.set(stopped.brandId, endFailure({ halted: stop, attempted: true }));
    return endJob(job, ctx, s, { halted: stop, attempted: false });
  }
  const errors = settled.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  // No budget soon (the account is paused or saturated): free this worker slot for other
  // accounts and come back later, without spending a retry attempt; a bounded number of times.
  const noBudget = errors.find((e) => e instanceof BudgetWaitTooLong);
  if (noBudget) return stepAside(noBudget);
  if (errors.length) {
    if (final) return endJob(job, ctx, s, { error: errors[0] });
    await ctx.ledger.workspacesFinished(data.runId, outcomes(s), s.stats);
    await saver.save();
    throw errors[0];
  }
  /** Workspaces whose failures may pass (server trouble): the job is retried for them. */
  const retry: string[] = [];
  for (const { brandId, ws } of ended) {
    if (!ws.failures.length) continue;
    const message = ws.failures.map((e) => e.message).join('; ');
    // Server trouble may pass: the job is retried for the calls that failed (landed ones skipped).
    if (!final && ws.failures.every((e) => e.retryable)) retry.push(message);
    else {
      // The first failed call's class gives the workspace its code, as inline.
      failed.set(brandId, failureOf(new AggregateError(ws.failures, message)));
      saver.changed();
    }
  }
  if (retry.length) {
    await ctx.ledger.workspacesFinished(data.runId, outcomes(s), s.stats);
    await saver.save();
    throw new Error(retry.join('; '));
  }
  return endJob(job, ctx, s);
}
