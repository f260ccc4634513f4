// The rate budget's Lua scripts (jobs/redis-rate-budget.ts runs them through jobs/redis-scripts.ts):
// each read-then-write of an account's window is one script, so processes sharing it never interleave.
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

export const BUDGET_SCRIPTS = {
  visyncBudgetTake: { numberOfKeys: 3, lua: TAKE },
  visyncBudgetReserve: { numberOfKeys: 4, lua: RESERVE },
  visyncBudgetSettleMany: { numberOfKeys: 1, lua: SETTLE_MANY },
  visyncBudgetSettle: { numberOfKeys: 1, lua: SETTLE },
  visyncBudgetPause: { numberOfKeys: 1, lua: PAUSE },
  visyncBudgetPeek: { numberOfKeys: 2, lua: PEEK },
} as const;
