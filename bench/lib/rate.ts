// How close an account's traffic came to its sliding-window limit, from the simulator's arrival log.
import { minimumDurationMs } from '../../src/extract/plan.js';

export interface WindowLimit {
  requests: number;
  windowMs: number;
}

/** What the rate measures need of a request log entry. */
export interface Arrival {
  account: string | null;
  /** Arrival, epoch ms. */
  at: number;
  /** 429: rejected by the limit; 0: the connection was reset. */
  status: number;
}

export interface AccountRate {
  account: string;
  /** Every request of the account in the log, whatever its answer. */
  requests: number;
  /** Requests the limit let through (the ones that count against the window). */
  admitted: number;
  status429: number;
  /** First to last admitted request. */
  span_ms: number;
  /** The least time `admitted` requests can take under the limit: floor((N-1)/L) x W. */
  bound_ms: number;
  /** bound / span: 1 is the limit used to the full; an account the limit never held back scores 1. */
  ratio: number;
}

export const windowBoundMs = minimumDurationMs;

/** bound / span of one account's admitted arrival times (any order). */
export function rateRatio(
  times: readonly number[],
  limit: WindowLimit,
): { span_ms: number; bound_ms: number; ratio: number } {
  if (times.length < 2) return { span_ms: 0, bound_ms: 0, ratio: 1 };
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const t of times) {
    if (t < first) first = t;
    if (t > last) last = t;
  }
  const span = last - first;
  const bound = windowBoundMs(times.length, limit);
  // Within one window the limit asks for no wait: nothing to judge, so it cannot count as slow.
  return { span_ms: span, bound_ms: bound, ratio: bound === 0 ? 1 : bound / span };
}

/** Per account in `accounts` (those absent from the log too: 0 requests, ratio 1). */
export function accountRates(
  log: readonly Arrival[],
  accounts: readonly string[],
  limit: WindowLimit,
): AccountRate[] {
  const by = new Map<string, Arrival[]>(accounts.map((a) => [a, []]));
  for (const e of log) if (e.account !== null) by.get(e.account)?.push(e);
  return accounts.map((account) => {
    const mine = by.get(account) as Arrival[];
    const admitted = mine.filter((e) => e.status !== 429 && e.status !== 0).map((e) => e.at);
    return {
      account,
      requests: mine.length,
      admitted: admitted.length,
      status429: mine.filter((e) => e.status === 429).length,
      ...rateRatio(admitted, limit),
    };
  });
}
