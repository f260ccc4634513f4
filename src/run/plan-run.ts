// `run --once --plan`: what a run would do, per account, without doing any of it. No API call (the
// workspace count of `brands: all` comes from the account's last run in the sink) and no write:
// the store is only listed and read. The calls are the ones extract makes (src/extract/plan.ts),
// the window the one runInline would use (src/records/window.ts), the limit the one before GET /me.

import { initialLimit } from '../api/account-source.js';
import {
  brandsCall,
  type Call,
  meCall,
  WORKSPACE_ENDPOINTS,
  type WorkspaceEndpoint,
} from '../api/endpoints.js';
import type { RateLimit } from '../api/rate-budget.js';
import type { AccountConfig, Config } from '../config/schema.js';
import { type ExtractPlan, minimumDurationMs, plannedRequestCount, workspaceCalls } from '../extract/plan.js';
import { lastSucceededRun, manifestRunIds } from '../records/history.js';
import { type Manifest, readManifest } from '../records/manifest.js';
import { accountWindowDays } from '../records/window.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { errorMessage } from '../util/errors.js';
import { encodeSegment } from '../util/path-segment.js';
import { addDays, utcDate } from '../util/time.js';
import { lastInterruptedRun } from './interrupted.js';

export interface PlanOptions {
  config: Config;
  store: ObjectStore;
  /** CLI --account. */
  accounts?: readonly string[];
  /** CLI --brand. */
  brands?: readonly string[];
  endpoints?: readonly WorkspaceEndpoint[];
  days?: number;
  /** Default: today (UTC). */
  runDate?: string;
}

export interface PlannedCall {
  method: 'GET';
  /** `/brands/{id}/...` for per-workspace calls. */
  path: string;
  query: Record<string, string>;
  scope: 'account' | 'workspace';
}

export interface WorkspacesPlan {
  /** Undefined when no earlier run of a `brands: all` account says how many. */
  count?: number;
  /** The ids, when the config, --brand or the last run names them. */
  ids?: string[];
  /** Where the ids or the count come from, in words. */
  source: string;
}

export interface AccountPlan {
  account: string;
  run_date: string;
  window: { visibility_days: number; from: string; to: string; why: string };
  buyer_intent_days: number[];
  endpoints: WorkspaceEndpoint[];
  workspaces: WorkspacesPlan;
  account_calls: PlannedCall[];
  /** The calls of one workspace, with `{id}` for its id. */
  workspace_calls: PlannedCall[];
  rate_limit: { requests: number; window_seconds: number; source: 'config' | 'default' };
  /** Every call at least once (no retries); undefined when the workspace count is unknown. */
  total_requests?: number;
  /** floor((N-1)/L) * W: the least time the rate limit allows; undefined with the count. */
  min_seconds?: number;
  /** Run of an earlier process that stopped before its manifest: a real run completes it first. */
  interrupted_run?: string;
  notes: string[];
}

export interface RunPlan {
  run_date: string;
  accounts: AccountPlan[];
  notes: string[];
}

const ID = '{id}';

function planned(call: Call, scope: PlannedCall['scope']): PlannedCall {
  return {
    method: 'GET',
    // Calls are built for the id `{id}`, whose path segment is percent-encoded: shown as typed.
    path: call.path.replace(encodeSegment(ID), ID),
    query: call.query,
    scope,
  };
}

export async function planRun(o: PlanOptions): Promise<RunPlan> {
  const runDate = o.runDate ?? utcDate(new Date());
  const notes: string[] = [];
  const { accounts, brandsByAccount } = await chooseAccounts(o, notes);
  const plans: AccountPlan[] = [];
  for (const account of accounts)
    plans.push(await planAccount(o, account, runDate, brandsByAccount?.get(account.name) ?? o.brands));
  return { run_date: runDate, accounts: plans, notes };
}

/** The accounts a run would cover: --account, or with --brand alone the ones that own the workspaces. */
async function chooseAccounts(
  o: PlanOptions,
  notes: string[],
): Promise<{ accounts: AccountConfig[]; brandsByAccount?: Map<string, string[]> }> {
  const named = o.config.accounts.filter((a) => !o.accounts?.length || o.accounts.includes(a.name));
  if (!o.brands?.length || o.accounts?.length) return { accounts: named };
  // A real run asks GET /brands of each `brands: all` account for an unlisted workspace; the plan
  // asks the config and the accounts' last runs instead.
  const byAccount = new Map<string, string[]>();
  const unowned: string[] = [];
  const listAll = o.config.accounts.filter((x) => x.brands === 'all');
  let routed = false;
  for (const brand of o.brands) {
    let owner = o.config.accounts.find((a) => a.brands !== 'all' && a.brands.includes(brand));
    if (!owner) {
      routed = true;
      for (const a of listAll)
        if ((await lastFullRun(o.store, a.name))?.workspaces.some((w) => w.brand_id === brand)) owner = a;
    }
    if (owner) byAccount.set(owner.name, [...(byAccount.get(owner.name) ?? []), brand]);
    else unowned.push(brand);
  }
  if (routed && listAll.length)
    notes.push(
      `--brand without --account: a real run first calls GET /brands once on each account with brands: all (${listAll.map((a) => a.name).join(', ')}) to find the owner; not counted below`,
    );
  if (unowned.length)
    notes.push(
      `no account owns workspace ${unowned.join(', ')} as far as the config and the last runs tell: a real run would ask GET /brands; add --account to plan for one`,
    );
  return { accounts: o.config.accounts.filter((a) => byAccount.has(a.name)), brandsByAccount: byAccount };
}

