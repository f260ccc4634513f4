// The one way visibility-sync talks to the upstream API: bearer auth, the account's shared rate
// budget before every request (retries included), Retry-After as an account-wide pause, bounded
// retries with full-jitter backoff, a size cap and a deadline on every response, and failures
// sorted into ApiError kinds.
import type { Logger } from 'pino';
import { type ApiMetrics, noApiMetrics } from '../metrics/recorder.js';
import { errorMessage } from '../util/errors.js';
import { isLoopbackHost } from '../util/net.js';
import { redactJsonBody, redactSecrets } from '../util/redact.js';
import { sleep } from '../util/time.js';
import type { Call } from './endpoints.js';
import { type EnvelopeFinding, inspectEnvelope } from './envelope.js';
import { ApiError, excerpt } from './errors.js';
import { DEFAULT_TIMEOUTS, type HttpTimeouts, poolFor } from './http-pools.js';
import { acquireSlot, BudgetWaitTooLong, type RateBudget, type RateLimit } from './rate-budget.js';
import { emptyStats, type RequestStats } from './request-stats.js';
import { LimitExceeded, parseJsonBody, readCapped } from './response-body.js';
import {
  DEFAULT_RETRY,
  decideRetry,
  type FailedAttempt,
  type RetryCounts,
  type RetryDecision,
  type RetryPolicy,
  seconds,
} from './retry-decision.js';
import { describeDeadline, type RunDeadline } from './run-deadline.js';

export type { RetryPolicy } from './retry-decision.js';

/**
 * Bounds on every call (config: extract.maxResponseBytes, extract.requestTimeoutSeconds,
 * extract.maxPauseSeconds, jobs.maxRunHours).
 */
export interface CallLimits {
  /** A larger body fails the attempt (retryable) instead of filling memory. */
  maxResponseBytes: number;
  /** Connect, headers and body together: a trickling body cannot outlast it. */
  requestTimeoutMs: number;
  /** Budget waits and Retry-After pauses that end after it fail the call instead of waiting. */
  deadline?: RunDeadline;
  /** A Retry-After asking for longer fails the call (the account pauses this long); default one hour. */
  maxPauseMs?: number;
}

const DEFAULT_CALL_LIMITS: CallLimits = {
  maxResponseBytes: 64 * 1024 * 1024,
  requestTimeoutMs: 120_000,
};

export interface ApiClientOptions {
  account: string;
  baseUrl: string;
  apiKey: string;
  /** Plain http to a non-loopback host (a simulator on a private network); https otherwise. */
  allowInsecureHttp?: boolean;
  budget: RateBudget;
  limit: RateLimit;
  timeouts?: HttpTimeouts;
  limits?: CallLimits | undefined;
  retry?: Partial<RetryPolicy>;
  stats?: RequestStats;
  logger?: Logger;
  signal?: AbortSignal;
  /** Passed to acquireSlot: longer budget waits throw BudgetWaitTooLong (the jobs layer reschedules). */
  maxBudgetWaitMs?: number;
  /** Where requests and budget waits are counted; nowhere when absent. */
  metrics?: ApiMetrics;
}

export interface ApiResponse {
  call: Call;
  status: number;
  /** Request path as sent: base path prefix included, percent-encoded, no query. */
  path: string;
  query: Record<string, string>;
  receivedAt: string;
  /** The body as received, but for the account's key wherever it echoed it (replaced by a marker). */
  bodyText: string;
  body: unknown;
  findings: EnvelopeFinding[];
  /** How many times the key was replaced in the body (design.md: the one change a raw body gets). */
  redactions: number;
  /** The server's `Date` header: its clock, to check ours against (src/records/clock.ts). */
  serverDate?: string | undefined;
}

const BODY_SNIPPET = 500;

interface RawOutcome {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One attempt of a call: its answer, or what went wrong and the body that came with it. */
type AttemptResult = { answer: ApiResponse } | { failed: FailedAttempt; text: string };

export class ApiClient {
  readonly account: string;
  readonly stats: RequestStats;
  limit: RateLimit;
  readonly #origin: string;
  readonly #prefix: string;
  readonly #auth: string;
  readonly #opts: ApiClientOptions;
  readonly #retry: RetryPolicy;
  readonly #limits: CallLimits;
  readonly #apiKey: string;
  readonly #metrics: ApiMetrics;

