// A worker that refuses an edited config (or fails to apply it) keeps running the previous one:
// without this record only its log would say so, and `visync status` would go on showing the old
// schedule as if the edit had taken. One record per deployment (workers share their config file);
// the next successful reload or worker start clears it.
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';

export interface ReloadFailure {
  reason: string;
  failed_at: string;
  /** host:pid of the worker that failed. */
  worker: string;
}

const key = (prefix: string) => `${prefix}:config:reload-failed`;

/** Records why this worker's reload failed, or clears the record (`undefined`: it succeeded). */
export async function recordReloadFailure(
  redis: Redis,
  prefix: string,
  reason: string | undefined,
): Promise<void> {
  if (reason === undefined) {
    await redis.del(key(prefix));
    return;
  }
  const failure: ReloadFailure = {
    reason,
    failed_at: new Date().toISOString(),
    worker: `${hostname()}:${process.pid}`,
  };
  await redis.set(key(prefix), JSON.stringify(failure));
}

export async function readReloadFailure(redis: Redis, prefix: string): Promise<ReloadFailure | undefined> {
  const text = await redis.get(key(prefix));
  if (!text) return undefined;
  try {
    return JSON.parse(text) as ReloadFailure;
  } catch {
    return { reason: 'unreadable record', failed_at: '?', worker: '?' };
  }
}
