// Every Redis connection of visync is built here, in one of two ways:
// - a command (status, enqueue) tries a few times within seconds and then gives up, so that it ends
//   with one line instead of hanging;
// - a worker waits for Redis as long as it takes, with capped backoff, and reports each attempt in
//   one line (through `onRetry`) instead of ioredis' and BullMQ's stack traces.
// BullMQ needs maxRetriesPerRequest: null on connections it blocks on; commands use it too, so that
// a request waits for the next attempt rather than failing on the first drop.
import { createRequire } from 'node:module';
import type * as IORedis from 'ioredis';
import type { RedisOptions } from 'ioredis';
import { ConfigError } from '../src/config/config-error.js';
import type { Config } from '../src/config/schema.js';
import { errorMessage, VisyncError } from '../src/util/errors.js';

// Loaded with require, as BullMQ is (./bullmq.ts): an ESM import of this CommonJS package costs
// about 100 ms more CPU at every start.
const { Cluster, Redis, ReplyError } = createRequire(import.meta.url)('ioredis') as typeof IORedis;
type Redis = IORedis.Redis;

/**
 * A connection to one Redis, or (redis.cluster) to a Redis Cluster through `url`, one of its nodes
 * (its user and password serve every node; the other nodes are discovered). A Cluster client is
 * typed as a Redis here: every command visync and BullMQ send is keyed, and every script and
 * MULTI keeps to one hash slot (jobs/queues.ts, ledger.ts, redis-rate-budget.ts), so callers
 * need not know which one they hold.
 */
function connect(
  url: string,
  cluster: boolean,
  options: RedisOptions,
  retry: (times: number) => number | null,
): Redis {
  if (!cluster) return new Redis(url, { ...options, retryStrategy: retry });
  const u = new URL(url);
  const { retryStrategy: _r, ...redisOptions } = options;
  const node = { host: u.hostname || '127.0.0.1', port: Number(u.port || 6379) };
  return new Cluster([node], {
    redisOptions: {
      ...redisOptions,
      ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
      ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
      ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
    },
    clusterRetryStrategy: retry,
    enableReadyCheck: true,
  }) as unknown as Redis;
}

/** The Redis URL (a node's, with redis.cluster), or a configuration error naming the key (run --once is the command that needs none). */
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

