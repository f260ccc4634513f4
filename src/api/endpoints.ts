// Every upstream endpoint in one table: how to call it and where its body lands.
import { encodeSegment, RAW_ENDPOINTS, type RawEndpoint } from '../sinks/layout.js';

export type WorkspaceEndpoint = Exclude<RawEndpoint, 'me' | 'brands'>;

export const WORKSPACE_ENDPOINTS = RAW_ENDPOINTS.filter(
  (e): e is WorkspaceEndpoint => e !== 'me' && e !== 'brands',
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
