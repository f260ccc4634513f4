// Runs that end together do not all curate at once in one worker process: their load jobs hand
// them to finish jobs in the load queue, which a process works two at a time, without polling.
import { QueueEvents } from 'bullmq';
import { describe, expect, inject, it } from 'vitest';
import { JOB } from '../jobs/definitions.js';
import { enqueueRun } from '../jobs/enqueue.js';
import { LOAD_QUEUE } from '../jobs/load-batches.js';
import { AWAITING_CURATE } from '../jobs/run-phase.js';
import { sim, tempDir } from './helpers/harness.js';
import { jobsClient, jobsConfig, until, waitForRun, worker } from './helpers/jobs.js';

describe('finishing runs', () => {
  it('twelve runs ready to finish at once on one worker: two finish at a time, every run succeeds', async () => {
    const accounts = Array.from({ length: 12 }, (_, i) => `acct-${i}`);
    const s = await sim({ accounts: accounts.map((name) => ({ name, workspaces: 2 })) });
    const dir = tempDir();
    const config = jobsConfig(s, dir);
    // Slots for every run's jobs at once in the shard queues.
    const h = await worker(config, 8);
    const loads = h.workers.find((w) => w.name === LOAD_QUEUE)!;
    // Held until every run is ready to finish, so that they all contend for the cap.
    await loads.pause();
    const c = jobsClient(config);
    const runIds: string[] = [];
    for (const account of accounts)
      runIds.push((await enqueueRun(c.queues, c.ledger, config, { kind: 'sync', account })).runId);
    const queue = h.context.loadQueue;
    await until(
      'every run handed to a finish job',
      async () => (await queue.getJobCounts('prioritized')).prioritized === accounts.length,
    );
    // `visync status` says what each run waits for.
    for (const id of runIds) {
      const run = (await c.ledger.get(id))!;
      expect(run.status).toBe('running');
      expect(run.phase).toBe(AWAITING_CURATE);
    }

    // From the start of the queue's event stream: every job's moves, in the order Redis made them.
    const events = new QueueEvents(LOAD_QUEUE, {
      connection: { url: inject('redisUrl') },
      prefix: config.redis.prefix,
      lastEventId: '0',
    });
    const active = new Set<string>();
    let most = 0;
    const finished: string[] = [];
    events.on('active', ({ jobId }) => {
      active.add(jobId);
      most = Math.max(most, active.size);
    });
    events.on('completed', ({ jobId }) => {
      active.delete(jobId);
      finished.push(jobId);
    });
    events.on('failed', ({ jobId, failedReason }) => {
      active.delete(jobId);
      finished.push(`${jobId} failed: ${failedReason}`);
    });
    try {
      await events.waitUntilReady();
      loads.resume();
      for (const id of runIds) expect((await waitForRun(config, id)).status).toBe('succeeded');
      await until('every finish job seen completed', async () => finished.length === accounts.length);
    } finally {
      await events.close();
    }
    expect(finished.every((f) => f.includes('.finish.') && !f.includes('failed'))).toBe(true);
    expect(most).toBe(2);
    // One finish job per run, named as the worker dispatches it.
    const jobs = await queue.getJobs(['completed']);
    expect(jobs.map((j) => j.name)).toEqual(accounts.map(() => JOB.finish));
    expect(new Set(jobs.map((j) => j.data.runId))).toEqual(new Set(runIds));
  });
});
