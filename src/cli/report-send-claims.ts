// The claims `visync report send` takes, the same a worker takes (src/delivery/claims/claims.ts): in
// Redis when redis.url is configured (jobs/redis-claims.ts), so a worker and the command exclude
// each other; else in each account's object store. Redis is reached only when a send needs a claim.
import type { Config } from '../config/schema.js';
import type { Claims } from '../delivery/claims/claims.js';
import { storeClaims } from '../delivery/claims/claims.js';
import type { ObjectStore } from '../sinks/object-store.js';

export interface SendClaims {
  forStore(store: ObjectStore): Promise<{ claims?: Claims }>;
  close(): Promise<void>;
}

export function sendClaimsFor(config: Config): SendClaims {
  const url = config.redis.url;
  if (!url)
    return {
      forStore: async (store) => {
        const claims = storeClaims(store);
        return claims ? { claims } : {};
      },
      close: async () => {},
    };
  let opened: Promise<{ claims: Claims; close: () => Promise<void> }> | undefined;
  const open = async () => {
    const [{ commandConnection, closeConnection }, { redisClaims }] = await Promise.all([
      import('../../jobs/connection.js'),
      import('../../jobs/redis-claims.js'),
    ]);
    const link = commandConnection(url, config.redis.cluster === true);
    const inner = redisClaims(link.redis, config.redis.prefix, 'visync report send');
    // Redis gone: each recipient's line says so in the one sentence every command uses.
    const said = (err: unknown) => link.unreachable(err) ?? err;
    const claims: Claims = {
      take: (key, ttl, o) => inner.take(key, ttl, o).catch((err: unknown) => Promise.reject(said(err))),
      release: (key) => inner.release(key).catch((err: unknown) => Promise.reject(said(err))),
    };
    return { claims, close: () => closeConnection(link.redis) };
  };
  return {
    async forStore() {
      opened ??= open();
      return { claims: (await opened).claims };
    },
    async close() {
      if (opened) await (await opened).close();
    },
  };
}
