// Which claims a delivery takes, the same for a worker and for `visync report send`
// (./claims.ts): in Redis when redis.url is configured, so a worker and the command exclude each
// other; else in each account's object store. Redis is reached only when a send needs a claim. The
// Redis-backed claims are opened by the caller (jobs/redis-claims.ts, commandClaims): they run the
// queue's Lua scripts, and delivery sits below jobs/.
import type { Config } from '../../config/schema.js';
import type { ObjectStore } from '../../sinks/object-store.js';
import type { Claims } from './claims.js';
import { storeClaims } from './claims.js';

export interface SendClaims {
  forStore(store: ObjectStore): Promise<{ claims?: Claims }>;
  close(): Promise<void>;
}

/** Claims over one Redis connection, and how to close it. */
export interface OpenedClaims {
  claims: Claims;
  close(): Promise<void>;
}

/** `openRedis` is called once, on the first claim, and only when redis.url is configured. */
export function sendClaimsFor(config: Config, openRedis: (url: string) => Promise<OpenedClaims>): SendClaims {
  const url = config.redis.url;
  if (!url)
    return {
      forStore: async (store) => {
        const claims = storeClaims(store);
        return claims ? { claims } : {};
      },
      close: async () => {},
    };
  let opened: Promise<OpenedClaims> | undefined;
  return {
    async forStore() {
      opened ??= openRedis(url);
      return { claims: (await opened).claims };
    },
    async close() {
      if (opened) await (await opened).close();
    },
  };
}
