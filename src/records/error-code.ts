// The error code a run, a workspace or a load records beside its message (RUN_ERROR_CODES in
// src/util/errors.ts), derived from the typed error that ended it, never from its text.
import { ApiError } from '../api/errors.js';
import {
  errorMessage,
  RUN_ERROR_CODES,
  type RunErrorCode,
  VisyncError,
  type VisyncErrorCode,
} from '../util/errors.js';

export { RUN_ERROR_CODES, type RunErrorCode } from '../util/errors.js';

const BY_API_KIND = {
  bad_key: 'auth_revoked',
  no_api_access: 'no_api_access',
  foreign_workspace: 'foreign_workspace',
  bad_parameter: 'bad_request',
  not_found: 'wrong_base_url',
  rate_limited: 'rate_limited',
  transient: 'network',
  malformed: 'malformed_body',
} as const satisfies Record<ApiError['kind'], RunErrorCode>;

const BY_CODE: Partial<Record<VisyncErrorCode, RunErrorCode>> = {
  response_limit: 'response_limit',
  budget_wait_too_long: 'budget_wait',
  s3_store: 'store_failed',
  clock_ahead: 'clock_ahead',
};

/** The code of a caught value; an AggregateError (a workspace's failed calls) takes its first's. */
export function errorCode(err: unknown): RunErrorCode {
  if (err instanceof AggregateError && err.errors.length) return errorCode(err.errors[0]);
  if (err instanceof ApiError) {
    // A pause the run would not wait out is a rate limit whatever answer set it.
    if (err.pausedUntil !== undefined) return 'rate_limited';
    if (err.kind === 'transient' && err.status !== undefined) return 'upstream_5xx';
    return BY_API_KIND[err.kind];
  }
  // By code, not class: the S3 store's module loads the AWS SDK, which a run without S3 never needs.
  const own = err instanceof VisyncError ? BY_CODE[err.code] : undefined;
  if (own) return own;
  const sys = (err as { code?: unknown } | null)?.code;
  if (sys === 'ENOSPC' || sys === 'EDQUOT') return 'disk_full';
  return 'internal';
}

/**
 * The message a manifest or the ledger stores for a caught value: without the account in front (the
 * line printer adds it, src/cli/run-lines.ts); an AggregateError's members joined.
 */
export function storedMessage(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length) return err.errors.map(storedMessage).join('; ');
  return err instanceof ApiError ? err.text : errorMessage(err);
}

/**
 * A stored message as this version stores it: without the account in front. Manifests and ledger
 * entries written before #31 stored an ApiError's message with `account: ` in front: read back,
 * that is dropped, so that the printer's own is not doubled. For reading old records only: no
 * decision is taken on what a message says.
 */
export function storedText(account: string, text: string): string {
  return text.startsWith(`${account}: `) ? text.slice(account.length + 2) : text;
}

/**
 * The code of a stored failure: its own, or 'unknown' for one recorded before codes were (or one
 * this version does not know); undefined when nothing failed.
 */
export function storedCode(entry: {
  error?: string | undefined;
  error_code?: string | undefined;
}): RunErrorCode | undefined {
  if (entry.error_code !== undefined)
    return (RUN_ERROR_CODES as readonly string[]).includes(entry.error_code)
      ? (entry.error_code as RunErrorCode)
      : 'unknown';
  return entry.error ? 'unknown' : undefined;
}
