// Extract + land for one account run, in three reusable pieces: the account's client, discovery
// (/me, /brands), and one workspace's calls. `run --once` composes them in one process; the jobs
// layer runs discovery and each workspace as separate jobs. A workspace that fails is recorded
// and the others go on; a bad key or plan stops the whole account at once (no retry storm).
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { announcedRequestLimit, reportedUsage } from '../api/account-info.js';
import { type AccountSource, initialLimit } from '../api/account-source.js';
import { ApiClient, type ApiResponse, type CallLimits, type RetryPolicy } from '../api/client.js';
import { brandsCall, callId, meCall } from '../api/endpoints.js';
import { ApiError } from '../api/errors.js';
import type { HttpTimeouts } from '../api/http-pools.js';
import { maxPauseMs } from '../api/pause-cap.js';
import type { RateBudget, RateLimit } from '../api/rate-budget.js';
import { emptyStats, type RequestStats } from '../api/request-stats.js';
import { runDeadline } from '../api/run-deadline.js';
import type { Config } from '../config/schema.js';
import { landRaw } from '../land/raw.js';
import { metrics } from '../metrics/recorder.js';
import { DriftReport } from '../normalise/drift.js';
import { ClockAheadError, clockAhead } from '../records/clock.js';
import type { DriftEntry, ManifestFile, WorkspaceResult } from '../records/manifest.js';
import type { RunCoordinates } from '../records/run-coordinates.js';
import { type Failure, failureOf, workspaceOutcome } from '../records/workspace-outcome.js';
import type { ObjectStore } from '../sinks/object-store.js';
import type { RunErrorCode } from '../util/errors.js';
import { mapSettled } from '../util/pool.js';
import { type ExtractPlan, workspaceCalls } from './plan.js';

export interface ClientOptions {
  account: AccountSource;
  budget: RateBudget;
  logger: Logger;
  signal?: AbortSignal;
  /** The limit discovery settled on (jobs pass it to workspace jobs); default from the config. */
  limit?: RateLimit;
  stats?: RequestStats;
  timeouts?: HttpTimeouts;
  /** Response size cap, request deadline and run deadline (see callLimits). */
  limits?: CallLimits;
  retry?: Partial<RetryPolicy>;
  maxBudgetWaitMs?: number;
}

/** The configured bounds of every call of a run that started at `startedAt`. */
export function callLimits(config: Pick<Config, 'extract' | 'jobs'>, startedAt: string | Date): CallLimits {
  return {
    maxResponseBytes: config.extract.maxResponseBytes,
    requestTimeoutMs: config.extract.requestTimeoutSeconds * 1000,
    deadline: runDeadline(startedAt, config.jobs.maxRunHours),
    maxPauseMs: maxPauseMs(config),
  };
}

export function createAccountClient(o: ClientOptions): ApiClient {
  return new ApiClient({
    account: o.account.name,
    baseUrl: o.account.baseUrl,
    apiKey: o.account.apiKey,
    allowInsecureHttp: o.account.allowInsecureHttp ?? false,
    budget: o.budget,
    limit: o.limit ?? initialLimit(o.account),
    stats: o.stats,
    logger: o.logger,
    signal: o.signal,
    timeouts: o.timeouts,
    limits: o.limits,
    retry: o.retry,
    maxBudgetWaitMs: o.maxBudgetWaitMs,
    metrics,
  });
}

/** Configured ceiling and /me's announcement: the lower one wins, so neither is ever exceeded. */
export function effectiveLimit(account: AccountSource, me: unknown): RateLimit {
  const base = initialLimit(account);
  const announced = announcedRequestLimit(me);
  if (announced === undefined) return base;
  return { ...base, requests: Math.min(account.requestsPerMinute ?? announced, announced) };
}

/** A response's envelope findings as drift entries of the extract stage. */
export function envelopeDrift(res: ApiResponse, example: string): DriftEntry[] {
  return res.findings.map((f) => ({
    endpoint: res.call.endpoint,
    kind: f.kind,
    detail: f.detail,
    example,
    stage: 'extract',
  }));
}

async function landCall(
  store: ObjectStore,
  run: RunCoordinates,
  res: ApiResponse,
  drift: DriftReport,
  example: string,
) {
  drift.addAll(envelopeDrift(res, example));
  return landRaw(store, run, res);
}

export interface Discovery {
  brandIds: string[];
  /** The limit /me settled on: every later call of the run keeps to it (give it to their clients). */
  limit: RateLimit;
  files: ManifestFile[];
  drift: DriftEntry[];
}

/**
 * /me, then /brands under the limit /me announced, both landed: the workspaces to extract and the
 * limit to keep to. Throws ApiError, or an Error when this machine's clock is ahead of the API's.
 */
