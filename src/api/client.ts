// The one way visibility-sync talks to the upstream API: bearer auth, the account's shared rate
// budget before every request (retries included), Retry-After as an account-wide pause, bounded
// retries with full-jitter backoff, a size cap and a deadline on every response, and failures
// sorted into ApiError kinds.
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { metrics } from '../ops/metrics.js';
import { isLoopbackHost } from '../util/net.js';
import { redactSecrets } from '../util/redact.js';
import { sleep } from '../util/time.js';
import type { Call } from './endpoints.js';
import { type EnvelopeFinding, inspectEnvelope } from './envelope.js';
import { ApiError, type ApiErrorDetails, excerpt, kindForStatus } from './errors.js';
import { DEFAULT_TIMEOUTS, type HttpTimeouts, poolFor } from './http-pools.js';
import { acquireSlot, BudgetWaitTooLong, type RateBudget, type RateLimit } from './rate-budget.js';
import { emptyStats, type RequestStats } from './request-stats.js';
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

/** Bounds on every call (config: extract.maxResponseBytes, extract.requestTimeoutSeconds, jobs.maxRunHours). */
export interface CallLimits {
  /** A larger body fails the attempt (retryable) instead of filling memory. */
  maxResponseBytes: number;
  /** Connect, headers and body together: a trickling body cannot outlast it. */
  requestTimeoutMs: number;
  /** Budget waits and Retry-After pauses that end after it fail the call instead of waiting. */
  deadline?: RunDeadline;
}

export const DEFAULT_CALL_LIMITS: CallLimits = {
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
}

export interface ApiResponse {
  call: Call;
  status: number;
  /** Request path as sent: base path prefix included, percent-encoded, no query. */
  path: string;
  query: Record<string, string>;
  receivedAt: string;
  /** The body exactly as received. */
  bodyText: string;
  body: unknown;
  findings: EnvelopeFinding[];
}

const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json\s*(?:;|$)/i;
const BODY_SNIPPET = 500;

/** An attempt that broke one of our own limits (size, deadline): retried like a network error. */
class LimitExceeded extends Error {
  override readonly name = 'LimitExceeded';
}

