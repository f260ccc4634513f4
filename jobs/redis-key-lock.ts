// KeyLock (src/sinks/key-lock.ts) across processes: SET NX with an expiry, released only by its
// holder (compare-and-delete), one script for every key a holder takes together and one to give
// them back. The expiry frees a key whose holder died; a live holder renews it every third of it.
//
// A key's lock is `{prefix}:lock:{<its folder>}/<its name>`: the hash tag puts the keys of one
// folder (an account's latest/ bundles) in one Redis Cluster slot, which a script taking several
// needs. Workers older than this (lock keys without the tag) and newer ones do not exclude each
// other while both run: an upgrade should not overlap two runs of one account finishing.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { type KeyLock, keyFolder, lockOrder, MemoryKeyLock } from '../src/sinks/key-lock.js';
import { sleep } from '../src/util/time.js';
import { scripted } from './redis-scripts.js';

export interface RedisKeyLockOptions {
  ttlMs?: number;
  /**
   * Give up waiting for a lock after this long (an error, not a silent skip). Default 10 minutes:
   * a live holder renews its locks, so another run of the account may hold them for as long as it
   * writes its bundles.
   */
  waitMs?: number;
}

export class RedisKeyLock implements KeyLock {
  // Callers in this process queue here first, so only one of them polls Redis per key.
  readonly #local = new MemoryKeyLock();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly opts: RedisKeyLockOptions = {},
  ) {}

  async runAll<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T> {
    const sorted = lockOrder(keys);
    return this.#local.runAll(sorted, async () => {
      const redis = scripted(this.redis);
      const lockKeys = sorted.map((k) => this.#lockKey(k));
      const token = randomUUID();
      const ttlMs = this.opts.ttlMs ?? 30_000;
      const deadline = Date.now() + (this.opts.waitMs ?? 600_000);
      // Asked again after 20 ms, then twice as long each time up to a second.
      for (
        let pause = 20;
        (await redis.visyncLockAcquire(lockKeys.length, ...lockKeys, token, ttlMs)) !== 1;
      ) {
        if (Date.now() > deadline)
          throw new Error(`${sorted.join(', ')}: locked by another run for too long`);
        await sleep(pause);
        pause = Math.min(1000, pause * 2);
      }
      // Renewed while held (a batch of bundles on a slow store can take longer than the expiry);
      // a holder that dies stops renewing, and its locks lapse within the expiry.
      const renew = setInterval(() => {
        redis.visyncLockExtend(lockKeys.length, ...lockKeys, token, ttlMs).catch(() => {});
      }, ttlMs / 3);
      renew.unref();
      try {
        return await fn();
      } finally {
        clearInterval(renew);
        await redis.visyncReleaseIfHeld(lockKeys.length, ...lockKeys, token);
      }
    });
  }

  #lockKey(key: string): string {
    const folder = keyFolder(key);
    return `${this.prefix}:lock:{${folder || '_'}}/${folder ? key.slice(folder.length + 1) : key}`;
  }
}