export async function discoverWorkspaces(o: {
  /** The account's client, but for its limit (discovery settles that). */
  client: ClientOptions;
  run: RunCoordinates;
  store: ObjectStore;
  brandFilter?: readonly string[] | undefined;
}): Promise<Discovery> {
  const drift = new DriftReport();
  const account = o.client.account;
  const me = await createAccountClient(o.client).get(meCall);
  // Before anything lands under a date this machine's clock made up.
  const ahead = clockAhead(me.serverDate, Date.now());
  if (ahead) throw new ClockAheadError(account.name, ahead);
  const files = [await landCall(o.store, o.run, me, drift, '_account')];
  const limit = effectiveLimit(account, me.body);
  // What others (another process, another tool) spent of the window is spent for this run too.
  const used = reportedUsage(me.body);
  if (used !== undefined) await o.client.budget.spentElsewhere?.(account.name, used, limit);
  const brands = await createAccountClient({ ...o.client, limit }).get(brandsCall);
  files.push(await landCall(o.store, o.run, brands, drift, '_account'));
  return {
    brandIds: chooseWorkspaces(account, o.brandFilter, brands.body),
    limit,
    files,
    drift: drift.entries(),
  };
}

/** --brand wins, then the config's explicit list (both honoured even if /brands omits an id: the API decides), else all of /brands. */
function chooseWorkspaces(
  account: AccountSource,
  brandFilter: readonly string[] | undefined,
  brandsBody: unknown,
): string[] {
  if (brandFilter?.length) return [...new Set(brandFilter)];
  if (account.brands !== 'all') return [...new Set(account.brands)];
  const data = (brandsBody as { data?: unknown } | null)?.data;
  if (!Array.isArray(data))
    throw new Error(`${account.name}: GET /brands returned no data array; cannot list workspaces`);
  const ids = data
    .map((b) => (b as { id?: unknown })?.id)
    .filter((id): id is string => typeof id === 'string');
  return [...new Set(ids)];
}

export interface WorkspaceExtraction {
  files: ManifestFile[];
  /** Calls that failed for good (after the client's own retries). */
  failures: ApiError[];
  drift: DriftEntry[];
  /** A bad key or plan: nothing more of this account can succeed. */
  stop?: ApiError;
}

/** Every call of one workspace, each landed as it arrives; errors are collected, not thrown. */
export async function extractWorkspace(o: {
  client: ApiClient;
  run: RunCoordinates;
  store: ObjectStore;
  plan: ExtractPlan;
  brandId: string;
  /** Calls already landed in this run (resumed job): not made again. */
  skip?: ReadonlySet<string>;
  /** True once the calls still to make must wait for another try (another workspace stopped). */
  halted?: () => boolean;
  onLanded?: (callId: string, file: ManifestFile) => Promise<void> | void;
}): Promise<WorkspaceExtraction> {
  const drift = new DriftReport();
  const out: WorkspaceExtraction = { files: [], failures: [], drift: [] };
  for (const call of workspaceCalls(o.brandId, o.plan)) {
    const id = callId(call);
    if (o.skip?.has(id)) continue;
    if (o.halted?.()) break;
    try {
      const file = await landCall(o.store, o.run, await o.client.get(call), drift, o.brandId);
      out.files.push(file);
      await o.onLanded?.(id, file);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      out.failures.push(err);
      if (err.stopsAccount) {
        out.stop = err;
        break;
      }
      // A workspace the account does not own fails every call the same way; past the run's
      // deadline, or during a pause the run will not wait for, no further call may start.
      if (err.kind === 'foreign_workspace' || err.pastDeadline || err.pausedUntil !== undefined) break;
    }
  }
  out.drift = drift.entries();
  return out;
}

export interface ExtractContext {
  account: AccountSource;
  run: RunCoordinates;
  plan: ExtractPlan;
  /** Only these workspaces (CLI --brand); default: the config's list, or all from /brands. */
  brandFilter?: readonly string[];
  concurrency: number;
  store: ObjectStore;
  budget: RateBudget;
  logger: Logger;
  signal?: AbortSignal;
  onProgress?: (p: ExtractProgress) => void;
  /** Once /brands has named the workspaces, before any of their calls (run --once records its plan). */
  onDiscovered?: (brandIds: readonly string[]) => Promise<void>;
  timeouts?: HttpTimeouts;
  limits?: CallLimits;
  retry?: Partial<RetryPolicy>;
}

export interface ExtractProgress {
  workspacesDone: number;
  workspacesTotal: number;
  workspacesFailed: number;
  /** Live counters of the account's requests (updated as calls go on, not only per report). */
  requests: RequestStats;
  /** The rate limit the account keeps to, for an estimate of the time left. */
  limit: RateLimit;
}

export interface ExtractResult {
  brandIds: string[];
  files: ManifestFile[];
  workspaces: WorkspaceResult[];
  requests: RequestStats;
  drift: DriftEntry[];
  /** Set when the account as a whole failed. */
  error?: string;
  error_code?: RunErrorCode;
  /** Set when it failed on a pause it would not wait for: epoch ms the account may be called again after. */
  pausedUntil?: number;
}

