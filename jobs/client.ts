// For commands that talk to the queue without working it (enqueue, status).
import type { Redis } from 'ioredis';
import type { Config } from '../src/config/schema.js';
import { connect, redisUrl } from './connection.js';
import { RunLedger } from './ledger.js';
import { AccountQueues } from './queues.js';

export interface JobsClient {
  queues: AccountQueues;
  ledger: RunLedger;
  redis: Redis;
  close(): Promise<void>;
}

export function openJobsClient(config: Config, command: string): JobsClient {
  const redis = connect(redisUrl(config, command));
  const queues = new AccountQueues(redis, config.redis.prefix);
  return {
    queues,
    ledger: new RunLedger(redis, config.redis.prefix),
    redis,
    async close() {
      await queues.close();
      await redis.quit();
    },
  };
}
