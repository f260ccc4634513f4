// What one failed attempt of a call leads to: ask again after how long, and whether the whole
// account waits (a 429 or a Retry-After) or only this call (backoff); or give up with which error.
// Pure: the client (src/api/client.ts) sends, counts, pauses and sleeps as decided.
import { type ApiErrorDetails, excerpt, kindForStatus } from './errors.js';
import { cappedPauseMs, DEFAULT_MAX_PAUSE_MS } from './pause-cap.js';
import { parseRetryAfter } from './retry-after.js';
import { describeDeadline, type RunDeadline } from './run-deadline.js';

export interface RetryPolicy {
  /** Attempts for one call on 5xx, network errors and malformed bodies (first try included). */
  attempts: number;
  baseMs: number;
  capMs: number;
  /** 429 answers tolerated for one call before it fails as rate_limited. */
  rateLimitedRetries: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  attempts: 5,
  baseMs: 500,
  capMs: 30_000,
  rateLimitedRetries: 20,
};

/** An attempt that did not give the call its answer. */
export type FailedAttempt =
  /** No response: the network failed, or the answer broke one of our limits (size, time). */
  | { type: 'no_response'; why: string; cause: unknown }
  /** A 2xx whose body is not the JSON it claims to be. */
  | { type: 'malformed'; status: number; why: string }
  /** Any other status than 2xx (429 included). */
  | { type: 'status'; status: number; retryAfter?: string | string[] | undefined };

/** Failed attempts of one call so far; 429s are counted apart, against their own allowance. */
export interface RetryCounts {
  failures: number;
  rateLimited: number;
}

export interface RetryContext {
  policy: RetryPolicy;
  /** The call names a workspace (a 404 then means a foreign workspace, not a wrong baseUrl). */
  workspacePath: boolean;
  deadline?: RunDeadline | undefined;
  /** The longest pause one Retry-After sets (extract.maxPauseSeconds); default DEFAULT_MAX_PAUSE_MS. */
  maxPauseMs?: number | undefined;
  now: number;
  /** In [0, 1): where the backoff falls within its jittered range. */
  random: () => number;
}

/** The error to give up with; the client adds the account, the path and the attempts. */
export type GiveUp = Omit<ApiErrorDetails, 'account' | 'path' | 'attempts' | 'body'> & {
  /** Quote the start of the upstream body in the error. */
  quoteBody?: boolean;
};

export type RetryDecision = {
  /** The counts after this attempt, for the next decision of the same call. */
  counts: RetryCounts;
  /** First hold the whole account back this long (every lane, process and machine), whatever follows. */
  pauseAccountMs?: number;
} & (
  | { action: 'give_up'; error: GiveUp }
  /** Ask again after the account's pause (a 429 or Retry-After). */
  | { action: 'retry'; backoffMs?: undefined }
  /** Ask again after this call alone has waited. */
  | { action: 'retry'; backoffMs: number; why: string }
);

/** Full-jitter exponential backoff before the `n`th retry: up to base * 2^(n-1), capped. */
export function backoffMs(n: number, policy: RetryPolicy, random: () => number): number {
  return random() * Math.min(policy.capMs, policy.baseMs * 2 ** (n - 1));
}

/** What follows a failed attempt of a call, given the call's failed attempts before it. */
export function decideRetry(attempt: FailedAttempt, counts: RetryCounts, ctx: RetryContext): RetryDecision {
  if (attempt.type === 'status')
    return attempt.status === 429
      ? afterRateLimited(attempt, counts, ctx)
      : afterErrorStatus(attempt, counts, ctx);
  // No answer, or a truncated or mislabelled body (usually a broken connection or proxy): worth asking again.
  const next = { ...counts, failures: counts.failures + 1 };
  if (next.failures < ctx.policy.attempts) return backoff(next, attempt.why, ctx);
  const error: GiveUp =
    attempt.type === 'malformed'
      ? { kind: 'malformed', status: attempt.status, detail: attempt.why }
      : { kind: 'transient', detail: attempt.why, cause: attempt.cause };
  return { counts: next, action: 'give_up', error };
}

