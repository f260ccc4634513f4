// Gives every test file a Redis: REDIS_URL when set, else a private redis-server on a free port.
import type { TestProject } from 'vitest/node';
import { startPrivateRedis } from '../helpers/redis-server.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.REDIS_URL) {
    project.provide('redisUrl', process.env.REDIS_URL);
    return async () => {};
  }
  const redis = await startPrivateRedis();
  project.provide('redisUrl', redis.url);
  return () => redis.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}
