// What the client does after a failed attempt (src/api/retry-decision.ts): the account's pause, this
// call's backoff, or the error it gives up with. The client's tests (api-faults, retry-after) show
// the same decisions against the simulator.
import { describe, expect, it } from 'vitest';
import {
  backoffMs,
  DEFAULT_RETRY,
  decideRetry,
  type FailedAttempt,
  type RetryContext,
  type RetryCounts,
} from '../src/api/retry-decision.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');
const policy = { attempts: 3, baseMs: 100, capMs: 1_000, rateLimitedRetries: 2 };
const ctx = (o: Partial<RetryContext> = {}): RetryContext => ({
  policy,
  workspacePath: false,
  now: NOW,
  random: () => 0.5,
  ...o,
});
const fresh: RetryCounts = { failures: 0, rateLimited: 0 };
const status = (s: number, retryAfter?: string): FailedAttempt => ({ type: 'status', status: s, retryAfter });
const network: FailedAttempt = {
  type: 'no_response',
  why: 'network error: socket hang up',
  cause: new Error('x'),
};
const malformed: FailedAttempt = {
  type: 'malformed',
  status: 200,
  why: 'content-type is text/html, not JSON',
};

describe('429', () => {
  it('with Retry-After in seconds: the account pauses that long and the call asks again', () => {
    expect(decideRetry(status(429, '7'), fresh, ctx())).toEqual({
      action: 'retry',
      pauseAccountMs: 7_000,
      counts: { failures: 0, rateLimited: 1 },
    });
  });

  it('with Retry-After as an HTTP date: the account pauses until then', () => {
    const at = new Date(NOW + 30_000).toUTCString();
    expect(decideRetry(status(429, at), fresh, ctx()).pauseAccountMs).toBe(30_000);
  });

  it('without (or with an unreadable) Retry-After: the account pauses for a jittered backoff that grows', () => {
    expect(decideRetry(status(429), fresh, ctx()).pauseAccountMs).toBe(50);
    expect(decideRetry(status(429, 'soon'), { failures: 0, rateLimited: 1 }, ctx()).pauseAccountMs).toBe(100);
  });

  it('does not use up the attempts of 5xx and network errors', () => {
    const d = decideRetry(status(429), { failures: 2, rateLimited: 0 }, ctx());
    expect(d.action).toBe('retry');
    expect(d.counts).toEqual({ failures: 2, rateLimited: 1 });
  });

  it('beyond rateLimitedRetries: gives up as rate_limited with the body, the account still paused', () => {
    expect(decideRetry(status(429, '1'), { failures: 0, rateLimited: 2 }, ctx())).toEqual({
      action: 'give_up',
      pauseAccountMs: 1_000,
      counts: { failures: 0, rateLimited: 3 },
      error: { kind: 'rate_limited', status: 429, quoteBody: true },
    });
  });

  it('a pause that ends past the run deadline gives up at once, not retryable', () => {
    const deadline = { at: NOW + 60_000, hours: 6 };
    const d = decideRetry(status(429, '61'), fresh, ctx({ deadline }));
    expect(d).toMatchObject({ action: 'give_up', pauseAccountMs: 61_000 });
    expect(d.action === 'give_up' && d.error).toEqual({
      kind: 'rate_limited',
      status: 429,
      pastDeadline: true,
      pausedUntil: NOW + 61_000,
      detail:
        'the pause it asked for (Retry-After: 61) ends after the run deadline of 6 h (jobs.maxRunHours)',
    });
    expect(decideRetry(status(429, '59'), fresh, ctx({ deadline })).action).toBe('retry');
  });

  it('a Retry-After longer than the cap (however absurd) pauses the account for the cap and gives up at once', () => {
    const maxPauseMs = 600_000;
    for (const asked of ['99999999999999999999', '31536000', 'Fri, 31 Dec 9999 23:59:59 GMT', '601']) {
      const d = decideRetry(status(429, asked), fresh, ctx({ maxPauseMs }));
      expect(d).toMatchObject({ action: 'give_up', pauseAccountMs: maxPauseMs });
      expect(d.action === 'give_up' && d.error).toMatchObject({
        kind: 'rate_limited',
        pausedUntil: NOW + maxPauseMs,
        pastDeadline: false,
        detail: `the pause it asked for (Retry-After: ${asked}) is longer than extract.maxPauseSeconds (600 s)`,
      });
    }
    expect(decideRetry(status(429, '600'), fresh, ctx({ maxPauseMs }))).toMatchObject({
      action: 'retry',
      pauseAccountMs: 600_000,
    });
  });
});

