// Redis as the workers need it: reachable, new enough, never evicting keys (an evicted job or ledger
// entry is a run lost without a trace), and persistent (a restart must not forget the queue).
// Managed Redis services often refuse CONFIG; the eviction policy is also in INFO, persistence
// settings are not, so that one can end in "could not check".

import type { RedisPersistence } from '../../jobs/redis-durability.js';
import { type CheckResult, fail, pass, warn } from './check.js';
import type { DoctorProbes, RedisProbe } from './probes.js';

const MIN_VERSION = [6, 2, 0];

export type RedisConnection = { ok: true; probe: RedisProbe } | { ok: false; result: CheckResult };

/** One connection attempt, bounded by `timeoutMs`, never retried; one FAIL line when it does not work. */
export async function connectRedis(
  probes: DoctorProbes,
  url: string,
  timeoutMs: number,
): Promise<RedisConnection> {
  const reach = await probes.connectRedis(url, timeoutMs);
  if (reach.ok) return reach;
  // The same words as every command that cannot reach Redis; the advice goes after the arrow.
  return {
    ok: false,
    result: fail(
      'redis',
      `Redis at ${reach.address} is unreachable: ${reach.reason}`,
      reach.loginRefused
        ? 'fix the user and password in redis.url'
        : 'start Redis or fix redis.url (run --once works without it)',
    ),
  };
}

export async function checkRedis(redis: RedisProbe): Promise<CheckResult[]> {
  const where = redis.address;
  const [version, durability] = await Promise.all([redis.version(), redis.durability()]);
  const results: CheckResult[] = [];
  results.push(
    olderThan(version, MIN_VERSION)
      ? warn(
          'redis',
          `Redis ${version} at ${where} answers, but is older than ${MIN_VERSION.join('.')}`,
          `upgrade to Redis ${MIN_VERSION.slice(0, 2).join('.')} or later (the job queue relies on its commands)`,
        )
      : pass('redis', `Redis ${version} at ${where} answers`),
  );
  results.push(evictionPolicy(durability.evictionPolicy));
  results.push(persistenceOn(durability.persistence));
  return results;
}

function evictionPolicy(policy: string | undefined): CheckResult {
  const check = 'redis maxmemory-policy';
  if (policy === undefined) {
    return warn(check, 'could not check: INFO has no maxmemory_policy and CONFIG is refused', mustNotEvict);
  }
  if (policy === 'noeviction') return pass(check, 'noeviction: Redis never drops queue or ledger keys');
  return warn(check, `${policy}: Redis may drop queue and ledger keys when memory runs out`, mustNotEvict);
}

const mustNotEvict =
  'set maxmemory-policy noeviction (redis.conf, or CONFIG SET maxmemory-policy noeviction; on a managed Redis, in its parameter group)';

function persistenceOn(p: RedisPersistence): CheckResult {
  const check = 'redis persistence';
  switch (p.kind) {
    case 'aof':
      return pass(check, 'append-only file (AOF) on');
    case 'rdb':
      return pass(check, `RDB snapshots on (save ${p.save})`);
    case 'unknown':
      return warn(
        check,
        'could not check: AOF is off and CONFIG is refused (managed Redis?), so RDB snapshots are unknown',
        "make sure the service keeps snapshots or AOF (see the provider's backup settings)",
      );
    case 'off':
      return warn(
        check,
        'off (no AOF, no RDB snapshots): a Redis restart loses queued runs and run history',
        'set appendonly yes (redis.conf, or CONFIG SET appendonly yes) or RDB save points',
      );
  }
}

function olderThan(version: string, min: number[]): boolean {
  const parts = version.split('.').map((p) => Number.parseInt(p, 10));
  if (parts.some((p) => Number.isNaN(p))) return false;
  for (let i = 0; i < min.length; i++) {
    const a = parts[i] ?? 0;
    const b = min[i] ?? 0;
    if (a !== b) return a < b;
  }
  return false;
}
