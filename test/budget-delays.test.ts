// Budget delays end: a run job that comes back from a delay after its deadline (jobs.maxRunHours)
// makes no call and ends the run failed with the reason; and every job counts its budget delays
// in its data and fails, with the reason, after a bound, deadline or not.
import { randomUUID } from 'node:crypto';
import { type Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { enqueueRun } from '../jobs/enqueue.js';
import { BudgetWaitTooLong } from '../src/api/rate-budget.js';
import { readManifest } from '../src/records/manifest.js';
import { budgetDelayLimit, stepAsideForBudget } from '../src/run/queued/budget-delays.js';
import { startWorker } from '../src/run/queued/worker.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { memoryLogger, sim, tempDir } from './helpers/harness.js';
import { jobsClient, jobsConfig, until, waitForRun, worker } from './helpers/jobs.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

describe('budget delays end', () => {
  it('a run job delayed past its deadline makes no call and ends the run failed with the reason', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    // Longer than maxBudgetWaitSeconds: discovery steps aside (delayed) until the pause ends.
    s.addFault({ account: 'acme', endpoint: 'me', kind: 'status', status: 429, retryAfter: 2 });
    const dir = tempDir();
    // 0.001 h = 3.6 s.
    const config = jobsConfig(s, dir, {
      top: { jobs: { lockSeconds: 2, maxBudgetWaitSeconds: 1, maxRunHours: 0.001 } },
    });
    const first = await startWorker({ config, logger: memoryLogger('warn').logger, concurrency: 2 });
    closers.push(() => first.close(5000));
    const c = jobsClient(config);
    const { runId } = await enqueueRun(c.queues, c.ledger, config, { kind: 'sync', account: 'acme' });
    const queue = c.queues.for('acme');
    const delayedRunJob = async () => (await queue.getDelayed()).find((j) => j.id === runId);
    await until('the run job delayed', async () => (await delayedRunJob()) !== undefined);
    expect((await delayedRunJob())?.data.budgetDelays).toBe(1);
    // The workers are down until the run's deadline has passed; the job is due again by then.
    await first.close(5000);
    const started = Date.parse((await c.ledger.get(runId))!.started_at!);
    await until('the run deadline', async () => Date.now() > started + 3_600, 10_000);
    const callsBefore = s.log.length;

    await worker(config, 2);
    const run = await waitForRun(config, runId, 20_000);
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/run deadline of 0\.001 h passed \(jobs\.maxRunHours\)/);
    expect(s.log.length).toBe(callsBefore);
    const m = (await readManifest(new FsObjectStore(dir), 'acme', runId))!;
    expect(m.status).toBe('failed');
    expect(m.error).toBe(run.error);
    expect(m.workspaces).toEqual([]);

    // Enqueued again, the run starts afresh, with a deadline of its own.
    s.clearFaults();
    expect((await enqueueRun(c.queues, c.ledger, config, { kind: 'sync', account: 'acme' })).runId).toBe(
      runId,
    );
    const again = await waitForRun(config, runId, 20_000);
    expect(again.status, again.error).toBe('succeeded');
  }, 30_000);

  it('a job counts its budget delays in its data, comes back with the priority given, and fails with the reason after the bound', async () => {
    const redis = new Redis(inject('redisUrl'), { maxRetriesPerRequest: null });
    closers.push(() => redis.quit());
    const prefix = `t-${randomUUID().slice(0, 8)}`;
    const queue = new Queue('delays', { connection: redis, prefix });
    closers.push(() => queue.close());
    let runs = 0;
    const w = new Worker(
      'delays',
      async (job: Job, token) => {
        runs++;
        // A 429 on every call: no budget, ever.
        // Back with the priority given (ahead of new work), whatever it was queued with.
        const reason = await stepAsideForBudget(job, token, new BudgetWaitTooLong('acme', 20), 2, {}, 3);
        throw new UnrecoverableError(reason);
      },
      { connection: redis.duplicate({ maxRetriesPerRequest: null }), prefix },
    );
    closers.push(() => w.close());
    const failed = new Promise<Error>((resolve) => w.on('failed', (_job, err) => resolve(err)));
    const job = await queue.add('workspace', { account: 'acme' }, { attempts: 3 });
    const err = await failed;
    expect(err.message).toBe(
      'gave up after 2 waits for request budget (each longer than jobs.maxBudgetWaitSeconds)',
    );
    expect(runs).toBe(3);
    const after = (await queue.getJob(job.id!))!;
    expect(after.data.budgetDelays).toBe(2);
    expect(after.priority).toBe(3);
    expect(after.attemptsMade).toBe(1);
  });

  it('the bound: more delays than fit in jobs.maxRunHours, each longer than jobs.maxBudgetWaitSeconds', () => {
    expect(budgetDelayLimit({ maxRunHours: 20, maxBudgetWaitSeconds: 10 })).toBe(7201);
    expect(budgetDelayLimit({ maxRunHours: 0.001, maxBudgetWaitSeconds: 1 })).toBe(5);
  });
});