describe('5xx', () => {
  it('with a Retry-After beyond the cap: gives up at once naming the status, the account paused for the cap', () => {
    const d = decideRetry(status(503, '86400'), fresh, ctx({ maxPauseMs: 3_600_000 }));
    expect(d).toMatchObject({ action: 'give_up', pauseAccountMs: 3_600_000 });
    expect(d.action === 'give_up' && d.error).toMatchObject({
      kind: 'transient',
      status: 503,
      pausedUntil: NOW + 3_600_000,
    });
    expect(decideRetry(status(503, '60'), fresh, ctx())).toMatchObject({
      action: 'retry',
      pauseAccountMs: 60_000,
    });
  });

  it('backs off this call (jittered, doubling, capped) until the attempts run out', () => {
    expect(decideRetry(status(503), fresh, ctx())).toEqual({
      action: 'retry',
      backoffMs: 50,
      why: 'HTTP 503',
      counts: { failures: 1, rateLimited: 0 },
    });
    const second = decideRetry(status(500), { failures: 1, rateLimited: 0 }, ctx());
    expect(second).toMatchObject({ action: 'retry', backoffMs: 100 });
    expect(decideRetry(status(502), { failures: 2, rateLimited: 0 }, ctx())).toEqual({
      action: 'give_up',
      counts: { failures: 3, rateLimited: 0 },
      error: { kind: 'transient', status: 502, quoteBody: true },
    });
  });

  it('408 is retried like a 5xx', () => {
    expect(decideRetry(status(408), fresh, ctx()).action).toBe('retry');
  });

  it('with Retry-After: the account pauses instead of this call backing off', () => {
    expect(decideRetry(status(503, '2'), fresh, ctx())).toEqual({
      action: 'retry',
      pauseAccountMs: 2_000,
      counts: { failures: 1, rateLimited: 0 },
    });
  });
});

describe('network errors and broken limits', () => {
  it('back off and ask again, then give up as transient with the cause', () => {
    expect(decideRetry(network, fresh, ctx())).toEqual({
      action: 'retry',
      backoffMs: 50,
      why: 'network error: socket hang up',
      counts: { failures: 1, rateLimited: 0 },
    });
    const d = decideRetry(network, { failures: 2, rateLimited: 5 }, ctx());
    expect(d).toEqual({
      action: 'give_up',
      counts: { failures: 3, rateLimited: 5 },
      error: { kind: 'transient', detail: 'network error: socket hang up', cause: expect.any(Error) },
    });
  });
});

describe('malformed 2xx bodies', () => {
  it('are asked again, then give up as malformed with what was wrong', () => {
    expect(decideRetry(malformed, fresh, ctx())).toMatchObject({
      action: 'retry',
      why: 'content-type is text/html, not JSON',
    });
    expect(decideRetry(malformed, { failures: 2, rateLimited: 0 }, ctx())).toEqual({
      action: 'give_up',
      counts: { failures: 3, rateLimited: 0 },
      error: { kind: 'malformed', status: 200, detail: 'content-type is text/html, not JSON' },
    });
  });
});

describe('4xx other than 429', () => {
  it.each([
    [401, false, 'bad_key'],
    [403, false, 'no_api_access'],
    [404, true, 'foreign_workspace'],
    [404, false, 'not_found'],
    [400, false, 'bad_parameter'],
    [422, true, 'bad_parameter'],
  ] as const)('%i (workspace path: %s) gives up at the first attempt as %s', (s, workspacePath, kind) => {
    // A Retry-After on a 4xx changes nothing: asking again cannot help.
    expect(decideRetry(status(s, '1'), fresh, ctx({ workspacePath }))).toEqual({
      action: 'give_up',
      counts: fresh,
      error: { kind, status: s, quoteBody: true },
    });
  });
});

describe('backoff', () => {
  it('is full jitter up to base * 2^(n-1), capped', () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffMs(n, policy, () => 0.999))).toEqual([
      99.9, 199.8, 399.6, 799.2, 999,
    ]);
    expect(backoffMs(3, policy, () => 0)).toBe(0);
  });

  it('defaults: 5 attempts, 0.5 s doubling to 30 s, 20 429s', () => {
    expect(DEFAULT_RETRY).toEqual({ attempts: 5, baseMs: 500, capMs: 30_000, rateLimitedRetries: 20 });
  });
});
