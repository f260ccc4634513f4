// Mutual exclusion per object key, for the one read-modify-write of the pipeline (latest/ bundles).
// In one process a promise chain per key is enough; processes that share Redis (workers, and
// run --once with redis configured) use the Redis lock of jobs/redis-key-lock.ts, which has this shape.

export interface KeyLock {
  /** Runs `fn` while no other holder of this lock runs a function for `key`. */
  run<T>(key: string, fn: () => Promise<T>): Promise<T>;
}

export class MemoryKeyLock implements KeyLock {
  readonly #tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = this.#tails.get(key) ?? Promise.resolve();
    const mine = before.catch(() => undefined).then(fn);
    const tail = mine.catch(() => undefined);
    this.#tails.set(key, tail);
    try {
      return await mine;
    } finally {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}

/** Shared by every run of this process that is not given a lock of its own. */
export const processKeyLock: KeyLock = new MemoryKeyLock();
