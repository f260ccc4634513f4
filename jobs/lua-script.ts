// A Lua script run by its SHA1 (EVALSHA), so only the hash crosses the wire on each call.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export class LuaScript {
  readonly sha: string;
  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  /** EVALSHA, falling back to EVAL once when the server has not cached the script (restart, failover, new server). */
  async run(redis: Redis, keys: string[], args: (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}
