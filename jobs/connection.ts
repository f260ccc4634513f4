// Redis connections for BullMQ and the ledger. A Worker blocks on its connection, so it gets its
// own; BullMQ needs maxRetriesPerRequest: null on connections it blocks on.
import { Redis } from 'ioredis';
import { ConfigError } from '../src/config/load.js';
import type { Config } from '../src/config/schema.js';

/** The Redis URL, or a configuration error naming the key (run --once is the command that needs none). */
export function redisUrl(config: Config, command: string): string {
  const url = config.redis.url;
  if (!url) {
    throw new ConfigError('config', [
      {
        path: 'redis.url',
        message: `${command} needs Redis: set redis: { url: \${REDIS_URL} } and export REDIS_URL (visync run --once works without Redis)`,
      },
    ]);
  }
  return url;
}

export function connect(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false });
}