/** HOST:PORT of a Redis URL: what messages name (never the password). */
export function redisAddress(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || '127.0.0.1'}:${u.port || '6379'}`;
  } catch {
    return '(unparseable redis.url)';
  }
}

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'no answer in time',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found (DNS)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'connection closed',
};

/** Errors that mean "Redis is not there" rather than "Redis refused this request". */
export function isConnectionError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as NodeJS.ErrnoException).code;
  if (code && code in REASONS) return true;
  return /^(Connection is closed\.?|connect ETIMEDOUT|Command timed out|Stream isn't writeable|Reached the max retries per request limit)/.test(
    err.message,
  );
}

function reasonOf(err: unknown): string {
  if (!err) return 'connection closed';
  const code = (err as NodeJS.ErrnoException).code;
  if (code && REASONS[code]) return REASONS[code];
  if (err instanceof Error && /^Command timed out/.test(err.message)) return 'no answer in time';
  return errorMessage(err);
}

/** Redis's refusals of a login, by the error code its reply starts with (the protocol's, not words). */
const LOGIN_REFUSED = new Set(['NOAUTH', 'WRONGPASS', 'NOPERM']);

/** The code of a Redis error reply (`WRONGPASS invalid username-password pair` -> WRONGPASS). */
function replyCode(err: unknown): string | undefined {
  return err instanceof ReplyError ? (err as Error).message.split(' ', 1)[0] : undefined;
}

/** The one message for a Redis that cannot be reached, whoever hits it. */
export class RedisUnreachableError extends VisyncError {
  get code() {
    return 'redis_unreachable' as const;
  }

  readonly reason: string;
  /** Redis answered, refusing the user or password of redis.url. */
  readonly loginRefused: boolean;
  constructor(
    readonly address: string,
    cause: unknown,
  ) {
    const reason = reasonOf(cause);
    const loginRefused = LOGIN_REFUSED.has(replyCode(cause) ?? '');
    const advice = loginRefused
      ? 'check the user and password in redis.url'
      : 'start redis-server or fix redis.url';
    super(`Redis at ${address} is unreachable: ${reason} (${advice})`);
    this.name = 'RedisUnreachableError';
    this.reason = reason;
    this.loginRefused = loginRefused;
  }
}

/** A connection and what it last saw, so a failed request can be explained in one line. */
export interface RedisLink {
  redis: Redis;
  address: string;
  /** The Redis-unreachable error when `err` (or the link's state) says Redis is gone; else undefined. */
  unreachable(err?: unknown): RedisUnreachableError | undefined;
}

function link(redis: Redis, url: string): RedisLink & { lastError: () => unknown } {
  const address = redisAddress(url);
  let lastError: unknown;
  // Without a listener ioredis prints every failed attempt with its stack.
  redis.on('error', (err: unknown) => {
    lastError = err;
  });
  redis.on('ready', () => {
    lastError = undefined;
  });
  return {
    redis,
    address,
    lastError: () => lastError,
    unreachable(err) {
      if (redis.status === 'ready' && !isConnectionError(err)) return undefined;
      return new RedisUnreachableError(address, lastError ?? err);
    },
  };
}

/** Bounds of a command's connection: 3 tries within 1.5 s; at worst about 8 s (3 connect timeouts). */
const COMMAND_TRIES = 3;
const COMMAND_CONNECT_MS = 2000;
const COMMAND_TIMEOUT_MS = 5000;
/** ioredis keeps a timer this long after a disconnect, even for a socket that never connected. */
const DISCONNECT_MS = 200;

/** For commands (status, enqueue): gives up after a few attempts; requests then fail at once. */
export function commandConnection(url: string, cluster = false): RedisLink {
  const options: RedisOptions = {
    maxRetriesPerRequest: null,
    connectTimeout: COMMAND_CONNECT_MS,
    // A Redis that accepts and never answers (frozen, overloaded) must not hang a command either.
    commandTimeout: COMMAND_TIMEOUT_MS,
    disconnectTimeout: DISCONNECT_MS,
  };
  // Rides out a blip (a Redis restart of a second or so), then gives up.
  const retry = (times: number) => (times >= COMMAND_TRIES ? null : 500 * times);
  return link(connect(url, cluster, options, retry), url);
}

export interface Backoff {
  firstMs: number;
  maxMs: number;
}

/** Worker connections wait from 1 s, doubling up to 30 s between attempts. */
export const WORKER_BACKOFF: Backoff = { firstMs: 1000, maxMs: 30_000 };

export function backoffDelay(b: Backoff, attempt: number): number {
  return Math.min(b.firstMs * 2 ** Math.max(0, attempt - 1), b.maxMs);
}

export interface WorkerConnectionOptions {
  backoff?: Backoff | undefined;
  /** `url` is a node of a Redis Cluster (config redis.cluster). */
  cluster?: boolean;
  /** Called once per failed attempt: the one place a worker says Redis is gone. */
  onRetry?: (e: { error: RedisUnreachableError; attempt: number; delayMs: number }) => void;
}

/** For a worker: retries forever with capped backoff; requests wait for Redis to come back. */
export function workerConnection(url: string, o: WorkerConnectionOptions = {}): RedisLink {
  const backoff = o.backoff ?? WORKER_BACKOFF;
  const redis = connect(
    url,
    o.cluster ?? false,
    { maxRetriesPerRequest: null, enableReadyCheck: true, disconnectTimeout: DISCONNECT_MS },
    (times) => backoffDelay(backoff, times),
  );
  const l = link(redis, url);
  let attempt = 0;
  redis.on('ready', () => {
    attempt = 0;
  });
  redis.on('reconnecting', (delayMs: number) => {
    attempt += 1;
    o.onRetry?.({ error: new RedisUnreachableError(l.address, l.lastError()), attempt, delayMs });
  });
  return l;
}

/** Closes a connection without waiting on a Redis that is gone (QUIT would queue until it is back). */
export async function closeConnection(redis: Redis): Promise<void> {
  if (redis.status === 'ready') {
    try {
      await redis.quit();
      return;
    } catch {
      // Fall through: the connection dropped while quitting.
    }
  }
  redis.disconnect();
}
