// Which calls one run makes for one workspace: pure, so tests and the jobs layer can count them.
import { type Call, WORKSPACE_ENDPOINTS, type WorkspaceEndpoint, workspaceCall } from '../api/endpoints.js';

export interface ExtractPlan {
  visibilityDays: number;
  buyerIntentDays: readonly number[];
  /** Workspace endpoints to call (default: all of them). /me and /brands are always called. */
  endpoints?: readonly WorkspaceEndpoint[];
}

export function workspaceCalls(brandId: string, plan: ExtractPlan): Call[] {
  const wanted = new Set(plan.endpoints ?? WORKSPACE_ENDPOINTS);
  const calls: Call[] = [];
  // Keep the spec's order: /brands/{id} first, so a foreign workspace fails on its first call.
  for (const endpoint of WORKSPACE_ENDPOINTS) {
    if (!wanted.has(endpoint)) continue;
    if (endpoint === 'visibility') calls.push(workspaceCall(endpoint, brandId, plan.visibilityDays));
    else if (endpoint === 'buyer-intent') {
      for (const d of plan.buyerIntentDays) calls.push(workspaceCall(endpoint, brandId, d));
    } else calls.push(workspaceCall(endpoint, brandId));
  }
  return calls;
}

/** Requests one run needs at least (no retries): /me, /brands and every workspace call. */
export function plannedRequestCount(workspaces: number, plan: ExtractPlan): number {
  return 2 + workspaces * workspaceCalls('x', plan).length;
}

/**
 * Least time `requests` calls take under a sliding window of `limit.requests` per `limit.windowMs`:
 * the first L go at once, each further L one window later, so floor((N-1)/L) whole windows. Retries,
 * latency and other users of the account's budget only add to it.
 */
export function minimumDurationMs(requests: number, limit: { requests: number; windowMs: number }): number {
  if (requests <= 0) return 0;
  return Math.floor((requests - 1) / limit.requests) * limit.windowMs;
}