  constructor(opts: ApiClientOptions) {
    const url = new URL(opts.baseUrl);
    const httpAllowed = url.protocol === 'http:' && (isLoopbackHost(url.hostname) || opts.allowInsecureHttp);
    if (url.protocol !== 'https:' && !httpAllowed) {
      throw new Error(
        `${opts.account}: baseUrl must use https (plain http is allowed only for loopback hosts such as 127.0.0.1): ${url.origin}`,
      );
    }
    this.account = opts.account;
    this.limit = opts.limit;
    this.stats = opts.stats ?? emptyStats();
    this.#metrics = opts.metrics ?? noApiMetrics;
    this.#origin = url.origin;
    this.#prefix = url.pathname.replace(/\/+$/, '');
    this.#auth = `Bearer ${opts.apiKey}`;
    this.#opts = opts;
    this.#retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.#limits = opts.limits ?? DEFAULT_CALL_LIMITS;
    this.#apiKey = opts.apiKey;
  }

  async get(call: Call): Promise<ApiResponse> {
    const path = this.#prefix + call.path;
    const qs = new URLSearchParams(call.query).toString();
    const target = qs ? `${path}?${qs}` : path;
    let counts: RetryCounts = { failures: 0, rateLimited: 0 };
    for (let attempt = 1; ; attempt++) {
      const result = await this.#attempt(call, path, target, attempt);
      if ('answer' in result) return result.answer;
      const decision = decideRetry(result.failed, counts, {
        policy: this.#retry,
        workspacePath: call.brandId !== undefined,
        deadline: this.#limits.deadline,
        maxPauseMs: this.#limits.maxPauseMs,
        now: Date.now(),
        random: Math.random,
      });
      counts = decision.counts;
      await this.#follow(decision, path, attempt, result.text);
    }
  }

  /** Sends the call once and sorts what came back; throws only when the call must stop at once. */
  async #attempt(call: Call, path: string, target: string, attempt: number): Promise<AttemptResult> {
    let out: RawOutcome;
    try {
      out = await this.#send(target);
    } catch (err) {
      if (this.#opts.signal?.aborted) throw err;
      if (err instanceof BudgetWaitTooLong) throw this.#budgetRefusal(err, path, attempt);
      this.#metrics.apiRequest(this.account, call.endpoint, 'error');
      const why = err instanceof LimitExceeded ? err.message : `network error: ${errorMessage(err)}`;
      return { failed: { type: 'no_response', why, cause: err }, text: '' };
    }
    this.#metrics.apiRequest(this.account, call.endpoint, out.status);
    if (out.status === 429) this.stats.rate_limited++;
    if (out.status < 200 || out.status >= 300) {
      const failed: FailedAttempt = {
        type: 'status',
        status: out.status,
        retryAfter: out.headers['retry-after'],
      };
      return { failed, text: out.text };
    }
    const parsed = parseJsonBody(out);
    if (!parsed.ok)
      return { failed: { type: 'malformed', status: out.status, why: parsed.why }, text: out.text };
    // Before anything keeps the body: the landing, and all that is derived from it, never holds the key.
    const scrubbed = redactJsonBody(out.text, parsed.body, [this.#apiKey]);
    return {
      answer: {
        call,
        status: out.status,
        path,
        query: call.query,
        receivedAt: new Date().toISOString(),
        bodyText: scrubbed.text,
        body: scrubbed.body,
        findings: inspectEnvelope(scrubbed.body, call.list),
        redactions: scrubbed.redactions,
        serverDate: headerValue(out.headers.date),
      },
    };
  }

  /** A budget wait too long to hold the call: the jobs layer schedules a shorter one; one past the deadline ends the call. */
  #budgetRefusal(err: BudgetWaitTooLong, path: string, attempt: number): Error {
    const deadline = this.#limits.deadline;
    if (!err.pastDeadline || !deadline) return err;
    return new ApiError({
      kind: 'rate_limited',
      account: this.account,
      path,
      attempts: attempt,
      detail: `no request budget for the next ${seconds(err.retryInMs)} s (a Retry-After pause or the rate limit), which ends after the ${describeDeadline(deadline)}`,
      pastDeadline: true,
      pausedUntil: Date.now() + err.retryInMs,
    });
  }

  /** Does what the retry decision says: pause the account, wait, count, or throw its error. */
  async #follow(decision: RetryDecision, path: string, attempt: number, text: string): Promise<void> {
    // However long: every lane, process and machine of the account holds back until then.
    if (decision.pauseAccountMs !== undefined) await this.#pauseAccount(decision.pauseAccountMs, path);
    if (decision.action === 'give_up') {
      const { quoteBody, ...error } = decision.error;
      throw new ApiError({
        ...error,
        ...(quoteBody ? { body: this.#snippet(text) } : {}),
        account: this.account,
        path,
        attempts: attempt,
      });
    }
    if (decision.backoffMs === undefined) this.stats.retries++;
    else await this.#backoff(decision.backoffMs, decision.counts.failures, path, decision.why);
  }

  /** One request under the account's budget: its slot is settled as soon as the answer's headers are in. */
  async #send(target: string): Promise<RawOutcome> {
    const o = this.#opts;
    const slot = await this.#acquireSlot();
    let settled = false;
    const settle = async () => {
      if (!settled) {
        settled = true;
        await o.budget.settle(this.account, slot, this.limit);
      }
    };
    try {
      return await this.#request(target, settle);
    } finally {
      await settle();
    }
  }

  /** Waits for the account's budget to allow one more request, and counts the wait. */
  async #acquireSlot(): Promise<string> {
    const o = this.#opts;
    const { slot, waitedMs } = await acquireSlot(o.budget, this.account, this.limit, {
      signal: o.signal,
      maxWaitMs: o.maxBudgetWaitMs,
      deadlineAt: this.#limits.deadline?.at,
    });
    this.stats.waited_ms += waitedMs;
    this.stats.calls++;
    this.#metrics.budgetWaited(this.account, waitedMs);
    return slot;
  }

