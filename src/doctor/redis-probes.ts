// The doctor's Redis probes (./probes.ts), built on the connection, durability and
// budget code the workers use, so doctor and the workers judge one Redis by the same rules.
import { Redis } from 'ioredis';
import { RedisUnreachableError, redisAddress } from '../../jobs/connection.js';
import { parseInfo, readRedisDurability } from '../../jobs/redis-durability.js';
import { RedisRateBudget } from '../../jobs/redis-rate-budget.js';
import type { DoctorProbes, RedisProbe, RedisReach } from './probes.js';

export const doctorProbes: DoctorProbes = { connectRedis };

async function connectRedis(url: string, timeoutMs: number): Promise<RedisReach> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // Without a listener ioredis prints every connection error itself.
  let lastError: unknown;
  redis.on('error', (err) => {
    lastError = err;
  });
  try {
    await redis.connect();
    await redis.ping();
    return { ok: true, probe: probe(redis, redisAddress(url)) };
  } catch (err) {
    redis.disconnect();
    const e = new RedisUnreachableError(redisAddress(url), lastError ?? err);
    return { ok: false, address: e.address, reason: e.reason, loginRefused: e.loginRefused };
  }
}

function probe(redis: Redis, address: string): RedisProbe {
  return {
    address,
    version: async () => parseInfo(await redis.info('server')).get('redis_version') ?? '?',
    durability: () => readRedisDurability(redis),
    budget: (o) => new RedisRateBudget(redis, o),
    close: () => redis.disconnect(),
  };
}
