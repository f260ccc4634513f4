// A job whose lock expires while Redis is frozen runs twice (BullMQ hands it to another slot while
// the first is still working): progress must still count each workspace once.
import { describe, expect, it } from 'vitest';
import { sim } from './helpers/harness.js';
import { privateRedisForFile, syncWithShortLocks, until, waitForRun } from './helpers/jobs.js';

const privateRedis = privateRedisForFile();

describe('a job that runs twice', () => {
  it('Redis frozen longer than the lock: workspaces run twice, each is counted once', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 6 }], latencyMs: 150 });
    // 75 requests a window: at most five workspaces (35 calls, under half) per job, so jobs of five
    // and one; a window of 10 s, so the calls made twice never leave a job waiting long for budget.
    const { cfg, runId, queue } = await syncWithShortLocks(s, privateRedis.server.url, 6, {
      accounts: { acme: { requestsPerMinute: 75, rateWindowSeconds: 10 } },
    });
    const ids = [0, 1].map((i) => `${runId}.ws.${i}`);
    await until('both workspace jobs working', async () =>
      (await Promise.all(ids.map((id) => queue.getJobState(id)))).every((state) => state === 'active'),
    );
    // Frozen for three lock durations: the locks lapse, BullMQ finds the jobs stalled.
    await privateRedis.admin.client('PAUSE', 3000, 'ALL');
    const run = await waitForRun(cfg, runId, 45_000);
    const jobs = await Promise.all(ids.map((id) => queue.getJob(id)));
    expect(jobs.map((j) => j?.data.brandIds.length)).toEqual([5, 1]);
    // Every workspace job was started again after its lock lapsed (and once more if the calls it
    // made twice left it waiting for budget).
    for (const j of jobs) expect(j?.attemptsStarted).toBeGreaterThanOrEqual(2);
    expect(run.status).toBe('succeeded');
    expect(run.workspaces_done).toBe(6);
  });
});
