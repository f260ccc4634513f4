// A job whose lock expires while Redis is frozen runs twice (BullMQ hands it to another slot while
// the first is still working): progress must still count each workspace once.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { enqueueRun } from '../jobs/enqueue.js';
import { sim, tempDir } from './helpers/harness.js';
import { jobsClient, jobsConfig, privateRedisForFile, until, waitForRun, worker } from './helpers/jobs.js';

const privateRedis = privateRedisForFile();

describe('a job that runs twice', () => {
  it('Redis frozen longer than the lock: workspaces run twice, each is counted once', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 6 }], latencyMs: 150 });
    const dir = tempDir();
    const cfg = jobsConfig(s, dir, {
      top: {
        redis: { url: privateRedis.server.url, prefix: `l-${randomUUID().slice(0, 8)}` },
        jobs: { lockSeconds: 1, maxBudgetWaitSeconds: 1 },
      },
    });
    await worker(cfg, 6);
    const c = jobsClient(cfg);
    const { runId } = await enqueueRun(c.queues, c.ledger, cfg, { kind: 'sync', account: 'acme' });
    await until(
      'every workspace is working',
      async () => new Set(s.log.map((e) => e.brandId).filter(Boolean)).size === 6,
    );
    // Frozen for three lock durations: the locks lapse, BullMQ finds the jobs stalled.
    await privateRedis.admin.client('PAUSE', 3000, 'ALL');
    const run = await waitForRun(cfg, runId, 45_000);
    const jobs = await Promise.all(
      [0, 1, 2, 3, 4, 5].map((i) => c.queues.for('acme').getJob(`${runId}.ws.${i}`)),
    );
    // Every workspace job was started twice (once more after its lock lapsed).
    expect(jobs.map((j) => j?.attemptsStarted)).toEqual([2, 2, 2, 2, 2, 2]);
    expect(run.status).toBe('succeeded');
    expect(run.workspaces_done).toBe(6);
  });
});
