// Connections to the suite's redis-server that a test file opens as it needs them; each is closed
// after the test that opened it.
import { Redis } from 'ioredis';
import { afterEach, inject } from 'vitest';

/** Call at a file's top level; the function it returns opens one connection (one client process). */
export function redisClientsPerTest(): () => Redis {
  const url = inject('redisUrl');
  const open: Redis[] = [];
  afterEach(async () => {
    while (open.length) await open.pop()?.quit();
  });
  return () => {
    const r = new Redis(url);
    open.push(r);
    return r;
  };
}
