// The run ledger's Lua scripts (jobs/ledger.ts runs them through jobs/redis-scripts.ts): every
// ledger update that reads before it writes is one script, so two processes finishing at once
// cannot interleave.
import { FINISHED_RUN_STATUSES } from '../../src/records/run-state.js';

/** Request counters read back as 0 when never incremented. */
export const COUNTERS = ['calls', 'rate_limited', 'retries', 'waited_ms'] as const;

/** Lua: adds ARGV[1..4] to the run's request counters (COUNTERS, in order); a zero is not written. */
const ADD_REQUESTS = `local counters = {${COUNTERS.map((c) => `'${c}'`).join(', ')}}
for i = 1, ${COUNTERS.length} do
  local n = tonumber(ARGV[i])
  if n ~= 0 then redis.call('HINCRBY', KEYS[1], counters[i], n) end
end
`;

// Every script first checks that the run is in the ledger: a job still running after Redis lost
// its data must not leave a headless hash behind.
const GUARD = `if redis.call('HEXISTS', KEYS[1], 'run_id') == 0 then return 0 end\n`;

// A finished run's progress is its manifest's (Ledger.finish writes it, then the status): a job
// still at work after that (one BullMQ gave up on while it worked, a worker that lost its lock)
// changes nothing.
const UNFINISHED = `if redis.call('HEXISTS', KEYS[1], 'workspaces_from') == 1 then return 0 end
local status = redis.call('HGET', KEYS[1], 'status')
${FINISHED_RUN_STATUSES.map((st) => `if status == '${st}' then return 0 end`).join('\n')}
`;

export const LEDGER_SCRIPTS = {
  /** KEYS: run, runs. ARGV: run_id, account, kind, run_date, created_at, created ms. */
  visyncLedgerCreate: {
    numberOfKeys: 2,
    lua: `
if redis.call('HSETNX', KEYS[1], 'run_id', ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'account', ARGV[2], 'kind', ARGV[3], 'run_date', ARGV[4],
  'status', 'queued', 'created_at', ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[6], ARGV[1])
return 1`,
  },
  /**
   * KEYS: run, done set, failed set. ARGV: the request counters to add (calls, rate_limited,
   * retries, waited_ms), then per workspace its id and 1 when it failed. A success is final while
   * the run goes on; once it has finished nothing changes.
   */
  visyncLedgerWorkspaces: {
    numberOfKeys: 3,
    lua: `${GUARD}${UNFINISHED}
${ADD_REQUESTS}for i = 5, #ARGV, 2 do
  local ws = ARGV[i]
  if ARGV[i + 1] == '1' then
    if redis.call('SADD', KEYS[2], ws) == 1 or redis.call('SISMEMBER', KEYS[3], ws) == 1 then
      redis.call('SADD', KEYS[3], ws)
    end
  else
    redis.call('SADD', KEYS[2], ws)
    redis.call('SREM', KEYS[3], ws)
  end
end
return 1`,
  },
  /** KEYS: run. ARGV: the stop's message and code; the first stop of a run wins, both together. */
  visyncLedgerStop: {
    numberOfKeys: 1,
    lua: `
if redis.call('HSETNX', KEYS[1], 'stopped', ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'stopped_code', ARGV[2])
return 1`,
  },
  /** KEYS: run. ARGV: calls, rate_limited, retries, waited_ms (a zero is not written). */
  visyncLedgerRequests: {
    numberOfKeys: 1,
    lua: `${GUARD}
${ADD_REQUESTS}return 1`,
  },
  /**
   * KEYS: run, last success (hash run_id, run_date). ARGV: status, '1' when the run moves the mark,
   * the mark's run date that decision was made against ('' for none), then field/value pairs.
   * Whether a run moves the mark is decided by movesLastSuccess; if the mark changed since, nothing
   * is written and -1 asks the caller to decide again.
   */
  visyncLedgerFinish: {
    numberOfKeys: 2,
    lua: `${GUARD}
if ARGV[2] == '1' and (redis.call('HGET', KEYS[2], 'run_date') or '') ~= ARGV[3] then return -1 end
redis.call('HSET', KEYS[1], 'status', ARGV[1], unpack(ARGV, 4))
if ARGV[2] == '1' then
  redis.call('HSET', KEYS[2], 'run_id', redis.call('HGET', KEYS[1], 'run_id'),
    'run_date', redis.call('HGET', KEYS[1], 'run_date'))
end
return 1`,
  },
} as const;
