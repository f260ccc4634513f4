// Failures sorted by what the caller can do about them. The upstream spec documents only 429;
// the status codes for the other kinds are our assumption (docs/simulator.md).
import { VisyncError } from '../util/errors.js';
import { utcSecond } from './pause-cap.js';

export type ApiErrorKind =
  | 'bad_key' // 401: unknown, mistyped or revoked key: stop the account
  | 'no_api_access' // 403: plan without API access: stop the account
  | 'foreign_workspace' // 404 on a workspace path: not owned by this account
  | 'bad_parameter' // 400 and other 4xx: our request is wrong, retrying cannot help
  | 'not_found' // 404 elsewhere: most likely a wrong baseUrl
  | 'rate_limited' // 429s beyond what we are willing to wait for
  | 'transient' // 5xx, resets, timeouts: retried, and this is what is left after the retries
  | 'malformed'; // 2xx whose body is not the JSON we were promised

const HINTS: Record<ApiErrorKind, string> = {
  bad_key:
    'the API key was refused: it is unknown, mistyped or revoked. Create a key under Settings > API keys and put it in the environment variable the config names',
  no_api_access:
    "the account's plan has no API access: the API is part of the Concierge and Agency plans. Upgrade the plan or remove the account from the config",
  foreign_workspace:
    'this workspace is not owned by the account (or no longer exists): check the brands list of this account in the config',
  bad_parameter: 'the API refused the request parameters: this is a bug in visibility-sync, please report it',
  not_found: 'the API has no such path: check that baseUrl ends with /api/v1',
  rate_limited: 'the API answered 429 Too Many Requests: lower requestsPerMinute or run later',
  transient: 'the API kept failing (server errors or network); the run can be retried later',
  malformed: 'the API answered with a body that is not the JSON it promised',
};

export interface ApiErrorDetails {
  kind: ApiErrorKind;
  account: string;
  path: string;
  status?: number;
  /** Start of the upstream error body, for the manifest (never contains request headers). */
  body?: string;
  /** What went wrong on our side of the call, when the status alone does not say it. */
  detail?: string;
  attempts?: number;
  /** The run's deadline would pass before the call could be tried again: no retry can help. */
  pastDeadline?: boolean;
  /**
   * Epoch ms the account is paused until, when the run will not wait that long (a Retry-After
   * longer than extract.maxPauseSeconds, or past the deadline): the account's run stops here.
   */
  pausedUntil?: number;
  cause?: unknown;
}

/** Longest upstream body excerpt kept in a message (and so in the manifest). */
const MESSAGE_BODY_CHARS = 300;

export class ApiError extends VisyncError {
  get code() {
    return 'api_failed' as const;
  }

  readonly kind: ApiErrorKind;
  readonly account: string;
  readonly path: string;
  readonly status: number | undefined;
  readonly body: string | undefined;
  readonly attempts: number;
  readonly pastDeadline: boolean;
  readonly pausedUntil: number | undefined;
  /** The message without the account in front: what a manifest or the ledger stores. */
  readonly text: string;

  constructor(d: ApiErrorDetails) {
    const status = d.status === undefined ? '' : ` -> ${d.status}`;
    const tries = d.attempts && d.attempts > 1 ? ` after ${d.attempts} attempts` : '';
    const detail = d.detail ? `${oneLine(d.detail)}: ` : '';
    // The upstream's own words say what it refused and why; the manifest and the CLI show them.
    const said = d.body?.trim() ? ` (upstream said: ${excerpt(oneLine(d.body), MESSAGE_BODY_CHARS)})` : '';
    // A refused pause says only when the account may be called again: the same line then serves
    // every later run during the pause (src/run/inline/paused-account.ts).
    const next =
      d.pausedUntil === undefined
        ? `${detail}${HINTS[d.kind]}${said}`
        : `${d.kind === 'rate_limited' ? 'rate limited: ' : ''}${detail}the account may be called again after ${utcSecond(d.pausedUntil)}`;
    const text = `GET ${d.path}${status}${tries}: ${next}`;
    super(`${d.account}: ${text}`, { cause: d.cause });
    this.name = 'ApiError';
    this.text = text;
    this.kind = d.kind;
    this.account = d.account;
    this.path = d.path;
    this.status = d.status;
    this.body = d.body;
    this.attempts = d.attempts ?? 1;
    this.pastDeadline = d.pastDeadline ?? false;
    this.pausedUntil = d.pausedUntil;
  }

  /** Worth another try later (a retried job): the API or the network may recover. */
  get retryable(): boolean {
    if (this.pastDeadline || this.pausedUntil !== undefined) return false;
    return this.kind === 'transient' || this.kind === 'rate_limited' || this.kind === 'malformed';
  }

  /** Errors after which no further call of the account can succeed. */
  get stopsAccount(): boolean {
    return this.kind === 'bad_key' || this.kind === 'no_api_access';
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** At most `max` characters of `text`, marked when cut. */
export function excerpt(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}...` : text;
}

/** Kind for a non-2xx, non-429 final status. */
export function kindForStatus(status: number, workspacePath: boolean): ApiErrorKind {
  if (status === 401) return 'bad_key';
  if (status === 403) return 'no_api_access';
  if (status === 404) return workspacePath ? 'foreign_workspace' : 'not_found';
  if (status === 408 || status >= 500) return 'transient';
  return 'bad_parameter';
}
