// One undici Pool per origin, shared by every client in the process: accounts on the same host
// reuse connections, and shutdown closes them all in one place.
import { Pool } from 'undici';

export interface HttpTimeouts {
  connectMs: number;
  headersMs: number;
  bodyMs: number;
}

export const DEFAULT_TIMEOUTS: HttpTimeouts = { connectMs: 10_000, headersMs: 30_000, bodyMs: 60_000 };

const pools = new Map<string, Pool>();

export function poolFor(origin: string, t: HttpTimeouts = DEFAULT_TIMEOUTS): Pool {
  const key = `${origin}|${t.connectMs}|${t.headersMs}|${t.bodyMs}`;
  let pool = pools.get(key);
  if (!pool) {
    pool = new Pool(origin, {
      connections: 16,
      connect: { timeout: t.connectMs },
      headersTimeout: t.headersMs,
      bodyTimeout: t.bodyMs,
    });
    pools.set(key, pool);
  }
  return pool;
}

/** How long closing a pool waits for its requests in flight before it destroys them. */
const POOL_CLOSE_GRACE_MS = 5_000;

/**
 * Closes the pools of `origins` (every pool when none are given): a pool's requests in flight may
 * end for `graceMs`, then it is destroyed, so closing never waits on a peer that stopped answering.
 * A command closes the pools of its own accounts only: in a process that runs several (tests), one
 * command ending must not close, or wait on, another's connections.
 */
export async function closePools(origins?: Iterable<string>, graceMs = POOL_CLOSE_GRACE_MS): Promise<void> {
  const wanted = origins ? new Set(origins) : undefined;
  const closing: Pool[] = [];
  for (const [key, pool] of pools)
    if (!wanted || wanted.has(key.slice(0, key.indexOf('|')))) {
      pools.delete(key);
      closing.push(pool);
    }
  await Promise.all(closing.map((p) => closeBounded(p, graceMs)));
}

export function closeAllPools(): Promise<void> {
  return closePools();
}

async function closeBounded(pool: Pool, graceMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), graceMs);
    timer.unref();
  });
  try {
    const done = await Promise.race([pool.close().then(() => 'closed' as const), late]);
    if (done === 'late') await pool.destroy();
  } catch {
    await pool.destroy().catch(() => undefined);
  } finally {
    clearTimeout(timer);
  }
}
