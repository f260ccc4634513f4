// The account's request budget in Redis, so every worker process and machine of an account draws
// from one sliding log and obeys one pause. Same semantics as MemoryRateBudget (see
// src/api/rate-budget.ts); each operation is one Lua script, so check-and-take is atomic across
// clients, and every timestamp comes from the Redis server clock (TIME), so workers whose clocks
// disagree still agree on the window. Only durations cross the wire: a retryInMs is valid on any
// client clock, and a pause deadline is sent as "this many ms from now".
//
// Keys (the {account} hash tag keeps an account's keys in one cluster slot, which a script
// touching several needs):
//   {prefix}:budget:{account}:slots  ZSET slot id -> µs it counts from (send, then answer time)
//   {prefix}:budget:{account}:pause  string: server-clock ms the pause ends; its TTL is the pause
//                                    (capped, extract.maxPauseSeconds): only the TTL is read
//   {prefix}:budget:{account}:since  string: server-clock µs a ramp started (exists only during it)
//   {prefix}:budget:{account}:queue  string: calls promised to jobs that were refused (RESERVE) and
//                                    told when to come back, so the next one comes after them
// All carry a TTL, so an idle account leaves nothing behind. No key or value holds an API key.
//
// A Redis that restarts without persistence (or is flushed) loses the log while the upstream still
// counts the requests of the last window. A process that has taken slots for an account and then
// finds no log at all does not trust the emptiness: it assumes the lost window was spent evenly and
// ramps, granting at most `requests` slots spread over the next window (the first at once, the k-th
// k/requests of a window later). The log also expires after two idle windows, which then costs one
// ramped window: the same number of requests in that window, only spread out. A process taking for
// the first time has no sign of a loss and starts with the full window (a new install, a test).

import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { cappedPauseMs, DEFAULT_MAX_PAUSE_MS } from '../src/api/pause-cap.js';
import type {
  BudgetOptions,
  RateLimit,
  ReservableBudget,
  ReserveOptions,
  ReserveResult,
  TakeResult,
} from '../src/api/rate-budget.js';
import { type ScriptedRedis, scripted } from './redis-scripts.js';

export interface RedisRateBudgetOptions extends BudgetOptions {
  /** Namespace of every key, e.g. `visync`; tests use a unique one each. */
  prefix: string;
}

export interface BudgetState {
  /** Slots counted in the current window (requests in flight included). */
  inWindow: number;
  /** Ms until the account's pause ends, 0 when not paused. */
  pausedForMs: number;
}

export function budgetKeys(
  prefix: string,
  account: string,
): { slots: string; pause: string; since: string; queue: string } {
  const base = `${prefix}:budget:{${account}}`;
  return { slots: `${base}:slots`, pause: `${base}:pause`, since: `${base}:since`, queue: `${base}:queue` };
}

function pair(reply: unknown): [number, number] {
  if (!Array.isArray(reply) || reply.length !== 2)
    throw new Error(`unexpected budget script reply: ${String(reply)}`);
  return [Number(reply[0]), Number(reply[1])];
}

function checkLimit(limit: RateLimit): void {
  if (!(limit.requests >= 1) || !(limit.windowMs > 0)) {
    throw new Error(`invalid rate limit: ${limit.requests} requests per ${limit.windowMs} ms`);
  }
}

/** An account's budget as `visync status` shows it; reads only, takes nothing. */
export async function peekBudget(
  redis: Redis,
  prefix: string,
  account: string,
  limit: RateLimit,
): Promise<BudgetState> {
  const k = budgetKeys(prefix, account);
  const [inWindow, pausedForMs] = pair(
    await scripted(redis).visyncBudgetPeek(k.slots, k.pause, limit.windowMs),
  );
  return { inWindow, pausedForMs };
}

/** Where pauses are announced, so that reservations held in other processes stop at once. */
const pauseChannel = (prefix: string) => `${prefix}:budget-pauses`;

export class RedisRateBudget implements ReservableBudget {
  readonly #redis: ScriptedRedis;
  readonly #prefix: string;
  /** Accounts this process has taken slots for: for them a missing log is a lost one. */
  readonly #seen = new Set<string>();
  /** Pauses this process set or heard of: account -> local-clock ms until which it holds back. */
  readonly #paused = new Map<string, number>();
  readonly #maxPauseMs: number;

