// A worker process's fixed Redis connections (src/run/queued/worker.ts): opened once, reported when they come
// back, checked for a Redis that may lose jobs, and dropped or closed together.
import type { Logger } from 'pino';
import {
  closeConnection,
  isConnectionError,
  type RedisLink,
  redisUrl,
  workerConnection,
} from './connection.js';
import { legacyQueuesWithJobs } from './queues.js';
import { checkRedisDurability } from './redis-checks.js';
import type { WorkerOptions } from './worker-types.js';

/** The process's fixed Redis connections. */
export interface Connections {
  main: RedisLink;
  /** BullMQ duplicates this connection for each worker's blocking reads. */
  blocking: RedisLink;
  /** Budget pauses announced by other processes (a subscribed connection runs nothing else). */
  pauses: RedisLink;
  cluster: boolean;
}

export function openConnections(o: WorkerOptions): Connections {
  const url = redisUrl(o.config, 'visync worker');
  // Only the main connection reports its attempts: the others retry on the same schedule and would
  // repeat the same line.
  const cluster = o.config.redis.cluster === true;
  const main: RedisLink = workerConnection(url, {
    backoff: o.redisBackoff,
    cluster,
    onRetry: ({ error, attempt, delayMs }) =>
      o.logger.warn(
        { redis: error.address, attempt, retry_in_ms: delayMs },
        `${error.message}; retrying in ${Math.round(delayMs / 100) / 10} s`,
      ),
  });
  const blocking: RedisLink = workerConnection(url, { backoff: o.redisBackoff, cluster });
  const pauses: RedisLink = workerConnection(url, { backoff: o.redisBackoff, cluster });
  logReconnects(main, o.logger);
  return { main, blocking, pauses, cluster };
}

/** Says when the main connection is back, and after how long down. */
function logReconnects(main: RedisLink, logger: Logger): void {
  let lostAt: number | undefined;
  main.redis.on('close', () => {
    lostAt ??= Date.now();
  });
  main.redis.on('ready', () => {
    if (lostAt === undefined) return;
    logger.info({ redis: main.address, down_ms: Date.now() - lostAt }, `Redis at ${main.address} is back`);
    lostAt = undefined;
  });
}

/** Logs an error of a queue or producer, except a lost connection: the main connection reports that once per attempt. */
export function ignoreLostConnection(logger: Logger, what: string) {
  return (err: Error) => {
    if (!isConnectionError(err)) logger.error({ err: err.message }, `${what} error`);
  };
}

/** Warns of a Redis that may lose jobs, and of jobs an older visync left where this one never looks. */
export async function warnAboutRedis(o: WorkerOptions, { main, cluster }: Connections): Promise<void> {
  for (const line of (await checkRedisDurability(main.redis)).warnings) o.logger.warn(line);
  if (cluster) return;
  const legacy = await legacyQueuesWithJobs(
    main.redis,
    o.config.redis.prefix,
    o.config.accounts.map((a) => a.name),
  );
  if (legacy.length)
    o.logger.warn(
      { accounts: legacy },
      `jobs of an older visync wait in per-account queues (${legacy.map((a) => `visync-${a}`).join(', ')}) that this version does not work: run a worker of the previous version until they are done (README, Deploying workers)`,
    );
}

/** At once, without waiting for Redis (a start that is given up). */
export function dropConnections(conns: Connections): void {
  conns.main.redis.disconnect();
  conns.blocking.redis.disconnect();
  conns.pauses.redis.disconnect();
}

/** Each closed politely (a stop). */
export async function closeConnections(conns: Connections): Promise<void> {
  await Promise.allSettled([
    closeConnection(conns.main.redis),
    closeConnection(conns.blocking.redis),
    closeConnection(conns.pauses.redis),
  ]);
}