interface RawOutcome {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

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
    const workspacePath = call.brandId !== undefined;
    let failures = 0;
    let rateLimited = 0;
    for (let attempt = 1; ; attempt++) {
      const fail = (d: Omit<ApiErrorDetails, 'account' | 'path' | 'attempts'>) =>
        new ApiError({ ...d, account: this.account, path, attempts: attempt });
      let out: RawOutcome;
      try {
        out = await this.#send(target);
      } catch (err) {
        if (this.#opts.signal?.aborted) throw err;
        if (err instanceof BudgetWaitTooLong) {
          // A shorter wait is the jobs layer's to schedule; one past the deadline ends the call.
          const deadline = this.#limits.deadline;
          if (!err.pastDeadline || !deadline) throw err;
          throw fail({
            kind: 'rate_limited',
            detail: `no request budget for the next ${seconds(err.retryInMs)} s (a Retry-After pause or the rate limit), which ends after the ${describeDeadline(deadline)}`,
            pastDeadline: true,
          });
        }
        metrics.apiRequest(this.account, call.endpoint, 'error');
        const why = err instanceof LimitExceeded ? err.message : `network error: ${(err as Error).message}`;
        if (++failures >= this.#retry.attempts) throw fail({ kind: 'transient', detail: why, cause: err });
        await this.#backoff(failures, path, why);
        continue;
      }
      metrics.apiRequest(this.account, call.endpoint, out.status);

      if (out.status === 429) {
        this.stats.rate_limited++;
        rateLimited++;
        const waitMs = parseRetryAfter(out.headers['retry-after'], Date.now()) ?? this.#jitter(rateLimited);
        // However long: every lane, process and machine of the account holds back until then.
        await this.#pauseAccount(waitMs, path);
        const deadline = this.#limits.deadline;
        if (deadline && Date.now() + waitMs > deadline.at) {
          throw fail({
            kind: 'rate_limited',
            status: 429,
            body: this.#snippet(out.text),
            detail: `the account is paused for ${seconds(waitMs)} s (Retry-After), past the ${describeDeadline(deadline)}`,
            pastDeadline: true,
          });
        }
        if (rateLimited > this.#retry.rateLimitedRetries) {
          throw fail({ kind: 'rate_limited', status: 429, body: this.#snippet(out.text) });
        }
        this.stats.retries++;
        continue;
      }

      if (out.status >= 200 && out.status < 300) {
        const parsed = parseJsonBody(out);
        if (parsed.ok) {
          return {
            call,
            status: out.status,
            path,
            query: call.query,
            receivedAt: new Date().toISOString(),
            bodyText: out.text,
            body: parsed.body,
            findings: inspectEnvelope(parsed.body, call.list),
          };
        }
        // A truncated or mislabelled body is usually a broken connection or proxy: retry it.
        if (++failures >= this.#retry.attempts)
          throw fail({ kind: 'malformed', status: out.status, detail: parsed.why });
        await this.#backoff(failures, path, parsed.why);
        continue;
      }

      // 4xx cannot improve by asking again; 5xx may, until the attempts run out.
      const kind = kindForStatus(out.status, workspacePath);
      if (kind !== 'transient' || ++failures >= this.#retry.attempts) {
        throw fail({ kind, status: out.status, body: this.#snippet(out.text) });
      }
      const retryAfter = parseRetryAfter(out.headers['retry-after'], Date.now());
      if (retryAfter !== undefined) {
        // The next acquireSlot fails the call when this pause outlasts the run's deadline.
        await this.#pauseAccount(retryAfter, path);
        this.stats.retries++;
      } else {
        await this.#backoff(failures, path, `HTTP ${out.status}`);
      }
    }
  }

  async #send(target: string): Promise<RawOutcome> {
    const o = this.#opts;
    const { slot, waitedMs } = await acquireSlot(o.budget, this.account, this.limit, {
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.maxBudgetWaitMs !== undefined ? { maxWaitMs: o.maxBudgetWaitMs } : {}),
      ...(this.#limits.deadline ? { deadlineAt: this.#limits.deadline.at } : {}),
    });
    this.stats.waited_ms += waitedMs;
    this.stats.calls++;
    metrics.budgetWaited(this.account, waitedMs);
    let settled = false;
    const settle = async () => {
      if (!settled) {
        settled = true;
        await o.budget.settle(this.account, slot, this.limit);
      }
    };
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
    const signal = o.signal ? AbortSignal.any([o.signal, timer.signal]) : timer.signal;
    try {
      const res = await poolFor(this.#origin, o.timeouts ?? DEFAULT_TIMEOUTS).request({
        method: 'GET',
        path: target,
        headers: { authorization: this.#auth, accept: 'application/json', 'user-agent': 'visibility-sync' },
        signal,
      });
      await settle();
      const text = await readCapped(res, maxResponseBytes);
      return { status: res.statusCode, headers: res.headers, text };
    } catch (err) {
      if (timer.signal.aborted && !o.signal?.aborted) throw timer.signal.reason;
      throw err;
    } finally {
      clearTimeout(timeout);
      await settle();
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

  #jitter(n: number): number {
    return Math.random() * Math.min(this.#retry.capMs, this.#retry.baseMs * 2 ** (n - 1));
  }

  async #backoff(n: number, path: string, why: string): Promise<void> {
    const ms = this.#jitter(n);
    this.stats.retries++;
    this.stats.waited_ms += Math.round(ms);
    this.#opts.logger?.warn(
      { account: this.account, path, attempt: n, backoff_ms: Math.round(ms), why },
      'retrying',
    );
    await sleep(ms, this.#opts.signal);
  }
}

function seconds(ms: number): number {
  return Math.ceil(ms / 1000);
}

/** The body as text, refused (and the transfer cut) once it passes `max` bytes. */
async function readCapped(res: Dispatcher.ResponseData, max: number): Promise<string> {
  const tooLarge = () =>
    new LimitExceeded(`response body larger than ${max} bytes (extract.maxResponseBytes)`);
  const declared = Number(res.headers['content-length']);
  if (declared > max) {
    res.body.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += (chunk as Buffer).length;
    if (size > max) {
      res.body.destroy();
      throw tooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJsonBody(out: RawOutcome): { ok: true; body: unknown } | { ok: false; why: string } {
  const type = out.headers['content-type'];
  const ct = Array.isArray(type) ? type[0] : type;
  if (!ct || !JSON_TYPE.test(ct)) return { ok: false, why: `content-type is ${ct ?? 'missing'}, not JSON` };
  try {
    return { ok: true, body: JSON.parse(out.text) };
  } catch (err) {
    return { ok: false, why: `body is not valid JSON (${(err as Error).message})` };
  }
}
