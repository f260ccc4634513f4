// Extract + land for one account run: /me and /brands, then every workspace's calls, each body
// landed as soon as it arrives. A workspace that fails is recorded and the others go on; a bad
// key or plan stops the whole account at once (no point, and no retry storm, in going on).
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { announcedRequestLimit } from '../api/account-info.js';
import { ApiClient, type ApiResponse, type RetryPolicy } from '../api/client.js';
import { brandsCall, meCall } from '../api/endpoints.js';
import { ApiError } from '../api/errors.js';
import type { HttpTimeouts } from '../api/http-pools.js';
import type { RateBudget, RateLimit } from '../api/rate-budget.js';
import { emptyStats, type RequestStats } from '../api/request-stats.js';
import { landRaw, type RunRef } from '../land/raw.js';
import type { DriftEntry, ManifestFile, WorkspaceResult } from '../runs/manifest.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { mapSettled } from '../util/pool.js';
import { type AccountSource, DEFAULT_REQUESTS_PER_WINDOW } from './account-source.js';
import { type ExtractPlan, workspaceCalls } from './plan.js';

export interface ExtractContext {
  account: AccountSource;
  run: RunRef;
  plan: ExtractPlan;
  /** Only these workspaces (CLI --brand); default: the config's list, or all from /brands. */
  brandFilter?: readonly string[];
  concurrency: number;
  store: ObjectStore;
  budget: RateBudget;
  logger: Logger;
  signal?: AbortSignal;
  onProgress?: (p: ExtractProgress) => void;
  timeouts?: HttpTimeouts;
  retry?: Partial<RetryPolicy>;
}

export interface ExtractProgress {
  workspacesDone: number;
  workspacesTotal: number;
  workspacesFailed: number;
  requests: RequestStats;
}

export interface ExtractResult {
  brandIds: string[];
  files: ManifestFile[];
  workspaces: WorkspaceResult[];
  requests: RequestStats;
  drift: DriftEntry[];
  /** Set when the account as a whole failed. */
  error?: string;
}

export function initialLimit(account: AccountSource): RateLimit {
  return {
    requests: account.requestsPerMinute ?? DEFAULT_REQUESTS_PER_WINDOW,
    windowMs: (account.rateWindowSeconds ?? 60) * 1000,
  };
}

/** Configured ceiling and /me's announcement: the lower one wins, so neither is ever exceeded. */
export function effectiveLimit(account: AccountSource, me: unknown): RateLimit {
  const base = initialLimit(account);
  const announced = announcedRequestLimit(me);
  if (announced === undefined) return base;
  return { ...base, requests: Math.min(account.requestsPerMinute ?? announced, announced) };
}

export async function extractAccount(ctx: ExtractContext): Promise<ExtractResult> {
  const stop = new AbortController();
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, stop.signal]) : stop.signal;
  // Every in-flight request and budget wait listens on this one signal (and lets go when done).
  setMaxListeners(ctx.concurrency * 4 + 16, signal);
  const stats = emptyStats();
  const client = new ApiClient({
    account: ctx.account.name,
    baseUrl: ctx.account.baseUrl,
    apiKey: ctx.account.apiKey,
    allowInsecureHttp: ctx.account.allowInsecureHttp ?? false,
    budget: ctx.budget,
    limit: initialLimit(ctx.account),
    stats,
    logger: ctx.logger,
    signal,
    ...(ctx.timeouts ? { timeouts: ctx.timeouts } : {}),
    ...(ctx.retry ? { retry: ctx.retry } : {}),
  });
  const result: ExtractResult = { brandIds: [], files: [], workspaces: [], requests: stats, drift: [] };
  const drift = new DriftCollector();
  const land = async (res: ApiResponse, example: string) => {
    drift.addFindings(res, example);
    result.files.push(await landRaw(ctx.store, ctx.run, res));
  };

  let brandIds: string[];
  try {
    const me = await client.get(meCall);
    await land(me, '_account');
    client.limit = effectiveLimit(ctx.account, me.body);
    const brands = await client.get(brandsCall);
    await land(brands, '_account');
    brandIds = chooseWorkspaces(ctx, brands.body);
  } catch (err) {
    result.error = describe(err);
    result.drift = drift.entries();
    ctx.logger.error({ account: ctx.account.name, err: result.error }, 'account stopped');
    return result;
  }
  result.brandIds = brandIds;
  ctx.logger.info(
    { account: ctx.account.name, run_id: ctx.run.runId, workspaces: brandIds.length, limit: client.limit },
    'extracting workspaces',
  );

  let done = 0;
  let failed = 0;
  const outcomes = await mapSettled(brandIds, ctx.concurrency, async (brandId) => {
    const errors: string[] = [];
    for (const call of workspaceCalls(brandId, ctx.plan)) {
      try {
        await land(await client.get(call), brandId);
      } catch (err) {
        if (err instanceof ApiError && err.stopsAccount) stop.abort(err);
        if (signal.aborted) throw signal.reason;
        errors.push(describe(err));
        // A workspace the account does not own fails every call the same way.
        if (err instanceof ApiError && err.kind === 'foreign_workspace') break;
      }
    }
    done++;
    if (errors.length) failed++;
    ctx.onProgress?.({
      workspacesDone: done,
      workspacesTotal: brandIds.length,
      workspacesFailed: failed,
      requests: stats,
    });
    if (done % 10 === 0 || done === brandIds.length) {
      ctx.logger.info(
        { account: ctx.account.name, done, total: brandIds.length, failed, calls: stats.calls },
        'progress',
      );
    }
    if (errors.length) throw new Error(errors.join('; '));
  });

  outcomes.forEach((o, i) => {
    const brand_id = brandIds[i] as string;
    if (o.status === 'fulfilled') result.workspaces.push({ brand_id, status: 'succeeded' });
    else result.workspaces.push({ brand_id, status: 'failed', error: describe(o.reason) });
  });
  if (stop.signal.aborted) {
    result.error = describe(stop.signal.reason);
    for (const w of result.workspaces) {
      if (w.status === 'failed' && w.error === result.error) w.error = `not completed: ${result.error}`;
    }
  }
  result.drift = drift.entries();
  return result;
}

/** --brand wins, then the config's explicit list (both are honoured even if /brands omits an id: the API decides), else all of /brands. */
function chooseWorkspaces(ctx: ExtractContext, brandsBody: unknown): string[] {
  if (ctx.brandFilter?.length) return [...new Set(ctx.brandFilter)];
  if (ctx.account.brands !== 'all') return [...new Set(ctx.account.brands)];
  const data = (brandsBody as { data?: unknown } | null)?.data;
  if (!Array.isArray(data))
    throw new Error(`${ctx.account.name}: GET /brands returned no data array; cannot list workspaces`);
  const ids = data
    .map((b) => (b as { id?: unknown })?.id)
    .filter((id): id is string => typeof id === 'string');
  return [...new Set(ids)];
}

function describe(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/** Envelope findings folded per endpoint and kind, one example each. */
class DriftCollector {
  readonly #byKey = new Map<string, DriftEntry>();

  addFindings(res: ApiResponse, example: string): void {
    for (const f of res.findings) {
      const key = `${res.call.endpoint}|${f.kind}`;
      const prev = this.#byKey.get(key);
      if (prev) prev.count = (prev.count ?? 1) + 1;
      else
        this.#byKey.set(key, {
          endpoint: res.call.endpoint,
          kind: f.kind,
          detail: f.detail,
          example,
          count: 1,
        });
    }
  }

  entries(): DriftEntry[] {
    return [...this.#byKey.values()];
  }
}
