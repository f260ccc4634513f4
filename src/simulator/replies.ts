// What the simulator answers, before any fault touches the body: error bodies in the assumed
// `{"error": {"code", "message"}}` shape, and each workspace endpoint's data with its parameters checked.
import type { RawEndpoint } from '../api/endpoints.js';
import {
  BUYER_INTENT_DAYS,
  buyerIntent,
  DEFAULT_RECOMMENDATION_STATUS,
  prompts,
  RECOMMENDATION_STATUSES,
  type RecommendationStatus,
  recommendations,
  reputation,
  VISIBILITY_DAYS,
  visibility,
  type WorkspaceRef,
  workspaceDetail,
} from './data.js';
import type { FaultRule } from './faults.js';

export type ErrorCode =
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'bad_request'
  | 'rate_limited'
  | 'internal'
  | 'method_not_allowed';

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** The endpoints under /brands/{id}: they answer only for a workspace the account owns. */
export type WorkspaceEndpoint = Exclude<RawEndpoint, 'me' | 'brands'>;

export function ok(body: unknown): Reply {
  return { status: 200, body };
}

export function errorReply(
  status: number,
  code: ErrorCode,
  message: string,
  headers?: Record<string, string>,
): Reply {
  return { status, body: { error: { code, message } }, headers };
}

function codeForStatus(status: number): ErrorCode {
  const codes: Record<number, ErrorCode> = {
    400: 'bad_request',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'not_found',
    405: 'method_not_allowed',
    429: 'rate_limited',
  };
  return codes[status] ?? 'internal';
}

/** The reply a scripted 'status' fault asks for, with its Retry-After when it has one. */
export function faultStatusReply(fault: FaultRule): Reply {
  const status = fault.status ?? 500;
  const headers: Record<string, string> = {};
  if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
  return errorReply(status, codeForStatus(status), `simulated fault: HTTP ${status}`, headers);
}

export function workspaceReply(
  ref: WorkspaceRef,
  endpoint: WorkspaceEndpoint,
  query: Record<string, string>,
  today: string,
): Reply {
  switch (endpoint) {
    case 'brand':
      return ok(workspaceDetail(ref, today));
    case 'visibility':
      return withDays(query.days, VISIBILITY_DAYS, (days) => visibility(ref, today, days));
    case 'buyer-intent':
      return withDays(query.days, BUYER_INTENT_DAYS, (days) => buyerIntent(ref, today, days));
    case 'recommendations':
      return recommendationsReply(ref, today, query.status);
    case 'prompts':
      return ok(prompts(ref, today));
    case 'reputation':
      return ok(reputation(ref, today));
  }
  return errorReply(404, 'not_found', 'no such endpoint');
}

interface DaysRange {
  min: number;
  max: number;
  default: number;
}

function withDays(raw: string | undefined, range: DaysRange, body: (days: number) => unknown): Reply {
  const days = parseDays(raw, range);
  if (days === null) {
    return errorReply(400, 'bad_request', `days must be an integer from ${range.min} to ${range.max}`);
  }
  return ok(body(days));
}

function parseDays(raw: string | undefined, range: DaysRange): number | null {
  if (raw === undefined) return range.default;
  if (!/^\d+$/.test(raw)) return null;
  const n = Number(raw);
  return n >= range.min && n <= range.max ? n : null;
}

function recommendationsReply(ref: WorkspaceRef, today: string, raw: string | undefined): Reply {
  const status = raw ?? DEFAULT_RECOMMENDATION_STATUS;
  if (status !== 'all' && !RECOMMENDATION_STATUSES.includes(status as RecommendationStatus)) {
    return errorReply(400, 'bad_request', 'status must be one of open, done, dismissed, all');
  }
  return ok(recommendations(ref, today, status as RecommendationStatus | 'all'));
}
