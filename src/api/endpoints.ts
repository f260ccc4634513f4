// Every upstream endpoint in one table: its name, whether it is called per account or per
// workspace, and how to call it. src/sinks/layout.ts files each body under its endpoint's name.
import { encodeSegment } from '../util/path-segment.js';

/**
 * Every upstream endpoint, account-level ones first. The name is also the endpoint's folder under
 * raw/ and its `endpoint` in raw records, so it never changes.
 */
export const RAW_ENDPOINTS = [
  'me',
  'brands',
  'brand',
  'visibility',
  'recommendations',
  'prompts',
  'buyer-intent',
  'reputation',
] as const;

export type RawEndpoint = (typeof RAW_ENDPOINTS)[number];

/** Endpoints called once per account; every other endpoint is called per workspace. */
export const ACCOUNT_ENDPOINTS = ['me', 'brands'] as const satisfies readonly RawEndpoint[];

export type WorkspaceEndpoint = Exclude<RawEndpoint, (typeof ACCOUNT_ENDPOINTS)[number]>;

export const WORKSPACE_ENDPOINTS = RAW_ENDPOINTS.filter(
  (e): e is WorkspaceEndpoint => !(ACCOUNT_ENDPOINTS as readonly string[]).includes(e),
);

export interface Call {
  endpoint: RawEndpoint;
  /** Path below the base URL, workspace id already percent-encoded. */
  path: string;
  query: Record<string, string>;
  brandId?: string;
  /** Window of the call (visibility and buyer-intent). */
  days?: number;
  /** The spec promises a `{data, count}` envelope (only /brands; others are checked if they look like one). */
  list: boolean;
}

/**
 * Identifies one call of a workspace run: a resumed job skips the calls that landed, and a run
 * completed from its raw landing finds those that did not (the raw keys hold endpoint and window).
 */
export function callId(call: Pick<Call, 'endpoint' | 'days'>): string {
  return call.endpoint === 'buyer-intent' ? `buyer-intent.days-${call.days}` : call.endpoint;
}

export const meCall: Call = { endpoint: 'me', path: '/me', query: {}, list: false };
export const brandsCall: Call = { endpoint: 'brands', path: '/brands', query: {}, list: true };

const SUFFIX: Record<WorkspaceEndpoint, string> = {
  brand: '',
  visibility: '/visibility',
  recommendations: '/recommendations',
  prompts: '/prompts',
  'buyer-intent': '/buyer-intent',
  reputation: '/reputation',
};

export function workspaceCall(endpoint: WorkspaceEndpoint, brandId: string, days?: number): Call {
  const query: Record<string, string> = {};
  if (endpoint === 'visibility' || endpoint === 'buyer-intent') {
    if (days === undefined) throw new Error(`${endpoint} needs a days window`);
    query.days = String(days);
  }
  if (endpoint === 'recommendations') query.status = 'all';
  const call: Call = {
    endpoint,
    path: `/brands/${encodeSegment(brandId)}${SUFFIX[endpoint]}`,
    query,
    brandId,
    list: false,
  };
  if (days !== undefined) call.days = days;
  return call;
}

export function isWorkspaceEndpoint(name: string): name is WorkspaceEndpoint {
  return (WORKSPACE_ENDPOINTS as readonly string[]).includes(name);
}
