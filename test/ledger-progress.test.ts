// Ledger progress is the set of finished workspaces, so a job that runs twice (its lock expired
// while Redis was frozen) or fails and then succeeds is counted once; read-then-write updates are
// one script each, so concurrent finishers cannot interleave.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { RunLedger } from '../jobs/ledger.js';

const redis = new Redis(inject('redisUrl'));
afterAll(() => redis.quit());

function ledger(): RunLedger {
  return new RunLedger(redis, `t-${randomUUID().slice(0, 8)}`);
}

describe('run ledger progress', () => {
  it('the same workspace finishing twice, or failing then succeeding, counts once', async () => {
    const l = ledger();
    await l.create({ run_id: 'r1', account: 'acme', kind: 'sync', run_date: '2026-11-10' });
    await l.update('r1', { workspaces_total: 3 });
    await l.workspaceFinished('r1', 'w-a', false);
    await l.workspaceFinished('r1', 'w-a', false);
    await l.workspaceFinished('r1', 'w-b', true);
    await l.workspaceFinished('r1', 'w-b', false);
    // A late duplicate of a workspace that already succeeded does not turn it into a failure.
    await l.workspaceFinished('r1', 'w-a', true);
    const r = (await l.get('r1'))!;
    expect(r.workspaces_done).toBe(2);
    expect(r.workspaces_failed).toBe(0);
    await l.workspaceFinished('r1', 'w-c', true);
    await l.workspaceFinished('r1', 'w-c', true);
    const after = (await l.get('r1'))!;
    expect(after.workspaces_done).toBe(3);
    expect(after.workspaces_failed).toBe(1);
  });

  it('progress of a run the ledger does not hold (Redis lost it) leaves nothing behind', async () => {
    const prefix = `t-${randomUUID().slice(0, 8)}`;
    const l = new RunLedger(redis, prefix);
    await l.workspaceFinished('gone', 'w-a', false);
    await l.addRequests('gone', { calls: 3, rate_limited: 0, retries: 0, waited_ms: 0 });
    expect(await l.get('gone')).toBeUndefined();
    expect(await redis.keys(`${prefix}:*`)).toEqual([]);
  });

  it('concurrent finishes keep the newest run date as the last success', async () => {
    const l = ledger();
    const dates = ['2026-11-10', '2026-11-12', '2026-11-11', '2026-11-09'];
    for (const [i, d] of dates.entries())
      await l.create({ run_id: `r${i}`, account: 'acme', kind: 'nightly', run_date: d });
    const runs = await Promise.all(dates.map((_, i) => l.get(`r${i}`)));
    await Promise.all(runs.map((r) => l.finish(r!, 'succeeded')));
    expect((await l.lastSuccess('acme'))?.run_date).toBe('2026-11-12');
    expect((await l.get('r3'))?.status).toBe('succeeded');
  });
});
