// Whether Redis keeps what the workers put there: the queue, the ledger and the budget. Read once
// here for the worker's start-up warnings and for doctor (through src/doctor/redis-probes.ts), so both judge by one rule set:
// - the eviction policy must be noeviction (an evicted job or ledger entry is a run lost without a
//   trace); INFO has it too, so a managed Redis that refuses CONFIG can still be checked;
// - persistence is the append-only file or RDB snapshots; INFO does not show save points, so with
//   AOF off and CONFIG refused it stays unknown.
import type { Redis } from 'ioredis';

export type RedisPersistence =
  | { kind: 'aof' }
  | { kind: 'rdb'; save: string }
  | { kind: 'off' }
  /** AOF is off and CONFIG is refused (managed Redis?), so RDB snapshots are unknown. */
  | { kind: 'unknown' };

export interface RedisDurability {
  /** maxmemory-policy; undefined when INFO does not have it and CONFIG is refused. */
  evictionPolicy: string | undefined;
  persistence: RedisPersistence;
}

export async function readRedisDurability(redis: Redis): Promise<RedisDurability> {
  const [memory, persistence] = await Promise.all([info(redis, 'memory'), info(redis, 'persistence')]);
  const evictionPolicy = memory.get('maxmemory_policy') ?? (await configGet(redis, 'maxmemory-policy'));
  if (persistence.get('aof_enabled') === '1') return { evictionPolicy, persistence: { kind: 'aof' } };
  const save = (await configGet(redis, 'save'))?.trim();
  if (save === undefined) return { evictionPolicy, persistence: { kind: 'unknown' } };
  return { evictionPolicy, persistence: save === '' ? { kind: 'off' } : { kind: 'rdb', save } };
}

/** One INFO section as a map; empty when the section is refused. */
async function info(redis: Redis, section: string): Promise<Map<string, string>> {
  try {
    return parseInfo(await redis.info(section));
  } catch {
    return new Map();
  }
}

/** One CONFIG GET value; undefined when CONFIG is refused or renamed (managed services). */
async function configGet(redis: Redis, name: string): Promise<string | undefined> {
  try {
    const reply = (await redis.config('GET', name)) as unknown;
    return Array.isArray(reply) && typeof reply[1] === 'string' ? reply[1] : undefined;
  } catch {
    return undefined;
  }
}

export function parseInfo(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0 && !line.startsWith('#')) out.set(line.slice(0, i), line.slice(i + 1).trim());
  }
  return out;
}
