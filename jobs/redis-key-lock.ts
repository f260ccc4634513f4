// KeyLock (src/curate/key-lock.ts) across processes: SET NX with an expiry, released only by its
// holder (compare-and-delete in one script). The expiry frees a key whose holder died; a holder
// takes well under it (one read and one write of a small document).
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { type KeyLock, MemoryKeyLock } from '../src/curate/key-lock.js';
import { sleep } from '../src/util/time.js';
import { LuaScript } from './lua-script.js';

const release = new LuaScript(
  `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`,
);

export interface RedisKeyLockOptions {
  ttlMs?: number;
  /** Give up waiting for a lock after this long (an error, not a silent skip). */
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

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.#local.run(key, async () => {
      const lockKey = `${this.prefix}:lock:${key}`;
      const token = randomUUID();
      const ttlMs = this.opts.ttlMs ?? 30_000;
      const deadline = Date.now() + (this.opts.waitMs ?? 2 * ttlMs);
      while ((await this.redis.set(lockKey, token, 'PX', ttlMs, 'NX')) !== 'OK') {
        if (Date.now() > deadline) throw new Error(`${key} is locked by another run for too long`);
        await sleep(20);
      }
      try {
        return await fn();
      } finally {
        await release.run(this.redis, [lockKey], [token]);
      }
    });
  }
}
