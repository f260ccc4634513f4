// A workspace job that keeps losing its worker (its lock lapses again and again, as when a worker
// dies mid-job every time it takes the job) is given up by BullMQ once it has stalled more than
// maxStalledCount (3) times. The run must still end, not stay "running": the job's workspaces
// fail with the reason (code internal) and the run is finished like any other, and the ledger
// (what `visync status` shows) counts the workspace failed as the manifest does, although the
// lost attempts still at work reported it done.
import { describe, expect, it } from 'vitest';
import { readManifest } from '../src/records/manifest.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { sim } from './helpers/harness.js';
import { privateRedisForFile, syncWithShortLocks, until, waitForRun } from './helpers/jobs.js';

const privateRedis = privateRedisForFile();

describe('a job that stalls more than three times', () => {
  it('fails its workspaces with the reason, and the run ends', async () => {
    // Half-second locks: what the test shows (a job given up after its fourth stall) does not
    // depend on their length, and each stall costs three of them. The workspace's answers are
    // slow (bodies sent in four parts over 2.5 s, longer than a freeze), which keeps its job at
    // work while Redis is frozen under it; the run's discovery calls are not held up.
    const lockMs = 500;
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const [workspace] = s.accounts[0]!.workspaceIds;
    s.addFault({ brandId: workspace, kind: 'slow-body', delayMs: (5 * lockMs) / 3, times: Infinity });
    // Eight slots: each lost attempt keeps its slot until its calls end, and with four the job,
    // back in the queue after its fourth stall, waited seconds for a free one before it was failed.
    const { cfg, runId, queue } = await syncWithShortLocks(s, privateRedis.server.url, 8, {}, lockMs / 1000);
    const id = `${runId}.ws.0`;
    let stalls = 0;
    for (let i = 0; i < 8; i++) {
      await until(
        'the workspace job at work',
        async () => (await queue.getJobState(id)) === 'active',
        30_000,
      );
      const before = (await queue.getJob(id))?.attemptsStarted ?? 0;
      // Frozen for three lock durations: the lock lapses and BullMQ finds the job stalled.
      await privateRedis.admin.client('PAUSE', 3 * lockMs, 'ALL');
      await until(
        'the job taken up again or given up',
        async () => {
          const job = await queue.getJob(id);
          const state = await queue.getJobState(id);
          return state === 'failed' || (job?.attemptsStarted ?? 0) > before;
        },
        30_000,
      );
      stalls++;
      if ((await queue.getJobState(id)) === 'failed') break;
    }
    const run = await waitForRun(cfg, runId, 60_000);
    const job = await queue.getJob(id);
    expect(stalls).toBeGreaterThan(3);
    expect(job?.failedReason).toMatch(/stalled more than allowable limit/);
    expect(run.status).toBe('failed');
    // The manifest fails the workspace with the reason, and the ledger counts as it does.
    const manifest = await readManifest(new FsObjectStore(cfg.sinks.fs?.dir as string), 'acme', runId);
    expect(manifest?.workspaces).toEqual([
      {
        brand_id: expect.any(String),
        status: 'failed',
        error: expect.stringMatching(/stalled more than allowable limit/),
        // Every failed workspace has a code; BullMQ's own reason is none of ours.
        error_code: 'internal',
      },
    ]);
    expect(run.workspaces_done).toBe(1);
    expect(run.workspaces_failed).toBe(1);
    // The lost attempts still at work end quickly, so the worker's close after the test need not
    // wait out its grace for them.
    s.clearFaults();
  }, 240_000);
});
