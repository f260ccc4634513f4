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

export async function closeAllPools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.close().catch(() => p.destroy())));
}
