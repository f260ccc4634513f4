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
import { LuaScript } from './lua-script.js';

// Scores are integer microseconds: exact in a double (~1.7e15 < 2^53) and fine enough that a
// slot never frees earlier than a millisecond clock would let it.
const NOW_US = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
`;

// Extends a key's TTL to at least `ms`, never shortens it: callers may disagree on the window
// (a limit lowered mid-run), and the longest one must keep its slots.
const KEEP_FOR = `
local function keep_for(key, ms)
  local ttl = redis.call('PTTL', key)
  if ttl == -2 then return end
  if ttl < ms then redis.call('PEXPIRE', key, ms) end
end
`;

/**
 * Shared by TAKE and RESERVE (same KEYS[1..3] and ARGV[1..4]): returns the pause's remaining time
 * when the account is paused; else leaves `count` (slots used in the window) and `allowed` (what
 * the window, or the ramp after a lost log, allows now).
 */
const WINDOW_STATE = `
local requests = tonumber(ARGV[1])
local window_us = tonumber(ARGV[2]) * 1000
-- The pause is its key's TTL: no arithmetic on a stored value. A pause key without one (left by
-- an older visync, whose pause could outlive any run) is dropped.
local paused = redis.call('PTTL', KEYS[2])
if paused > 0 then return {0, paused} end
if paused == -1 then redis.call('DEL', KEYS[2]) end
local since = tonumber(redis.call('GET', KEYS[3]) or '-1')
if since < 0 and ARGV[4] == '1' and redis.call('EXISTS', KEYS[1]) == 0 then
  since = now
  redis.call('SET', KEYS[3], string.format('%.0f', now), 'PX', tonumber(ARGV[2]))
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window_us)
local count = redis.call('ZCARD', KEYS[1])
local allowed = requests
if since >= 0 and now - since < window_us then
  allowed = math.min(requests, math.floor(requests * (now - since) / window_us) + 1)
