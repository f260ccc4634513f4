// The claims of report sends and alerts in Redis (src/delivery/claims/claims.ts): SET NX with a lease,
// the value naming its holder (host, pid, start, job). A holder that died on this host is taken
// over at once (compare-and-set on the value it left), not when its lease runs out; a claim is
// given back only by its holder (compare-and-delete). Used by the workers' report jobs and by
// `visync report send` when redis.url is configured (src/delivery/claims/choose.ts). Here, not in
// src/delivery: the compare-and-set scripts are the queue's own (jobs/redis-scripts.ts).
import type { Redis } from 'ioredis';
import type { OpenedClaims } from '../src/delivery/claims/choose.js';
import type { Claims } from '../src/delivery/claims/claims.js';
import { currentOwner, holderGone, parseOwner } from '../src/delivery/claims/claims.js';
import { closeConnection, commandConnection } from './connection.js';
import { scripted } from './redis-scripts.js';

export function redisClaims(redis: Redis, prefix: string, by?: string): Claims {
  const value = JSON.stringify(currentOwner(by));
  const script = scripted(redis);
  return {
    async take(key, ttlSeconds, o) {
      const k = `${prefix}:${key}`;
      if ((await redis.set(k, value, 'EX', ttlSeconds, 'NX')) === 'OK') return true;
      if (!o?.whileAlive) return false;
      const held = await redis.get(k);
      // Gone since the SET: free again. A value that is not an owner (a worker older than this:
      // its job id) is left to its TTL.
      if (held === null) return (await redis.set(k, value, 'EX', ttlSeconds, 'NX')) === 'OK';
      const owner = parseOwner(held);
      if (held === value || !owner || !holderGone(owner)) return false;
      return (await script.visyncLeaseClaim(k, value, ttlSeconds * 1000, held)) === 1;
    },
    async release(key) {
      await script.visyncReleaseIfHeld(1, `${prefix}:${key}`, value);
    },
  };
}

/** A command's claims (`visync report send`) over a connection of its own, closed with them. */
export function commandClaims(
  redis: { url: string; cluster?: boolean | undefined; prefix: string },
  by: string,
): OpenedClaims {
  const link = commandConnection(redis.url, redis.cluster === true);
  const inner = redisClaims(link.redis, redis.prefix, by);
  // Redis gone: each recipient's line says so in the one sentence every command uses.
  const said = (err: unknown) => link.unreachable(err) ?? err;
  const claims: Claims = {
    take: (key, ttl, o) => inner.take(key, ttl, o).catch((err: unknown) => Promise.reject(said(err))),
    release: (key) => inner.release(key).catch((err: unknown) => Promise.reject(said(err))),
  };
  return { claims, close: () => closeConnection(link.redis) };
}
