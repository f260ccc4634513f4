// The base of every error visync raises on purpose. Callers match a class with `instanceof`, never
// by its `name` or message; `code` says the same thing as a string that never changes, for places
// that only have the error's data (a log line, a test, another process).

/**
 * Every code, one per class. A code, once shipped, is never renamed or reused.
 *
 * | code | class | raised when |
 * |---|---|---|
 * | `api_failed` | ApiError (src/api/errors.ts) | a call to the upstream API failed for good; `kind` says why |
 * | `response_limit` | LimitExceeded (src/api/response-body.ts) | one attempt broke our own size or time limit |
 * | `budget_wait_too_long` | BudgetWaitTooLong (src/api/rate-budget.ts) | no request slot within what the caller will wait |
 * | `config_invalid` | ConfigError (src/config/config-error.ts) | the configuration or an accounts file is wrong |
 * | `unknown_account` | UnknownAccountError (src/config/account-settings.ts) | a command names an account the config lacks |
 * | `s3_store` | S3StoreError (src/sinks/s3-store.ts) | an S3 request failed; `reason` says why |
 * | `brand_routing` | BrandRoutingError (src/run/brand-owner.ts) | `--brand` names a workspace no account (or several) own |
 * | `replay_failed` | ReplayError (src/run/replay.ts) | the run to replay cannot be found or read |
 * | `cli_failed` | CliError (src/cli/program-state.ts) | a command failed in a way its user can fix |
 * | `redis_unreachable` | RedisUnreachableError (jobs/connection.ts) | Redis cannot be reached |
 * | `ops_endpoint` | EndpointError (jobs/ops-server.ts) | the worker's HTTP endpoint setting cannot work |
 * | `worker_start_aborted` | WorkerStartAborted (jobs/start-guard.ts) | the worker was stopped before Redis answered |
 * | `clock_ahead` | ClockAheadError (src/records/clock.ts) | a run is refused: this machine's clock is ahead of the API's |
 * | `store_too_new` | StoreTooNewError (src/sinks/store-marker.ts) | a newer release wrote the store: this one must not write it |
 */
export type VisyncErrorCode =
  | 'api_failed'
  | 'response_limit'
  | 'budget_wait_too_long'
  | 'config_invalid'
  | 'unknown_account'
  | 's3_store'
  | 'brand_routing'
  | 'replay_failed'
  | 'cli_failed'
  | 'redis_unreachable'
  | 'ops_endpoint'
  | 'worker_start_aborted'
  | 'clock_ahead'
  | 'store_too_new';

/**
 * An expected failure: one a user or an operator can meet and act on, as opposed to a bug.
 * Subclasses give `code` as a getter, so it lives on the prototype: an error's own properties (what
 * the logs and `toEqual` see) stay what they were.
 */
export abstract class VisyncError extends Error {
  abstract get code(): VisyncErrorCode;
}

/**
 * Why a run, a workspace or a load failed, stored beside its message (`error_code` in the manifest,
 * the ledger and `sync_runs`) so that readers decide on it, never on the message. Derived from the
 * typed errors by src/records/error-code.ts. A code, once shipped, is never renamed or reused.
 */
export const RUN_ERROR_CODES = [
  'auth_revoked', // the API refused the key (401)
  'no_api_access', // the plan has no API access (403)
  'foreign_workspace', // the workspace is not the account's (404 on a workspace path)
  'bad_request', // the API refused our parameters (400, other 4xx)
  'wrong_base_url', // the API has no such path (404 elsewhere)
  'rate_limited', // 429s beyond what the run would wait for, or a pause it would not wait out
  'upstream_5xx', // the API kept answering 5xx (or 408)
  'network', // the API could not be reached or dropped the connection
  'malformed_body', // a 2xx whose body is not the JSON promised
  'response_limit', // an answer broke our size or time limit
  'budget_wait', // no request slot within what the run would wait
  'clock_ahead', // this machine's clock is ahead of the API's: the run was refused
  'not_completed', // a workspace cut short because the whole account stopped
  'interrupted', // the run's process stopped before the workspace's calls landed
  'not_started', // the run's lease could not be taken
  'deadline_passed', // the run's deadline passed before it could go on
  'not_recorded', // the run's manifest or record could not be written
  'store_failed', // the object store refused or could not be reached
  'disk_full', // no space left on a local disk
  'load_failed', // a warehouse load failed
  'internal', // anything else: see the message
  'unknown', // stored before codes were (read back from an older manifest or ledger)
] as const;
export type RunErrorCode = (typeof RUN_ERROR_CODES)[number];

/** What a caught value says, for a log line or a recorded failure: thrown non-errors too. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The first line of an error's message (SDK and browser messages can run to pages). */
export function reasonOf(err: unknown): string {
  const message = errorMessage(err);
  return (message.split('\n', 1)[0] ?? '').trim() || 'unknown error';
}
