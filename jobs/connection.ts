// Redis connections for BullMQ and the ledger. A Worker blocks on its connection, so it gets its
// own; BullMQ needs maxRetriesPerRequest: null on connections it blocks on.
import { Redis } from 'ioredis';
import type { Config } from '../src/config/schema.js';

export function redisUrl(config: Config, command: string): string {
  const url = config.redis.url;
  if (!url) {
    throw new Error(
      `${command} needs Redis: set redis.url in the config (e.g. redis: { url: \${REDIS_URL} }) and REDIS_URL`,
    );
  }
  return url;
}

export function connect(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false });
}
