// The one way visibility-sync talks to the upstream API: bearer auth, the account's shared rate
// budget before every request (retries included), Retry-After as an account-wide pause, bounded
// retries with full-jitter backoff, and failures sorted into ApiError kinds.
import type { Logger } from 'pino';
import { isLoopbackHost } from '../util/net.js';
import { sleep } from '../util/time.js';
import type { Call } from './endpoints.js';
import { type EnvelopeFinding, inspectEnvelope } from './envelope.js';
import { ApiError, type ApiErrorDetails, kindForStatus } from './errors.js';
import { DEFAULT_TIMEOUTS, type HttpTimeouts, poolFor } from './http-pools.js';
import { acquireSlot, type RateBudget, type RateLimit } from './rate-budget.js';
import { emptyStats, type RequestStats } from './request-stats.js';
import { parseRetryAfter } from './retry-after.js';

export interface RetryPolicy {
  /** Attempts for one call on 5xx, network errors and malformed bodies (first try included). */
  attempts: number;
  baseMs: number;
  capMs: number;
  /** 429 answers tolerated for one call before it fails as rate_limited. */
  rateLimitedRetries: number;
  /** A Retry-After longer than this fails the call instead of pausing the account. */
  maxPauseMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  attempts: 5,
  baseMs: 500,
  capMs: 30_000,
  rateLimitedRetries: 20,
  maxPauseMs: 15 * 60_000,
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
  }

  async get(call: Call): Promise<ApiResponse> {
    const path = this.#prefix + call.path;
    const qs = new URLSearchParams(call.query).toString();
    const target = qs ? `${path}?${qs}` : path;
    const workspacePath = call.brandId !== undefined;
    let failures = 0;
    let rateLimited = 0;
    for (let attempt = 1; ; attempt++) {
      const fail = (d: Pick<ApiErrorDetails, 'kind' | 'status' | 'body' | 'cause'>) =>
        new ApiError({ ...d, account: this.account, path, attempts: attempt });
      let out: RawOutcome;
      try {
        out = await this.#send(target);
      } catch (err) {
        if (this.#opts.signal?.aborted || (err as Error).name === 'BudgetWaitTooLong') throw err;
        const why = (err as Error).message;
        if (++failures >= this.#retry.attempts) throw fail({ kind: 'transient', body: why, cause: err });
        await this.#backoff(failures, path, `network error: ${why}`);
        continue;
      }

      if (out.status === 429) {
        this.stats.rate_limited++;
        rateLimited++;
        const waitMs = parseRetryAfter(out.headers['retry-after'], Date.now()) ?? this.#jitter(rateLimited);
        if (rateLimited > this.#retry.rateLimitedRetries || waitMs > this.#retry.maxPauseMs) {
          throw fail({ kind: 'rate_limited', status: 429, body: snippet(out.text) });
        }
        await this.#pauseAccount(waitMs, path);
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
          throw fail({ kind: 'malformed', status: out.status, body: parsed.why });
        await this.#backoff(failures, path, parsed.why);
        continue;
      }

      // 4xx cannot improve by asking again; 5xx may, until the attempts run out.
      const kind = kindForStatus(out.status, workspacePath);
      if (kind !== 'transient' || ++failures >= this.#retry.attempts) {
        throw fail({ kind, status: out.status, body: snippet(out.text) });
      }
      const retryAfter = parseRetryAfter(out.headers['retry-after'], Date.now());
      if (retryAfter !== undefined && retryAfter <= this.#retry.maxPauseMs) {
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
    });
    this.stats.waited_ms += waitedMs;
    this.stats.calls++;
    let settled = false;
    const settle = async () => {
      if (!settled) {
        settled = true;
        await o.budget.settle(this.account, slot, this.limit);
      }
    };
    try {
      const res = await poolFor(this.#origin, o.timeouts ?? DEFAULT_TIMEOUTS).request({
        method: 'GET',
        path: target,
        headers: { authorization: this.#auth, accept: 'application/json', 'user-agent': 'visibility-sync' },
        ...(o.signal ? { signal: o.signal } : {}),
      });
      await settle();
      const text = await res.body.text();
      return { status: res.statusCode, headers: res.headers, text };
    } finally {
      await settle();
    }
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

function snippet(text: string): string {
  return text.length > BODY_SNIPPET ? `${text.slice(0, BODY_SNIPPET)}...` : text;
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
