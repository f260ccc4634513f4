// The Redis side of a run --once lease (src/runs/run-lease.ts): `{prefix}:run-lease:{account}:{run}`
// holds the owner's token with the lease's expiry, set again at each renewal (so a Redis restarted
// without persistence has it back within a third of the TTL), removed only by its owner. Taking it
// over from a gone owner is one script, so two processes completing one run cannot both win.
import type { Redis } from 'ioredis';
import type { RunCoordinates } from '../src/runs/run-coordinates.js';
import type { LeaseSignal } from '../src/runs/run-lease.js';
import { LuaScript } from './lua-script.js';
import { releaseIfHeld } from './redis-key-lock.js';

/** KEYS: the lease. ARGV: token, ttl ms, the token it may replace ('' for none). 1: taken. */
const claim = new LuaScript(`
local held = redis.call('GET', KEYS[1])
if held and held ~= ARGV[3] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`);

export class RedisLeaseSignal implements LeaseSignal {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async claim(
    run: RunCoordinates,
    token: string,
    ttlMs: number,
    previous: string | undefined,
  ): Promise<boolean> {
    return (await claim.run(this.redis, [this.#key(run)], [token, ttl(ttlMs), previous ?? ''])) === 1;
  }

  async renew(run: RunCoordinates, token: string, ttlMs: number): Promise<boolean> {
    // The same script: free (Redis lost it) or ours, it is set again; another's, it is left alone.
    return (await claim.run(this.redis, [this.#key(run)], [token, ttl(ttlMs), token])) === 1;
  }

  async held(run: RunCoordinates): Promise<boolean> {
    return (await this.redis.exists(this.#key(run))) === 1;
  }

  async release(run: RunCoordinates, token: string): Promise<void> {
    await releaseIfHeld.run(this.redis, [this.#key(run)], [token]);
  }

  #key(run: RunCoordinates): string {
    return `${this.prefix}:run-lease:{${run.account}}:${run.runId}`;
  }
}

const ttl = (ms: number) => Math.max(1, Math.round(ms));
