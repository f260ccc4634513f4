// What a request to the simulator asks for (./server.ts): the endpoint and workspace of its raw
// path, its query, its bearer key.
import type { IncomingMessage } from 'node:http';
import type { RawEndpoint } from '../api/endpoints.js';

export const API_PREFIX = '/api/v1';

export interface Route {
  endpoint: RawEndpoint | null;
  brandId: string | null;
  /** Why the path cannot be served, when it cannot. */
  problem?: 'outside-prefix' | 'unknown' | 'bad-encoding';
}

const SUBRESOURCES: Record<string, RawEndpoint> = {
  visibility: 'visibility',
  recommendations: 'recommendations',
  prompts: 'prompts',
  'buyer-intent': 'buyer-intent',
  reputation: 'reputation',
};

/** Splits the raw path before decoding, so an id containing '%2F' stays one segment. */
export function parseRoute(rawPath: string): Route {
  if (rawPath !== API_PREFIX && !rawPath.startsWith(`${API_PREFIX}/`)) {
    return { endpoint: null, brandId: null, problem: 'outside-prefix' };
  }
  let segments: string[];
  try {
    segments = rawPath
      .slice(API_PREFIX.length + 1)
      .split('/')
      .map((s) => decodeURIComponent(s));
  } catch {
    return { endpoint: null, brandId: null, problem: 'bad-encoding' };
  }
  const [first, id, sub, ...rest] = segments;
  if (rest.length > 0) return { endpoint: null, brandId: null, problem: 'unknown' };
  if (first === 'me' && id === undefined) return { endpoint: 'me', brandId: null };
  if (first !== 'brands') return { endpoint: null, brandId: null, problem: 'unknown' };
  if (id === undefined) return { endpoint: 'brands', brandId: null };
  if (id === '') return { endpoint: null, brandId: null, problem: 'unknown' };
  if (sub === undefined) return { endpoint: 'brand', brandId: id };
  const endpoint = SUBRESOURCES[sub];
  return endpoint ? { endpoint, brandId: id } : { endpoint: null, brandId: null, problem: 'unknown' };
}

export function parseQuery(raw: string): Record<string, string> {
  const out: Record<string, string> = {};
  // First occurrence wins, so `?days=7&days=400` is judged on 7, like most web frameworks.
  for (const [k, v] of new URLSearchParams(raw)) if (!(k in out)) out[k] = v;
  return out;
}

export function bearerKey(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}