end
`;

/**
 * Settles slots of KEYS[1] listed from ARGV[at]: the number of used ones, their ids, then the ids
 * of unused ones (the rest of ARGV). Used ones count from now, unused ones are given back. Returns
 * how many were listed.
 */
const SETTLE_SLOTS = `
local function settle_slots(at)
  local used = tonumber(ARGV[at])
  if used > 0 then
    local args = {}
    for i = at + 1, at + used do
      args[#args + 1] = string.format('%.0f', now)
      args[#args + 1] = ARGV[i]
    end
    redis.call('ZADD', KEYS[1], 'XX', unpack(args))
  end
  if #ARGV > at + used then
    redis.call('ZREM', KEYS[1], unpack(ARGV, at + 1 + used))
  end
  return #ARGV - at
end
`;

/**
 * KEYS: slots, pause, since. ARGV: requests, windowMs, slot id, 1 when this process has taken from
 * the account before (so a missing log may be a lost one). Returns {1, 0} or {0, retryInMs}.
 */
const TAKE = `${NOW_US}${KEEP_FOR}${WINDOW_STATE}if count < allowed then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  keep_for(KEYS[1], 2 * tonumber(ARGV[2]))
  return {1, 0}
end
if count < requests then
  -- Held back by the ramp: the next slot comes when the ramp allows one more.
  local at = since + math.ceil(count * window_us / requests)
  return {0, math.floor((at - now) / 1000) + 1}
end
local oldest = tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2])
return {0, math.floor((oldest + window_us - now) / 1000) + 1}
`;

/**
 * TAKE for up to ARGV[5] slots at once (a job's known calls), granting what the window allows now.
 * KEYS: slots, pause, since, queue. ARGV: requests, windowMs, slot id base, seen (as TAKE), wanted,
 * holdMs, 1 when the job is under way (ReserveOptions), then the job's slots to settle first as
 * SETTLE_MANY lists them (from ARGV[8]: a job that used up its slots settles them and reserves more
 * in one round trip). Granted slots are `base:1`..`base:g`,
 * scored `holdMs` ahead: until their holder settles them (with the time it is done) they count as
 * if their requests were answered at the end of the hold, so a holder that dies never frees them
 * early. Returns {granted, retryInMs}.
 */
const RESERVE = `${NOW_US}${KEEP_FOR}${SETTLE_SLOTS}
if settle_slots(8) > 0 then keep_for(KEYS[1], 2 * tonumber(ARGV[2])) end
${WINDOW_STATE}local granted = math.min(tonumber(ARGV[5]), allowed - count)
if granted > 0 then
  local at = string.format('%.0f', now + tonumber(ARGV[6]) * 1000)
  local args = {}
  for i = 1, granted do
    args[#args + 1] = at
    args[#args + 1] = ARGV[3] .. ':' .. i
  end
  redis.call('ZADD', KEYS[1], unpack(args))
  keep_for(KEYS[1], 2 * tonumber(ARGV[2]) + tonumber(ARGV[6]))
  -- A job that was promised slots has come back for them: they are no longer ahead of others.
  local promised = tonumber(redis.call('GET', KEYS[4]) or '0')
  if promised > granted then
    redis.call('DECRBY', KEYS[4], granted)
  elseif promised > 0 then
    redis.call('DEL', KEYS[4])
  end
  return {granted, 0}
end
-- Refused jobs queue up: the key counts the calls promised to jobs refused before this one, and
-- this one is told to come back when the log has freed a slot for its first call after theirs, so
-- they return one after another as the budget frees instead of all at once (and a waiting
-- account's jobs wait in the queue, not in worker slots). It then takes what is free and the rest
-- as it frees: told to wait for all of its calls, a job in a window that frees a slot at a time
-- (as its account's previous window was sent) waited, or stepped aside, seconds too long.
-- A job under way (ARGV[7]: it had slots of this window and wants more) is not a newcomer: it
-- takes the next slot that frees and promises nothing more. Queued behind the promised calls, it
-- waited behind its own (it was promised them when it was refused) and stepped aside, seconds late.
local promised = tonumber(redis.call('GET', KEYS[4]) or '0')
local under_way = ARGV[7] == '1'
local idx = promised
if under_way then idx = 0 end
local back_at
if count < requests then
  back_at = since + math.ceil((count + idx) * window_us / requests)
else
  local entry = redis.call('ZRANGE', KEYS[1], idx % count, idx % count, 'WITHSCORES')
  back_at = tonumber(entry[2]) + window_us * (1 + math.floor(idx / count))
end
if not under_way then
  local ahead = promised + math.min(tonumber(ARGV[5]), requests)
  redis.call('SET', KEYS[4], ahead, 'PX', math.ceil((back_at - now) / 1000) + tonumber(ARGV[2]))
end
return {0, math.max(1, math.floor((back_at - now) / 1000) + 1)}
`;

/**
 * KEYS: slots. ARGV: windowMs, number of used slots, then the used slot ids, then the unused ones.
 * Used slots count from now (their requests were answered by now); unused ones are given back.
 */
const SETTLE_MANY = `${NOW_US}${KEEP_FOR}${SETTLE_SLOTS}
settle_slots(2)
keep_for(KEYS[1], 2 * tonumber(ARGV[1]))
return 0
`;

/** KEYS: slots. ARGV: slot id, windowMs. The slot now counts from the answer (if still in the log). */
const SETTLE = `${NOW_US}${KEEP_FOR}
if redis.call('ZADD', KEYS[1], 'XX', 'CH', now, ARGV[1]) == 1 then
  keep_for(KEYS[1], 2 * tonumber(ARGV[2]))
end
return 0
`;

/**
 * KEYS: pause. ARGV: whole ms from now (client-measured, already capped: src/api/pause-cap.ts).
 * Never shortens a pause; the key is written with its expiry in one command, so it always has one.
 */
const PAUSE = `${NOW_US}
local for_ms = math.floor(tonumber(ARGV[1]) or 0)
if for_ms < 1 then return 0 end
if redis.call('PTTL', KEYS[1]) >= for_ms then return 0 end
redis.call('SET', KEYS[1], string.format('%.0f', math.ceil(now / 1000) + for_ms), 'PX', for_ms)
return 1
`;

/** KEYS: slots, pause. ARGV: windowMs. Returns {slots in window, ms of pause left}. Read-only. */
const PEEK = `${NOW_US}
-- Lua's tostring keeps 14 digits; a µs timestamp needs 16.
local after = '(' .. string.format('%.0f', now - tonumber(ARGV[1]) * 1000)
local in_window = redis.call('ZCOUNT', KEYS[1], after, '+inf')
local left = redis.call('PTTL', KEYS[2])
if left < 0 then left = 0 end
return {in_window, left}
`;

const takeScript = new LuaScript(TAKE);
const reserveScript = new LuaScript(RESERVE);
const settleManyScript = new LuaScript(SETTLE_MANY);
const settleScript = new LuaScript(SETTLE);
const pauseScript = new LuaScript(PAUSE);
const peekScript = new LuaScript(PEEK);

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
  const [inWindow, pausedForMs] = pair(await peekScript.run(redis, [k.slots, k.pause], [limit.windowMs]));
  return { inWindow, pausedForMs };
}

/** Where pauses are announced, so that reservations held in other processes stop at once. */
const pauseChannel = (prefix: string) => `${prefix}:budget-pauses`;

export class RedisRateBudget implements ReservableBudget {
  readonly #redis: Redis;
  readonly #prefix: string;
  /** Accounts this process has taken slots for: for them a missing log is a lost one. */
  readonly #seen = new Set<string>();
  /** Pauses this process set or heard of: account -> local-clock ms until which it holds back. */
  readonly #paused = new Map<string, number>();
  readonly #maxPauseMs: number;

  constructor(redis: Redis, opts: RedisRateBudgetOptions) {
    if (!opts.prefix) throw new Error('RedisRateBudget needs a key prefix');
    this.#redis = redis;
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
      await takeScript.run(
        this.#redis,
        [k.slots, k.pause, k.since],
        [limit.requests, limit.windowMs, slot, seen],
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
      await reserveScript.run(
        this.#redis,
        [k.slots, k.pause, k.since, k.queue],
        [
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
        ],
      ),
    );
    if (granted < 1) return { slots: [], retryInMs: Math.max(1, retryInMs) };
    this.#seen.add(account);
    return { slots: Array.from({ length: granted }, (_, i) => `${base}:${i + 1}`), retryInMs: 0 };
  }

  async settleMany(account: string, used: string[], unused: string[], limit: RateLimit): Promise<void> {
    if (!used.length && !unused.length) return;
    const k = budgetKeys(this.#prefix, account);
    await settleManyScript.run(this.#redis, [k.slots], [limit.windowMs, used.length, ...used, ...unused]);
  }

  async settle(account: string, slot: string, limit: RateLimit): Promise<void> {
    const k = budgetKeys(this.#prefix, account);
    await settleScript.run(this.#redis, [k.slots], [slot, limit.windowMs]);
  }

  async pause(account: string, untilMs: number): Promise<void> {
    // untilMs is on this machine's clock; only the remaining duration means the same on the server.
    const forMs = cappedPauseMs(untilMs - Date.now(), this.#maxPauseMs);
    if (forMs === 0) return;
    this.#heard(account, forMs);
    const k = budgetKeys(this.#prefix, account);
    await pauseScript.run(this.#redis, [k.pause], [forMs]);
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
