// What a worker checks about its Redis at start. The queue, the ledger and the budget live there:
// without persistence a restart loses runs in flight, schedules and the budget's request log; with
// an eviction policy Redis may drop any of them under memory pressure. Neither stops the worker
// (the sink stays the record and the worker rebuilds what it can), but each is worth one line.
// The rules are doctor's (./redis-durability.ts); only the words are the worker's.
import type { Redis } from 'ioredis';
import { readRedisDurability } from './redis-durability.js';

export interface RedisDurabilityWarnings {
  /** One line per finding, empty when Redis keeps its data. */
  warnings: string[];
}

export async function checkRedisDurability(redis: Redis): Promise<RedisDurabilityWarnings> {
  const { evictionPolicy, persistence } = await readRedisDurability(redis);
  const warnings: string[] = [];
  if (persistence.kind === 'off') {
    warnings.push(
      'Redis has no persistence (appendonly no, save ""): a Redis restart loses runs in flight, schedules until they are re-installed and the rate budget\'s request log; set appendonly yes and appendfsync everysec',
    );
  } else if (persistence.kind === 'unknown') {
    warnings.push(
      'could not check Redis persistence (AOF is off and CONFIG is refused, so RDB snapshots are unknown); make sure it has appendonly yes and appendfsync everysec',
    );
  }
  if (evictionPolicy === undefined) {
    warnings.push(
      'could not check Redis eviction policy (INFO has no maxmemory_policy and CONFIG is refused); make sure it has maxmemory-policy noeviction',
    );
  } else if (evictionPolicy !== 'noeviction') {
    warnings.push(
      `Redis may evict keys under memory pressure (maxmemory-policy ${evictionPolicy}): jobs, ledger entries or budget slots could vanish; set maxmemory-policy noeviction`,
    );
  }
  return { warnings };
}
