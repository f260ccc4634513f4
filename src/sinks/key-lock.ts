// Mutual exclusion per object key, for the one read-modify-write of the pipeline (latest/ bundles).
// In one process a promise chain per key is enough; processes that share Redis (workers, and
// run --once with redis configured) use the Redis lock of jobs/redis-key-lock.ts, which has this shape.

export interface KeyLock {
  /**
   * Runs `fn` while no other holder of this lock runs a function for any of `keys` (one folder's:
   * see keyFolder), taken together: a run writes the latest/ bundles of its workspaces a batch at
   * a time.
   */
  runAll<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T>;
}

/** The folder of a key: the text before its last `/` ('' for a key without one). */
export function keyFolder(key: string): string {
  return key.slice(0, Math.max(0, key.lastIndexOf('/')));
}

/** The keys of a runAll, each once and in one order (so two holders never wait on each other). */
export function lockOrder(keys: readonly string[]): string[] {
  const sorted = [...new Set(keys)].sort();
  const first = sorted[0];
  if (first !== undefined && sorted.some((k) => keyFolder(k) !== keyFolder(first)))
    throw new Error(`keys locked together must share a folder: ${sorted.join(', ')}`);
  return sorted;
}

export class MemoryKeyLock implements KeyLock {
  /** Per key, the end of the last function queued for it. */
  readonly #tails = new Map<string, Promise<unknown>>();

  /** Runs `fn` while no other caller runs a function for `key`. */
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

  async runAll<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T> {
    const sorted = lockOrder(keys);
    const from = (i: number): Promise<T> => {
      const key = sorted[i];
      return key === undefined ? fn() : this.run(key, () => from(i + 1));
    };
    return from(0);
  }
}

/** Shared by every run of this process that is not given a lock of its own. */
export const processKeyLock: KeyLock = new MemoryKeyLock();
