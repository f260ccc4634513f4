// The Redis side of a run --once lease (src/runs/run-lease.ts): `{prefix}:run-lease:{account}:{run}`
// holds the owner's token with the lease's expiry, set again at each renewal (so a Redis restarted
// without persistence has it back within a third of the TTL), removed only by its owner.
import type { Redis } from 'ioredis';
import type { RunCoordinates } from '../src/runs/run-coordinates.js';
import type { LeaseSignal } from '../src/runs/run-lease.js';
import { releaseIfHeld } from './redis-key-lock.js';

export class RedisLeaseSignal implements LeaseSignal {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async renew(run: RunCoordinates, token: string, ttlMs: number): Promise<void> {
    await this.redis.set(this.#key(run), token, 'PX', Math.max(1, Math.round(ttlMs)));
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