  /** The GET itself, within extract.requestTimeoutSeconds and extract.maxResponseBytes. */
  async #request(target: string, onHeaders: () => Promise<void>): Promise<RawOutcome> {
    const o = this.#opts;
    // One deadline over connect, headers and body: the pool's timeouts are per phase and per
    // chunk, so a body trickling a byte at a time would never trip them.
    const { requestTimeoutMs, maxResponseBytes } = this.#limits;
    const timer = new AbortController();
    const timeout = setTimeout(
      () =>
        timer.abort(
          new LimitExceeded(
            `no complete response within ${requestTimeoutMs / 1000} s (extract.requestTimeoutSeconds)`,
          ),
        ),
      requestTimeoutMs,
    );
    // The caller's stop aborts the request through the timer's controller: AbortSignal.any made a
    // composite signal per request (weak references and a finalizer each), a cost paid per call.
    const stop = o.signal;
    const onStop = () => timer.abort(stop?.reason);
    if (stop?.aborted) onStop();
    else stop?.addEventListener('abort', onStop, { once: true });
    try {
      const res = await poolFor(this.#origin, o.timeouts ?? DEFAULT_TIMEOUTS).request({
        method: 'GET',
        path: target,
        headers: { authorization: this.#auth, accept: 'application/json', 'user-agent': 'visibility-sync' },
        signal: timer.signal,
      });
      await onHeaders();
      const text = await readCapped(res, maxResponseBytes);
      return { status: res.statusCode, headers: res.headers, text };
    } catch (err) {
      if (timer.signal.aborted && !stop?.aborted) throw timer.signal.reason;
      throw err;
    } finally {
      clearTimeout(timeout);
      stop?.removeEventListener('abort', onStop);
    }
  }

  /** Start of an upstream body for messages, with this client's key taken out in any form. */
  #snippet(text: string): string {
    return redactSecrets(excerpt(text, BODY_SNIPPET), [this.#apiKey]);
  }

  async #pauseAccount(waitMs: number, path: string): Promise<void> {
    const until = Date.now() + waitMs;
    this.#opts.logger?.warn(
      { account: this.account, path, pause_ms: waitMs },
      'rate limited: pausing the account',
    );
    await this.#opts.budget.pause(this.account, until);
  }

  async #backoff(ms: number, n: number, path: string, why: string): Promise<void> {
    this.stats.retries++;
    this.stats.waited_ms += Math.round(ms);
    this.#opts.logger?.warn(
      { account: this.account, path, attempt: n, backoff_ms: Math.round(ms), why },
      'retrying',
    );
    await sleep(ms, this.#opts.signal);
  }
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
