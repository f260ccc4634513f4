// Long Retry-After and the run deadline in the job system, against real Redis and the simulator
// over real HTTP: a pause holds every job of the account (delayed, not failed), and a run whose
// calls are refused forever ends at its deadline instead of being delayed endlessly.
import { describe, expect, it } from 'vitest';
import { enqueueRun } from '../jobs/enqueue.js';
import { peekBudget } from '../jobs/redis-rate-budget.js';
import { readManifest } from '../src/records/manifest.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { sim, tempDir } from './helpers/harness.js';
import { jobsClient, jobsConfig, until, waitForRun, worker } from './helpers/jobs.js';

describe('jobs under long Retry-After', () => {
  it('one 429 with an hour of Retry-After pauses the account in Redis and every workspace job waits delayed', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 6 }] });
    s.addFault({ account: 'acme', endpoint: 'visibility', kind: 'status', status: 429, retryAfter: 3600 });
    const dir = tempDir();
    const config = jobsConfig(s, dir);
    const concurrency = 4;
    await worker(config, concurrency);
    const c = jobsClient(config);
    const { runId } = await enqueueRun(c.queues, c.ledger, config, { kind: 'sync', account: 'acme' });
    const queue = c.queues.for('acme');
    // Every workspace job steps aside until the pause ends; none fails, none keeps a worker slot.
    // (The delayed set also holds the next nightly run that the worker's schedule installed.)
    const delayedWorkspaces = async () => (await queue.getDelayed()).filter((j) => j.name === 'workspace');
    const covered = async () =>
      (await delayedWorkspaces()).reduce((n, j) => n + (j.data as { brandIds: string[] }).brandIds.length, 0);
    await until('every workspace in a delayed job', async () => (await covered()) === 6);
    const jobs = (await delayedWorkspaces()).length;

    const limited = s.log.filter((e) => e.status === 429);
    expect(limited).toHaveLength(1);
    // Only requests already in flight when the 429 came back follow it: the six workspaces are one
    // job, fetched at once, so at most one call of each other workspace, and none makes another.
    const later = s.log.filter((e) => e.account === 'acme' && e.seq > limited[0]!.seq);
    expect(later.length).toBeLessThanOrEqual(5);
    expect(new Set(later.map((e) => e.brandId)).size).toBe(later.length);
    expect(later.every((e) => e.brandId !== limited[0]!.brandId && e.status === 200)).toBe(true);

    const budget = await peekBudget(c.redis, config.redis.prefix, 'acme', {
      requests: 120,
      windowMs: 60_000,
    });
    expect(budget.pausedForMs).toBeGreaterThan(3_500_000);
    const stillDelayed = await delayedWorkspaces();
    expect(stillDelayed).toHaveLength(jobs);
    for (const job of stillDelayed) {
      // Due when the pause ends (an hour away), not in a few seconds.
      expect(job.timestamp + (job.delay ?? 0)).toBeGreaterThan(Date.now() + 3_500_000);
      expect(job.attemptsMade).toBe(0);
    }
    expect((await c.ledger.get(runId))?.status).toBe('running');
  });

  it('a 429 with Retry-After: 99999999999999999999 pauses the account for extract.maxPauseSeconds only: its jobs step aside for that long, then the run completes', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 3 }] });
    const [a] = s.accounts[0]!.workspaceIds;
    s.addFault({
      brandId: a,
      endpoint: 'visibility',
      kind: 'status',
      status: 429,
      retryAfter: '99999999999999999999',
    });
    const dir = tempDir();
    const config = jobsConfig(s, dir, { extract: { maxPauseSeconds: 3 } });
    await worker(config, 2);
    const c = jobsClient(config);
    const { runId } = await enqueueRun(c.queues, c.ledger, config, { kind: 'sync', account: 'acme' });
    const pauseMs = async () =>
      (await peekBudget(c.redis, config.redis.prefix, 'acme', { requests: 120, windowMs: 60_000 }))
        .pausedForMs;
    // Before the cap, the pause key was written without expiry and the job delayed by 4e26 ms.
    let paused = 0;
    await until('the pause in Redis', async () => {
      paused = await pauseMs();
      return paused > 0;
    });
    expect(paused).toBeLessThanOrEqual(3000);
    const run = await waitForRun(config, runId, 30_000);
    expect(run.status).toBe('succeeded');
    expect(s.log.filter((e) => e.status === 429)).toHaveLength(1);
    expect(await pauseMs()).toBe(0);
  }, 40_000);

  it('a 429 on every call of a workspace ends the run partial at jobs.maxRunHours, with the reason', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    const [a, b] = s.accounts[0]!.workspaceIds;
    // Longer than maxBudgetWaitSeconds, so each 429 sends the job to the delayed set.
    s.addFault({
      brandId: a,
      endpoint: 'prompts',
      kind: 'status',
      status: 429,
      retryAfter: 2,
      times: Number.POSITIVE_INFINITY,
    });
    const dir = tempDir();
    // 0.002 h = 7.2 s; b first (one worker slot; 30 requests a minute make jobs of one workspace,
    // whose calls a pause of the account would hold too), then a is refused until the deadline.
    const config = jobsConfig(s, dir, {
      accounts: { acme: { brands: [b, a], requestsPerMinute: 30 } },
      top: { jobs: { lockSeconds: 2, maxBudgetWaitSeconds: 1, maxRunHours: 0.002 } },
    });
    await worker(config, 1);
    const c = jobsClient(config);
    const { runId } = await enqueueRun(c.queues, c.ledger, config, { kind: 'sync', account: 'acme' });
    const run = await waitForRun(config, runId, 30_000);
    expect(run.status).toBe('partial');
    const m = (await readManifest(new FsObjectStore(dir), 'acme', runId))!;
    expect(m.status).toBe('partial');
    const byId = Object.fromEntries(m.workspaces.map((w) => [w.brand_id, w]));
    expect(byId[b!]?.status).toBe('succeeded');
    expect(byId[a!]?.status).toBe('failed');
    expect(byId[a!]?.error).toMatch(/run deadline of 0\.002 h/);
    // Bounded: one 429 per pause until the deadline, not an endless loop.
    expect(s.log.filter((e) => e.status === 429).length).toBeLessThanOrEqual(6);
  }, 40_000);
});