  constructor(redis: Redis, opts: RedisRateBudgetOptions) {
    if (!opts.prefix) throw new Error('RedisRateBudget needs a key prefix');
    this.#redis = scripted(redis);
    this.#prefix = opts.prefix;
    this.#maxPauseMs = opts.maxPauseMs ?? DEFAULT_MAX_PAUSE_MS;
  }

  async tryTake(account: string, limit: RateLimit): Promise<TakeResult> {
    checkLimit(limit);
    const k = budgetKeys(this.#prefix, account);
    // Random ids: slots come from many processes, so no local counter can make them unique.
    const slot = randomUUID();
    const seen = this.#seen.has(account) ? 1 : 0;
    const [ok, retryInMs] = pair(
      await this.#redis.visyncBudgetTake(
        k.slots,
        k.pause,
        k.since,
        limit.requests,
        limit.windowMs,
        slot,
        seen,
      ),
    );
    if (ok === 1) this.#seen.add(account);
    return ok === 1 ? { ok: true, slot } : { ok: false, retryInMs: Math.max(1, retryInMs) };
  }

  async reserve(
    account: string,
    limit: RateLimit,
    wanted: number,
    holdMs: number,
    opts: ReserveOptions = {},
  ): Promise<ReserveResult> {
    checkLimit(limit);
    const k = budgetKeys(this.#prefix, account);
    const base = randomUUID();
    const seen = this.#seen.has(account) ? 1 : 0;
    const [granted, retryInMs] = pair(
      await this.#redis.visyncBudgetReserve(
        k.slots,
        k.pause,
        k.since,
        k.queue,
        limit.requests,
        limit.windowMs,
        base,
        seen,
        Math.max(1, Math.floor(wanted)),
        Math.ceil(holdMs),
        opts.underWay ? 1 : 0,
        opts.settle?.used.length ?? 0,
        ...(opts.settle?.used ?? []),
        ...(opts.settle?.unused ?? []),
      ),
    );
    if (granted < 1) return { slots: [], retryInMs: Math.max(1, retryInMs) };
    this.#seen.add(account);
    return { slots: Array.from({ length: granted }, (_, i) => `${base}:${i + 1}`), retryInMs: 0 };
  }

  async settleMany(account: string, used: string[], unused: string[], limit: RateLimit): Promise<void> {
    if (!used.length && !unused.length) return;
    const k = budgetKeys(this.#prefix, account);
    await this.#redis.visyncBudgetSettleMany(k.slots, limit.windowMs, used.length, ...used, ...unused);
  }

  async settle(account: string, slot: string, limit: RateLimit): Promise<void> {
    const k = budgetKeys(this.#prefix, account);
    await this.#redis.visyncBudgetSettle(k.slots, slot, limit.windowMs);
  }

  async pause(account: string, untilMs: number): Promise<void> {
    // untilMs is on this machine's clock; only the remaining duration means the same on the server.
    const forMs = cappedPauseMs(untilMs - Date.now(), this.#maxPauseMs);
    if (forMs === 0) return;
    this.#heard(account, forMs);
    const k = budgetKeys(this.#prefix, account);
    await this.#redis.visyncBudgetPause(k.pause, forMs);
    await this.#redis.publish(pauseChannel(this.#prefix), `${forMs} ${account}`);
  }

  /** Ms the account is known to be paused for here (0: not paused, as far as this process knows). */
  pausedFor(account: string): number {
    const until = this.#paused.get(account);
    if (until === undefined) return 0;
    const left = until - Date.now();
    if (left > 0) return left;
    this.#paused.delete(account);
    return 0;
  }

  /**
   * Hears the pauses other processes set, on `subscriber` (a connection of its own: a subscribed
   * connection runs no other command). Pauses are rare: this costs nothing per request.
   */
  async listen(subscriber: Redis): Promise<void> {
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== pauseChannel(this.#prefix)) return;
      const space = message.indexOf(' ');
      const forMs = Number(message.slice(0, space));
      if (space > 0 && forMs > 0) this.#heard(message.slice(space + 1), forMs);
    });
    await subscriber.subscribe(pauseChannel(this.#prefix));
  }

  /** A pause of `forMs` from now (capped: another process may run an older version or another cap). */
  #heard(account: string, forMs: number): void {
    const until = Date.now() + cappedPauseMs(forMs, this.#maxPauseMs);
    this.#paused.set(account, Math.max(this.#paused.get(account) ?? 0, until));
  }

  peek(account: string, limit: RateLimit): Promise<BudgetState> {
    return peekBudget(this.#redis, this.#prefix, account, limit);
  }
}