async function planAccount(
  o: PlanOptions,
  account: AccountConfig,
  runDate: string,
  brandFilter: readonly string[] | undefined,
): Promise<AccountPlan> {
  const notes: string[] = [];
  const window = await planWindow(o, account.name, runDate);
  const extract: ExtractPlan = {
    visibilityDays: window.visibility_days,
    buyerIntentDays: o.config.extract.buyerIntentDays,
    endpoints: o.endpoints,
  };
  const workspaces = await planWorkspaces(o.store, account, brandFilter);
  const workspaceCallsPlanned = workspaceCalls(ID, extract).map((c) => planned(c, 'workspace'));
  const accountCalls = [planned(meCall, 'account'), planned(brandsCall, 'account')];
  const limit = initialLimit(account);
  const total = workspaces.count === undefined ? undefined : plannedRequestCount(workspaces.count, extract);
  if (account.requestsPerMinute !== undefined)
    notes.push('GET /me may announce a lower limit: the lower one is kept, and the run takes longer');
  const interrupted = await lastInterruptedRun(o.store, account.name, {
    ttlMs: o.config.jobs.lockSeconds * 1000,
  });
  if (interrupted)
    notes.push(
      `run ${interrupted.runId} stopped before its manifest: a real run completes it first, from its landed files (no API call)`,
    );
  return {
    account: account.name,
    run_date: runDate,
    window,
    buyer_intent_days: [...o.config.extract.buyerIntentDays],
    endpoints: [...(o.endpoints ?? WORKSPACE_ENDPOINTS)],
    workspaces,
    account_calls: accountCalls,
    workspace_calls: workspaceCallsPlanned,
    rate_limit: rateLimit(limit, account),
    ...(total === undefined
      ? {}
      : { total_requests: total, min_seconds: minimumDurationMs(total, limit) / 1000 }),
    interrupted_run: interrupted?.runId,
    notes,
  };
}

function rateLimit(limit: RateLimit, account: AccountConfig): AccountPlan['rate_limit'] {
  return {
    requests: limit.requests,
    window_seconds: limit.windowMs / 1000,
    source: account.requestsPerMinute === undefined ? 'default' : 'config',
  };
}

/** The visibility window runInline would use: --days, else accountWindowDays (from the last success). */
async function planWindow(o: PlanOptions, account: string, runDate: string): Promise<AccountPlan['window']> {
  const span = (days: number, why: string) => ({
    visibility_days: days,
    from: addDays(runDate, 1 - days),
    to: runDate,
    why,
  });
  if (o.days) return span(o.days, '--days');
  const { visibilityDays, overlapDays } = o.config.extract;
  let last: Manifest | undefined;
  let days: number;
  try {
    days = await accountWindowDays({
      store: o.store,
      account,
      runDate,
      extract: o.config.extract,
      lastSuccessRunDate: async () => {
        last = await lastSucceededRun(o.store, account);
        return last?.run_date;
      },
    });
  } catch (err) {
    // As runInline: a sink that cannot say falls back to the configured window.
    return span(
      visibilityDays,
      `extract.visibilityDays: the last success could not be read (${errorMessage(err)})`,
    );
  }
  const lastDate = (last as Manifest | undefined)?.run_date;
  if (!lastDate) return span(days, 'extract.visibilityDays: no earlier succeeded full run in the sink');
  if (days === visibilityDays)
    return span(days, `extract.visibilityDays: the last success ${lastDate} is recent`);
  return span(
    days,
    `every day since the last success ${lastDate} plus ${overlapDays} days overlap${days === 365 ? ', capped at 365' : ''}`,
  );
}

async function planWorkspaces(
  store: ObjectStore,
  account: AccountConfig,
  brandFilter: readonly string[] | undefined,
): Promise<WorkspacesPlan> {
  // The same order of choice as extract (chooseWorkspaces): --brand, the config's list, /brands.
  if (brandFilter?.length) {
    const ids = [...new Set(brandFilter)];
    return { count: ids.length, ids, source: '--brand' };
  }
  if (account.brands !== 'all') {
    const ids = [...new Set(account.brands)];
    return { count: ids.length, ids, source: 'the config (brands list)' };
  }
  const last = await lastFullRun(store, account.name);
  if (!last)
    return {
      source: 'unknown: brands: all and no earlier run of the account in the sink (GET /brands will tell)',
    };
  const ids = last.workspaces.map((w) => w.brand_id);
  return {
    count: ids.length,
    ids,
    source: `the last run ${last.run_id} (${last.run_date}); brands: all, so GET /brands may list more or fewer`,
  };
}

/** The account's newest run that listed every workspace (not limited by --brand, got past /brands). */
async function lastFullRun(store: ObjectStore, account: string): Promise<Manifest | undefined> {
  for (const id of await manifestRunIds(store, account)) {
    let m: Manifest | undefined;
    try {
      m = await readManifest(store, account, id);
    } catch {
      continue; // A manifest that does not parse says nothing.
    }
    if (m && (m.scope?.brands ?? 'all') === 'all' && m.workspaces.length > 0) return m;
  }
  return undefined;
}
