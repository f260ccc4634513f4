// The Redis side of a run --once lease (src/records/run-lease.ts): `{prefix}:run-lease:{account}:{run}`
// holds the owner's token with the lease's expiry, set again at each renewal (so a Redis restarted
// without persistence has it back within a third of the TTL), removed only by its owner. Taking it
// over from a gone owner is one script, so two processes completing one run cannot both win.
import type { Redis } from 'ioredis';
import type { RunCoordinates } from '../src/records/run-coordinates.js';
import type { LeaseSignal } from '../src/records/run-lease.js';
import { scripted } from './redis-scripts.js';

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
    return (
      (await scripted(this.redis).visyncLeaseClaim(this.#key(run), token, ttl(ttlMs), previous ?? '')) === 1
    );
  }

  async renew(run: RunCoordinates, token: string, ttlMs: number): Promise<boolean> {
    // The same script: free (Redis lost it) or ours, it is set again; another's, it is left alone.
    return (await scripted(this.redis).visyncLeaseClaim(this.#key(run), token, ttl(ttlMs), token)) === 1;
  }

  async held(run: RunCoordinates): Promise<boolean> {
    return (await this.redis.exists(this.#key(run))) === 1;
  }

  async release(run: RunCoordinates, token: string): Promise<void> {
    await scripted(this.redis).visyncReleaseIfHeld(1, this.#key(run), token);
  }

  #key(run: RunCoordinates): string {
    return `${this.prefix}:run-lease:{${run.account}}:${run.runId}`;
  }
}

const ttl = (ms: number) => Math.max(1, Math.round(ms));
