// What Redis says about the load on it: INFO commandstats (calls per command, all clients, including
// the commands Lua scripts run: Redis counts those too).
import type { Redis } from 'ioredis';

export async function commandStats(redis: Redis): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const line of (await redis.info('commandstats')).split('\n')) {
    const m = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
    if (m) out.set(m[1] as string, Number(m[2]));
  }
  return out;
}

/** Calls per command between two snapshots, less those of `own` (an observer's), busiest first. */
export function callsBetween(
  before: Map<string, number>,
  after: Map<string, number>,
  own: Map<string, number> = new Map(),
): [string, number][] {
  const out: [string, number][] = [];
  for (const [k, v] of after) {
    const d = v - (before.get(k) ?? 0) - (own.get(k) ?? 0);
    if (d > 0) out.push([k, d]);
  }
  return out.sort((a, b) => b[1] - a[1]);
}

export async function deletePrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  for (let i = 0; i < 100_000; i++) {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    if (keys.length) await redis.del(...keys);
    cursor = next;
    if (cursor === '0') return;
  }
}
