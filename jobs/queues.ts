// A fixed number of queues (shards), each account on one of them by a hash of its name, so what a
// worker process holds (one BullMQ Worker, i.e. one blocking connection, per shard) does not grow
// with the number of accounts. Per-account queues were there so that an account saturating its
// budget could not keep every slot of a shared queue busy waiting; that reason is gone: a job
// reserves its calls' budget before it starts them and steps aside (delayed) when its account has
// none within jobs.maxBudgetWaitSeconds, so a waiting account holds no slot (src/run/queued/*.ts).
//
// Redis Cluster: every key of one BullMQ queue must sit in one slot. Each shard's name is a hash
// tag of its own (`{visync-0}` ...), so the shards' keys spread over the cluster's masters.
import type { Redis } from 'ioredis';
import { Queue } from './bullmq.js';
import { isConnectionError } from './connection.js';

/** Queues every worker works. Changing it moves accounts between queues: drain first. */
export const QUEUE_SHARDS = 4;

export const shardQueueName = (shard: number) => `{visync-${shard}}`;

/** FNV-1a of the account name: stable across processes and releases (no per-process seed). */
export function shardOf(account: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < account.length; i++) {
    h ^= account.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % QUEUE_SHARDS;
}

/** The queue the account's jobs go to. */
export const queueName = (account: string) => shardQueueName(shardOf(account));

export class AccountQueues {
  readonly #shards = new Map<number, Queue>();
  readonly #views = new Map<string, Queue>();

  /** `onError`: errors a queue reports on its own (not as the result of a call), except a lost
   *  connection, which the connection's owner reports once per attempt. */
  constructor(
    private readonly redis: Redis,
    readonly prefix: string,
    private readonly onError: (err: Error) => void = () => {},
  ) {}

  #shard(shard: number): Queue {
    let q = this.#shards.get(shard);
    if (!q) {
      q = new Queue(shardQueueName(shard), { connection: this.redis, prefix: this.prefix });
      // Without a listener BullMQ prints each of these errors with its stack.
      q.on('error', (err) => {
        if (!isConnectionError(err)) this.onError(err);
      });
      this.#shards.set(shard, q);
    }
    return q;
  }

  /** Every shard queue (what the board shows, what queue totals sum over). */
  all(): Queue[] {
    return Array.from({ length: QUEUE_SHARDS }, (_, i) => this.#shard(i));
  }

  /**
   * The account's queue: its shard, seen through a view whose job schedulers are the account's
   * own (several accounts' schedulers share a shard; a caller listing "the account's schedulers"
   * to remove them must not see its neighbours'). Everything else is the shard queue itself.
   */
  for(account: string): Queue {
    let v = this.#views.get(account);
    if (!v) {
      v = accountView(this.#shard(shardOf(account)), account);
      this.#views.set(account, v);
    }
    return v;
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
    await Promise.allSettled([...this.#shards.values()].map((q) => q.close()));
    this.#shards.clear();
    this.#views.clear();
  }
}

/**
 * Accounts whose queue of an older visync (one queue per account, `visync-ACCOUNT`) still holds
 * jobs to run: no worker of this version works those queues. Upgrades drain first (README).
 * Never on a cluster: that layout predates visync's cluster support.
 */
export async function legacyQueuesWithJobs(
  redis: Redis,
  prefix: string,
  accounts: string[],
): Promise<string[]> {
  const found = await Promise.all(
    accounts.map(async (a) => {
      const base = `${prefix}:visync-${a}`;
      const n = await redis.exists(
        `${base}:wait`,
        `${base}:prioritized`,
        `${base}:active`,
        `${base}:waiting-children`,
      );
      return n > 0 ? a : undefined;
    }),
  );
  return found.filter((a): a is string => a !== undefined);
}

type SchedulerList = Awaited<ReturnType<Queue['getJobSchedulers']>>;

/** A scheduler belongs to the account its job template runs for. */
function ownedBy(account: string, s: SchedulerList[number]): boolean {
  const data = (s as { template?: { data?: { account?: unknown } } }).template?.data;
  return data?.account === account;
}

// A Proxy rather than one Queue object per account: it holds nothing of its own (no listeners on
// the shared connection, no key tables), so a thousand accounts cost a thousand small objects.
function accountView(shard: Queue, account: string): Queue {
  const getJobSchedulers: Queue['getJobSchedulers'] = async (...args) =>
    (await shard.getJobSchedulers(...args)).filter((s) => ownedBy(account, s));
  return new Proxy(shard, {
    get(target, prop) {
      if (prop === 'getJobSchedulers') return getJobSchedulers;
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
