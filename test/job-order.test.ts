// The order a worker serves the jobs of several runs in, and what a job of several workspaces
// does when one of them fails: read from the simulator's arrival log (order and counts, never
// times) and the manifest.
import { describe, expect, it } from 'vitest';
import { jobPriority, kindOfPriority, WorkspaceJobSchema } from '../jobs/definitions.js';
import { enqueueRun } from '../jobs/enqueue.js';
import { shardOf } from '../jobs/queues.js';
import { plannedRequestCount } from '../src/extract/plan.js';
import { readManifest } from '../src/records/manifest.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { sim, tempDir } from './helpers/harness.js';
import { jobsClient, jobsConfig, syncToEnd, waitForRun, worker } from './helpers/jobs.js';

describe('job order', () => {
  it('a worker finishes the account it started before it starts the next one on its queue', async () => {
    // Two accounts on one queue shard, one worker slot per shard: the order is the queue's alone.
    const second = Array.from({ length: 100 }, (_, i) => `beta-${i}`).find(
      (n) => shardOf(n) === shardOf('acme'),
    ) as string;
    // 12 workspaces of 7 calls: two workspace jobs, of eight and four workspaces (120 a minute).
    const s = await sim({
      accounts: [
        { name: 'acme', workspaces: 12 },
        { name: second, workspaces: 12 },
      ],
    });
    const dir = tempDir();
    const config = jobsConfig(s, dir);
    const c = jobsClient(config);
    const first = await enqueueRun(c.queues, c.ledger, config, { kind: 'sync', account: 'acme' });
    const next = await enqueueRun(c.queues, c.ledger, config, { kind: 'sync', account: second });
    await worker(config, 1);
    expect((await waitForRun(config, first.runId)).status).toBe('succeeded');
    expect((await waitForRun(config, next.runId)).status).toBe('succeeded');
    expect(await c.queues.for('acme').getJob(`${first.runId}.ws.1`)).toBeDefined();

    const order = [...s.log].sort((a, b) => a.seq - b.seq).map((e) => e.account);
    // Every call of the first account (discovery, then its two workspace jobs) before any of the
    // second: its run job waited behind the first account's workspace jobs.
    expect(order.lastIndexOf('acme')).toBeLessThan(order.indexOf(second));
    expect(order.filter((a) => a === 'acme')).toHaveLength(plannedRequestCount(12, config.extract));
  });

  it('a call that keeps failing with 503 retries its job, which makes only the calls that did not land', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 3 }] });
    const [a, b, c] = s.accounts[0]!.workspaceIds as [string, string, string];
    // More 503s than the client's own attempts: the call fails for this attempt of the job.
    s.addFault({ brandId: b, endpoint: 'prompts', kind: 'status', status: 503, times: 5 });
    const dir = tempDir();
    const config = jobsConfig(s, dir);
    await worker(config);
    const { runId, run } = await syncToEnd(config);
    expect(run.status).toBe('succeeded');
    const m = (await readManifest(new FsObjectStore(dir), 'acme', runId))!;
    expect(m.workspaces.map((w) => [w.brand_id, w.status])).toEqual([
      [a, 'succeeded'],
      [b, 'succeeded'],
      [c, 'succeeded'],
    ]);
    // The three workspaces were one job; its retry made the failed call alone.
    const ok = s.log.filter((e) => e.status === 200 && e.brandId);
    const calls = ok.map((e) => `${e.brandId} ${e.path} ${JSON.stringify(e.query)}`);
    expect(new Set(calls).size).toBe(calls.length);
    expect(calls).toHaveLength(plannedRequestCount(3, config.extract) - 2);
    expect(s.log.filter((e) => e.status === 503)).toHaveLength(5);
  }, 60_000);
});

describe('job data', () => {
  it('a workspace job queued before jobs covered several workspaces reads as a job of one', () => {
    const old = {
      account: 'acme',
      runId: 'r1',
      runDate: '2026-11-23',
      brandId: 'w-a',
      plan: { visibilityDays: 3, buyerIntentDays: [7] },
      limit: { requests: 120, windowMs: 60_000 },
      done: ['brand', 'visibility'],
    };
    const data = WorkspaceJobSchema.parse(old);
    expect(data.brandIds).toEqual(['w-a']);
    expect(data.done).toEqual({ 'w-a': ['brand', 'visibility'] });
    expect(data.failed).toEqual({});
  });

  it('every stage of a kind comes before any job of the next kind, and each priority names its kind', () => {
    const order = (['nightly', 'sync', 'backfill'] as const).flatMap((kind) =>
      (['resumed', 'opened', 'started', 'new', 'finish'] as const).map((stage) => jobPriority(kind, stage)),
    );
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(new Set(order).size).toBe(order.length);
    expect(kindOfPriority(jobPriority('sync', 'new'))).toBe('sync');
    expect(kindOfPriority(jobPriority('backfill', 'resumed'))).toBe('backfill');
    expect(kindOfPriority(jobPriority('nightly', 'finish'))).toBe('nightly');
  });
});
