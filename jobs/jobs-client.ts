// For commands that talk to the queue without working it (enqueue, status).
import type { Redis } from 'ioredis';
import type { Config } from '../src/config/schema.js';
import { closeConnection, commandConnection, type RedisLink, redisUrl } from './connection.js';
import { RunLedger } from './ledger.js';
import { AccountQueues } from './queues.js';

export interface JobsClient {
  queues: AccountQueues;
  ledger: RunLedger;
  redis: Redis;
  /** Explains a failed request: the Redis-unreachable error when Redis is gone, else `err`. */
  explain(err: unknown): unknown;
  close(): Promise<void>;
}

export function openJobsClient(config: Config, command: string): JobsClient {
  const link: RedisLink = commandConnection(redisUrl(config, command), config.redis.cluster === true);
  const queues = new AccountQueues(link.redis, config.redis.prefix);
  return {
    queues,
    ledger: new RunLedger(link.redis, config.redis.prefix),
    redis: link.redis,
    explain: (err) => link.unreachable(err) ?? err,
    async close() {
      await queues.close();
      await closeConnection(link.redis);
    },
  };
}

/** Runs `fn` with a client and closes it; a Redis that is gone surfaces as RedisUnreachableError. */
export async function withJobsClient<T>(
  config: Config,
  command: string,
  fn: (client: JobsClient) => Promise<T>,
): Promise<T> {
  const client = openJobsClient(config, command);
  try {
    return await fn(client);
  } catch (err) {
    throw client.explain(err);
  } finally {
    await client.close();
  }
}
