// The load batches' Lua scripts (jobs/load-batches.ts runs them through jobs/redis-scripts.ts; its
// header describes the keys): registering a ready run and claiming a batch are one script each.
export const LOAD_BATCH_SCRIPTS = {
  /**
   * KEYS: run, pending, warehouses, gen. ARGV: run id, account, warehouse, attempt, record.
   * -1 when this try of the run is claimed already (a load job retried); else {gen, pending}.
   */
  visyncBatchRegister: {
    numberOfKeys: 4,
    lua: `
if redis.call('HGET', KEYS[1], 'attempt') == ARGV[4] and redis.call('HEXISTS', KEYS[1], 'batch') == 1 then
  return {-1, 0}
end
local t = redis.call('TIME')
local ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'account', ARGV[2], 'warehouse', ARGV[3], 'attempt', ARGV[4],
  'record', ARGV[5], 'ready_at', ms)
redis.call('ZADD', KEYS[2], ms, ARGV[1])
redis.call('SADD', KEYS[3], ARGV[3])
return {tonumber(redis.call('GET', KEYS[4]) or '0'), redis.call('ZCARD', KEYS[2])}`,
  },
  /**
   * KEYS: batch, gen, pending, warehouses. ARGV: gen, limit, run key prefix, batch ref, warehouse,
   * batch id (used when this call claims), keep seconds. The batch as claimed (by this call or an
   * earlier try); false when generation gen is past (its batch claimed elsewhere).
   */
  visyncBatchClaim: {
    numberOfKeys: 4,
    lua: `
if redis.call('EXISTS', KEYS[1]) == 1 then
  return {redis.call('HGET', KEYS[1], 'id'), redis.call('HGET', KEYS[1], 'members') or '',
    redis.call('HGET', KEYS[1], 'done') or '', redis.call('ZCARD', KEYS[3])}
end
if tonumber(redis.call('GET', KEYS[2]) or '0') ~= tonumber(ARGV[1]) then return false end
local members = redis.call('ZRANGE', KEYS[3], 0, tonumber(ARGV[2]) - 1)
if #members > 0 then redis.call('ZREMRANGEBYRANK', KEYS[3], 0, #members - 1) end
for _, m in ipairs(members) do redis.call('HSET', ARGV[3] .. m, 'batch', ARGV[4]) end
local list = table.concat(members, ',')
redis.call('HSET', KEYS[1], 'id', ARGV[6], 'members', list)
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[7]))
redis.call('INCR', KEYS[2])
local remaining = redis.call('ZCARD', KEYS[3])
if remaining == 0 then redis.call('SREM', KEYS[4], ARGV[5]) end
return {ARGV[6], list, '', remaining}`,
  },
} as const;