/** Discovery, then every workspace concurrently within the account's budget, in one process. */
export async function extractAccount(ctx: ExtractContext): Promise<ExtractResult> {
  const stop = new AbortController();
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, stop.signal]) : stop.signal;
  // Every in-flight request and budget wait listens on this one signal (and lets go when done).
  setMaxListeners(ctx.concurrency * 4 + 16, signal);
  const stats = emptyStats();
  const clientOptions: ClientOptions = { ...ctx, signal, stats };
  const result: ExtractResult = { brandIds: [], files: [], workspaces: [], requests: stats, drift: [] };

  let discovery: Discovery;
  try {
    discovery = await discoverWorkspaces({
      client: clientOptions,
      run: ctx.run,
      store: ctx.store,
      brandFilter: ctx.brandFilter,
    });
  } catch (err) {
    stopped(result, err);
    ctx.logger.error({ account: ctx.account.name, err: result.error }, 'account stopped');
    return result;
  }
  const { brandIds, limit } = discovery;
  await ctx.onDiscovered?.(brandIds);
  const client = createAccountClient({ ...clientOptions, limit });
  result.brandIds = brandIds;
  result.files.push(...discovery.files);
  result.drift.push(...discovery.drift);
  ctx.logger.info(
    { account: ctx.account.name, run_id: ctx.run.runId, workspaces: brandIds.length, limit },
    'extracting workspaces',
  );
  const outcomes = await extractWorkspaces(ctx, { client, signal, stop, result, limit });
  const halt = stop.signal.aborted ? stopped(result, stop.signal.reason) : undefined;
  result.workspaces = brandIds.map((brand_id, i) => {
    const outcome = outcomes[i]!;
    if (outcome.status === 'fulfilled') return workspaceOutcome(brand_id);
    // Cut short by the stop (or the one whose call was the stop): the run records the stop's code.
    if (halt && isStop(outcome.reason, stop.signal.reason))
      return workspaceOutcome(brand_id, { halted: halt, attempted: true });
    return workspaceOutcome(brand_id, { error: outcome.reason });
  });
  result.drift = foldDrift(result.drift);
  return result;
}

/**
 * Every workspace of `result.brandIds`, `ctx.concurrency` at a time, their files and drift added
 * to `result` as they land, progress reported as each ends. A workspace that stops the account
 * aborts `stop`; one with failed calls is a rejected outcome.
 */
async function extractWorkspaces(
  ctx: ExtractContext,
  o: {
    client: ApiClient;
    signal: AbortSignal;
    stop: AbortController;
    result: ExtractResult;
    limit: RateLimit;
  },
): Promise<PromiseSettledResult<void>[]> {
  const { brandIds, requests } = o.result;
  let done = 0;
  let failed = 0;
  const report = () =>
    ctx.onProgress?.({
      workspacesDone: done,
      workspacesTotal: brandIds.length,
      workspacesFailed: failed,
      requests,
      limit: o.limit,
    });
  report();
  return mapSettled(brandIds, ctx.concurrency, async (brandId) => {
    let ws: WorkspaceExtraction;
    try {
      ws = await extractWorkspace({
        client: o.client,
        run: ctx.run,
        store: ctx.store,
        plan: ctx.plan,
        brandId,
      });
    } catch (err) {
      if (o.signal.aborted) throw o.signal.reason;
      throw err;
    }
    // A pause this run will not wait for holds every other call too: the run stops in one line.
    // (A worker's jobs step aside instead: each is delayed until the pause ends, or fails alone.)
    const stop = ws.stop ?? ws.failures.find((e) => e.pausedUntil !== undefined);
    if (stop) o.stop.abort(stop);
    o.result.files.push(...ws.files);
    o.result.drift.push(...ws.drift);
    done++;
    if (ws.failures.length) failed++;
    report();
    if (done % 10 === 0 || done === brandIds.length) {
      ctx.logger.info(
        { account: ctx.account.name, done, total: brandIds.length, failed, calls: requests.calls },
        'progress',
      );
    }
    // Every failed call in the message; the first one's class gives the workspace its error code.
    if (ws.failures.length)
      throw new AggregateError(ws.failures, ws.failures.map((e) => e.message).join('; '));
  });
}

/** Whether a workspace's failure is the account's stop: the stop itself, or its one failed call. */
function isStop(reason: unknown, stop: unknown): boolean {
  if (reason === stop) return true;
  return reason instanceof AggregateError && reason.errors.length === 1 && reason.errors[0] === stop;
}

function foldDrift(entries: DriftEntry[]): DriftEntry[] {
  const report = new DriftReport();
  report.addAll(entries);
  return report.entries();
}

/** The account as a whole failed with `err`: its failure, also recorded in `result`. */
function stopped(result: ExtractResult, err: unknown): Failure {
  const failure = failureOf(err);
  result.error = failure.error;
  result.error_code = failure.error_code;
  if (err instanceof ApiError && err.pausedUntil !== undefined) result.pausedUntil = err.pausedUntil;
  return failure;
}
