// The latest/ lock across processes: a run takes the bundles of a batch of workspaces together,
// and two runs of one account never write one bundle at once, whatever order they ask in.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisKeyLock } from '../jobs/redis-key-lock.js';
import { sleep } from '../src/util/time.js';
import { redisClientsPerTest } from './helpers/redis-clients.js';
import { waitFor } from './helpers/wait-for.js';

const connect = redisClientsPerTest();

const key = (n: number) => `latest/account=acme/brand=ws-${n}.json`;

describe('RedisKeyLock', () => {
  it('two processes holding overlapping batches never hold one key at once, in either order', async () => {
    const prefix = `t-${randomUUID().slice(0, 8)}`;
    // Two connections: two worker processes.
    const [a, b] = [new RedisKeyLock(connect(), prefix), new RedisKeyLock(connect(), prefix)];
    const holding = new Set<string>();
    const overlaps: string[] = [];
    const hold = (who: string, keys: string[]) => async () => {
      for (const k of keys) {
        if (holding.has(k)) overlaps.push(`${who}: ${k}`);
        holding.add(k);
      }
      await sleep(50);
      for (const k of keys) holding.delete(k);
    };
    const one = [key(1), key(2), key(3)];
    // Overlapping in ws-3 only, and not in the first key of either (sorted: ws-1, ws-0).
    const other = [key(3), key(0), key(4)];
    await Promise.all([
      ...Array.from({ length: 4 }, () => a.runAll(one, hold('a', one))),
      ...Array.from({ length: 4 }, () => b.runAll(other, hold('b', other))),
    ]);
    expect(overlaps).toEqual([]);
  });

  it('a batch costs one script to take and one to give back', async () => {
    const redis = connect();
    const sent: string[] = [];
    const send = redis.sendCommand.bind(redis);
    redis.sendCommand = (command, stream) => {
      sent.push(command.name);
      return send(command, stream);
    };
    const lock = new RedisKeyLock(redis, `t-${randomUUID().slice(0, 8)}`);
    await redis.ping();
    sent.length = 0;
    const keys = Array.from({ length: 16 }, (_, i) => key(i));
    expect(await lock.runAll(keys, async () => 'written')).toBe('written');
    expect(sent).toEqual(['evalsha', 'evalsha']);
  });

  it('waits out the lock of a holder that died (its expiry), and gives up on one held too long', async () => {
    const redis = connect();
    const prefix = `t-${randomUUID().slice(0, 8)}`;
    // A holder that died while holding ws-2: its lock stays until its expiry, 300 ms.
    await redis.set(`${prefix}:lock:{latest/account=acme}/brand=ws-2.json`, 'dead', 'PX', 300);
    const started = performance.now();
    await new RedisKeyLock(redis, prefix).runAll([key(1), key(2)], async () => {});
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    // Nothing is left behind by the batch that ran.
    expect(await redis.keys(`${prefix}:*`)).toEqual([]);

    await redis.set(`${prefix}:lock:{latest/account=acme}/brand=ws-3.json`, 'stuck', 'PX', 60_000);
    await expect(
      new RedisKeyLock(redis, prefix, { waitMs: 200 }).runAll([key(3)], async () => {}),
    ).rejects.toThrow(/ws-3.json: locked by another run for too long/);
  });

  it('a holder working longer than the expiry keeps its keys until it is done', async () => {
    const prefix = `t-${randomUUID().slice(0, 8)}`;
    // The scripts each connection sends: a's after it took its keys are its renewals, b's are its tries.
    const scripts = (redis: Redis) => {
      const sent = { count: 0 };
      const send = redis.sendCommand.bind(redis);
      redis.sendCommand = (command, stream) => {
        if (command.name === 'evalsha' || command.name === 'eval') sent.count++;
        return send(command, stream);
      };
      return sent;
    };
    const [ra, rb] = [connect(), connect()];
    const [fromA, fromB] = [scripts(ra), scripts(rb)];
    const [a, b] = [
      new RedisKeyLock(ra, prefix, { ttlMs: 300 }),
      new RedisKeyLock(rb, prefix, { ttlMs: 300, waitMs: 10_000 }),
    ];
    const order: string[] = [];
    let took = () => {};
    const aTook = new Promise<void>((r) => {
      took = r;
    });
    let finish = () => {};
    const aMayFinish = new Promise<void>((r) => {
      finish = r;
    });
    const slow = a.runAll([key(1), key(2)], async () => {
      order.push('a takes');
      took();
      await aMayFinish;
      order.push('a done');
    });
    // b asks only once a holds its keys.
    await aTook;
    const aTaking = fromA.count;
    const waiting = b.runAll([key(2)], async () => {
      order.push('b takes');
    });
    // a is held past its first expiry: renewed every ttl/3 from the moment it took the keys, so
    // its fourth renewal comes after the lock would have lapsed without them.
    await waitFor(() => fromA.count - aTaking >= 4 || order.includes('b takes'), {
      what: () => `a's renewals (${fromA.count - aTaking})`,
    });
    // Then b tries again and is refused: a try sent after another means the one before was answered.
    const tried = fromB.count;
    await waitFor(() => fromB.count >= tried + 2 || order.includes('b takes'), {
      what: () => `b's tries (${fromB.count - tried})`,
    });
    expect(order).toEqual(['a takes']);
    finish();
    await Promise.all([slow, waiting]);
    expect(order).toEqual(['a takes', 'a done', 'b takes']);
  });

  it('refuses to take keys of different folders together (they could sit in different cluster slots)', async () => {
    const lock = new RedisKeyLock(connect(), `t-${randomUUID().slice(0, 8)}`);
    await expect(
      lock.runAll([key(1), 'latest/account=other/brand=ws-1.json'], async () => {}),
    ).rejects.toThrow(/must share a folder/);
  });
});
