// For commands that talk to the queue without working it (enqueue, status).
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from '../src/config/schema.js';
import { connect, redisUrl } from './connection.js';
import { QUEUE } from './definitions.js';
import { RunLedger } from './ledger.js';

export interface JobsClient {
  queue: Queue;
  ledger: RunLedger;
  redis: Redis;
  close(): Promise<void>;
}

export function openJobsClient(config: Config, command: string): JobsClient {
  const redis = connect(redisUrl(config, command));
  const queue = new Queue(QUEUE, { connection: redis, prefix: config.redis.prefix });
  return {
    queue,
    ledger: new RunLedger(redis, config.redis.prefix),
    redis,
    async close() {
      await queue.close();
      await redis.quit();
    },
  };
}
