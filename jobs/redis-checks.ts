// What a worker checks about its Redis at start. The queue, the ledger and the budget live there:
// without persistence a restart loses runs in flight, schedules and the budget's request log; with
// an eviction policy Redis may drop any of them under memory pressure. Neither stops the worker
// (the sink stays the record and the worker rebuilds what it can), but each is worth one line.
import type { Redis } from 'ioredis';

export interface RedisDurability {
  /** One line per finding, empty when Redis keeps its data. */
  warnings: string[];
}

function asMap(reply: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (!Array.isArray(reply)) return out;
  for (let i = 0; i + 1 < reply.length; i += 2) out.set(String(reply[i]), String(reply[i + 1]));
  return out;
}

export async function checkRedisDurability(redis: Redis): Promise<RedisDurability> {
  let config: Map<string, string>;
  try {
    const replies = await Promise.all(
      ['appendonly', 'appendfsync', 'save', 'maxmemory-policy'].map((k) => redis.config('GET', k)),
    );
    config = new Map(replies.flatMap((r) => [...asMap(r)]));
  } catch (err) {
    // Managed Redis services often refuse CONFIG.
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    return {
      warnings: [
        `could not check Redis persistence and eviction policy (CONFIG GET refused: ${reason}); make sure it has appendonly yes, appendfsync everysec and maxmemory-policy noeviction`,
      ],
    };
  }
  const warnings: string[] = [];
  const aof = config.get('appendonly');
  const save = config.get('save') ?? '';
  if (aof !== 'yes') {
    warnings.push(
      save.trim() === ''
        ? 'Redis has no persistence (appendonly no, save ""): a Redis restart loses runs in flight, schedules until they are re-installed and the rate budget\'s request log; set appendonly yes and appendfsync everysec'
        : `Redis persists only by snapshots (appendonly no, save "${save}"): a Redis restart loses what changed since the last one; set appendonly yes and appendfsync everysec`,
    );
  } else if (config.get('appendfsync') === 'no') {
    warnings.push(
      'Redis writes its append-only file without fsync (appendfsync no); set appendfsync everysec',
    );
  }
  const policy = config.get('maxmemory-policy');
  if (policy !== undefined && policy !== 'noeviction') {
    warnings.push(
      `Redis may evict keys under memory pressure (maxmemory-policy ${policy}): jobs, ledger entries or budget slots could vanish; set maxmemory-policy noeviction`,
    );
  }
  return { warnings };
}
