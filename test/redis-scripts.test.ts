// Every Lua script visync runs is defined in one registry (jobs/redis-scripts.ts). A Redis that
// lost its script cache (a restart, SCRIPT FLUSH, a failover) must not fail a lock, a lease, the
// budget or the ledger: the script is sent again. Checked on a private server, whose cache the
// test flushes without touching other test files.
import { createHash, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RunLedger } from '../jobs/ledger.js';
import { RedisKeyLock } from '../jobs/redis-key-lock.js';
import { RedisRateBudget } from '../jobs/redis-rate-budget.js';
import { RedisLeaseSignal } from '../jobs/redis-run-lease.js';
import { SCRIPTS, scripted } from '../jobs/redis-scripts.js';
import { privateRedisForFile } from './helpers/jobs.js';

const privateRedis = privateRedisForFile();

describe('the Lua script registry', () => {
  it('locks, leases, the budget and the ledger keep working after the server loses its scripts', async () => {
    const redis = new Redis(privateRedis.server.url);
    try {
      const prefix = `t-${randomUUID().slice(0, 8)}`;
      const lock = new RedisKeyLock(redis, prefix);
      const lease = new RedisLeaseSignal(redis, prefix);
      const budget = new RedisRateBudget(redis, { prefix });
      const ledger = new RunLedger(redis, prefix);
      const run = { account: 'acme', runId: 'r1', runDate: '2026-01-01' };
      const limit = { requests: 5, windowMs: 60_000 };
      const round = async (n: number) => {
        expect(await lock.runAll(['latest/a.json', 'latest/b.json'], async () => n)).toBe(n);
        expect(await lease.claim(run, `token-${n}`, 10_000, n === 1 ? undefined : `token-${n - 1}`)).toBe(
          true,
        );
        expect((await budget.tryTake('acme', limit)).ok).toBe(true);
        expect(
          await ledger.create({ run_id: `run-${n}`, account: 'acme', kind: 'sync', run_date: '2026-01-01' }),
        ).toBe(true);
      };
      await round(1);
      await privateRedis.admin.script('FLUSH');
      expect(await privateRedis.admin.script('EXISTS', ...Object.values(SCRIPTS).map(sha))).toEqual(
        Object.values(SCRIPTS).map(() => 0),
      );
      await round(2);
      expect((await budget.peek('acme', limit)).inWindow).toBe(2);
      expect((await ledger.get('run-2'))?.status).toBe('queued');
      expect(await lease.held(run)).toBe(true);
    } finally {
      await redis.quit();
    }
  });

  it('defines every script on a connection once, under one name each', () => {
    const redis = new Redis(privateRedis.server.url, { lazyConnect: true });
    const names = Object.keys(SCRIPTS);
    expect(names.every((n) => n.startsWith('visync'))).toBe(true);
    const first = scripted(redis);
    expect(scripted(redis)).toBe(first);
    for (const n of names) expect(typeof first[n as keyof typeof SCRIPTS]).toBe('function');
    redis.disconnect();
  });
});

function sha(def: { lua: string }): string {
  return createHash('sha1').update(def.lua).digest('hex');
}