/** A 429: the whole account waits (Retry-After, else backoff), and the call asks again unless it has had enough. */
function afterRateLimited(
  attempt: Extract<FailedAttempt, { type: 'status' }>,
  counts: RetryCounts,
  ctx: RetryContext,
): RetryDecision {
  const rateLimited = counts.rateLimited + 1;
  const next = { ...counts, rateLimited };
  const asked = parseRetryAfter(attempt.retryAfter, ctx.now);
  const waitMs = asked ?? backoffMs(rateLimited, ctx.policy, ctx.random);
  const refused = pauseRefusal(attempt, asked, waitMs, next, ctx);
  if (refused) return refused;
  if (rateLimited > ctx.policy.rateLimitedRetries)
    return {
      counts: next,
      pauseAccountMs: waitMs,
      action: 'give_up',
      error: { kind: 'rate_limited', status: 429, quoteBody: true },
    };
  return { counts: next, pauseAccountMs: waitMs, action: 'retry' };
}

/**
 * A pause this run will not wait for: the API asked for more than extract.maxPauseSeconds, or the
 * pause ends after the run's deadline. The account is paused for the capped time and the call
 * gives up at once, naming the status the API answered and when the account may be called again
 * (the error stops the account's run: every other call would meet the same pause).
 */
function pauseRefusal(
  attempt: Extract<FailedAttempt, { type: 'status' }>,
  asked: number | undefined,
  waitMs: number,
  counts: RetryCounts,
  ctx: RetryContext,
): RetryDecision | undefined {
  const capMs = ctx.maxPauseMs ?? DEFAULT_MAX_PAUSE_MS;
  const pauseMs = cappedPauseMs(waitMs, capMs);
  const overCap = asked !== undefined && asked > capMs;
  const pastDeadline = ctx.deadline !== undefined && ctx.now + pauseMs > ctx.deadline.at;
  if (!overCap && !pastDeadline) return undefined;
  const raw = Array.isArray(attempt.retryAfter) ? attempt.retryAfter[0] : attempt.retryAfter;
  const askedFor =
    raw === undefined ? 'the next try' : `the pause it asked for (Retry-After: ${excerpt(raw.trim(), 40)})`;
  const detail = overCap
    ? `${askedFor} is longer than extract.maxPauseSeconds (${seconds(capMs)} s)`
    : `${askedFor} ends after the ${describeDeadline(ctx.deadline as RunDeadline)}`;
  const kind = attempt.status === 429 ? 'rate_limited' : kindForStatus(attempt.status, ctx.workspacePath);
  return {
    counts,
    pauseAccountMs: pauseMs,
    action: 'give_up',
    error: { kind, status: attempt.status, detail, pausedUntil: ctx.now + pauseMs, pastDeadline },
  };
}

/** Another status: 4xx cannot improve by asking again; 5xx may, until the attempts run out. */
function afterErrorStatus(
  attempt: Extract<FailedAttempt, { type: 'status' }>,
  counts: RetryCounts,
  ctx: RetryContext,
): RetryDecision {
  const kind = kindForStatus(attempt.status, ctx.workspacePath);
  const giveUp = (c: RetryCounts): RetryDecision => ({
    counts: c,
    action: 'give_up',
    error: { kind, status: attempt.status, quoteBody: true },
  });
  if (kind !== 'transient') return giveUp(counts);
  const next = { ...counts, failures: counts.failures + 1 };
  if (next.failures >= ctx.policy.attempts) return giveUp(next);
  const retryAfter = parseRetryAfter(attempt.retryAfter, ctx.now);
  if (retryAfter === undefined) return backoff(next, `HTTP ${attempt.status}`, ctx);
  return (
    pauseRefusal(attempt, retryAfter, retryAfter, next, ctx) ?? {
      counts: next,
      pauseAccountMs: retryAfter,
      action: 'retry',
    }
  );
}

function backoff(counts: RetryCounts, why: string, ctx: RetryContext): RetryDecision {
  return { counts, action: 'retry', backoffMs: backoffMs(counts.failures, ctx.policy, ctx.random), why };
}

/** Whole seconds (rounded up), for messages. */
export function seconds(ms: number): number {
  return Math.ceil(ms / 1000);
}
