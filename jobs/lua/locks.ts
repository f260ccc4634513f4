// The Lua scripts of key locks (jobs/redis-key-lock.ts) and run --once leases
// (jobs/redis-run-lease.ts), run through jobs/redis-scripts.ts. The lock scripts take a variable
// list of keys: their callers pass the number of keys first.
export const LOCK_SCRIPTS = {
  /** KEYS: the locks. ARGV: token, ttl ms. Takes all of them (1) or none, when any is held (0). */
  visyncLockAcquire: {
    lua: `
for i = 1, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then return 0 end
end
for i = 1, #KEYS do
  redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[2])
end
return 1
`,
  },
  /** KEYS: the locks. ARGV: token, ttl ms. Extends those still held with the token. */
  visyncLockExtend: {
    lua: `
for i = 1, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[1] then redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
end
return 0
`,
  },
  /** KEYS: the locks. ARGV: token. Removes those still held with the token (also run leases'). */
  visyncReleaseIfHeld: {
    lua: `
local n = 0
for i = 1, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[1] then n = n + redis.call('DEL', KEYS[i]) end
end
return n
`,
  },
  /** KEYS: the lease. ARGV: token, ttl ms, the token it may replace ('' for none). 1: taken. */
  visyncLeaseClaim: {
    numberOfKeys: 1,
    lua: `
local held = redis.call('GET', KEYS[1])
if held and held ~= ARGV[3] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`,
  },
} as const;
