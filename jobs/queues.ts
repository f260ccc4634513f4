// One queue per account. BullMQ's concurrency is per queue: on a shared queue, the account that
// saturates its budget first keeps every worker slot busy waiting (measured: 4 accounts took
// 1.6-2.0x the time of one). A queue per account gives each account its own lane of slots, so one
// account's waits or pauses never hold up another's work.
import type { Redis } from 'ioredis';
import { Queue } from './bullmq.js';
import { isConnectionError } from './connection.js';

export const queueName = (account: string) => `visync-${account}`;

export class AccountQueues {
  readonly #queues = new Map<string, Queue>();

  /** `onError`: errors a queue reports on its own (not as the result of a call), except a lost
   *  connection, which the connection's owner reports once per attempt. */
  constructor(
    private readonly redis: Redis,
    readonly prefix: string,
    private readonly onError: (err: Error) => void = () => {},
  ) {}

  for(account: string): Queue {
    let q = this.#queues.get(account);
    if (!q) {
      q = new Queue(queueName(account), { connection: this.redis, prefix: this.prefix });
      // Without a listener BullMQ prints each of these errors with its stack.
      q.on('error', (err) => {
        if (!isConnectionError(err)) this.onError(err);
      });
      this.#queues.set(account, q);
    }
    return q;
  }

  /** Accounts that ever had a queue, so schedules of accounts dropped from a config can be found. */
  async register(account: string): Promise<void> {
    await this.redis.sadd(`${this.prefix}:accounts`, account);
  }

  async registered(): Promise<string[]> {
    return (await this.redis.smembers(`${this.prefix}:accounts`)).sort();
  }

  async unregister(account: string): Promise<void> {
    await this.redis.srem(`${this.prefix}:accounts`, account);
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.#queues.values()].map((q) => q.close()));
    this.#queues.clear();
  }
}
