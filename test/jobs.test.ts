// The job system in one process against real Redis and real HTTP: flows, the ledger, dedup,
// schedules, windows, budgets. Multi-process behaviour (SIGKILL, SIGTERM, two workers) is in
// test/workers.test.ts.
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { describe, expect, inject, it } from 'vitest';
import { enqueueRun } from '../jobs/enqueue.js';
import { queueName } from '../jobs/queues.js';
import { installSchedules } from '../jobs/schedules.js';
import type { Config } from '../src/config/schema.js';
import { readManifest } from '../src/records/manifest.js';
import { startWorker } from '../src/run/queued/worker.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { memoryLogger, sim, tempDir } from './helpers/harness.js';
import {
  jobsClient,
  jobsConfig,
  syncToEnd,
  until,
  untilQueueIdle,
  waitForRun,
  worker,
} from './helpers/jobs.js';

describe('jobs on BullMQ', () => {
  it('an enqueued sync fans out its workspaces over a few jobs, lands every workspace and writes the manifest', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 12 }] });
    const dir = tempDir();
    const config = jobsConfig(s, dir);
    await worker(config);
    const c = jobsClient(config);
    const { runId, created } = await enqueueRun(c.queues, c.ledger, config, {
      kind: 'sync',
      account: 'acme',
    });
    expect(created).toBe(true);
    const run = await waitForRun(config, runId);
    expect(run.status).toBe('succeeded');
    expect(run.workspaces_done).toBe(12);
    // 7 calls a workspace, 120 a minute: eight workspaces (what a job extracts at once, under half
    // the window) in the first job, the four left in a second.
    const jobs = await Promise.all([0, 1, 2].map((i) => c.queues.for('acme').getJob(`${runId}.ws.${i}`)));
    expect(jobs.map((j) => j?.data.brandIds.length)).toEqual([8, 4, undefined]);
    const m = (await readManifest(new FsObjectStore(dir), 'acme', runId))!;
    expect(m.status).toBe('succeeded');
    expect(m.kind).toBe('sync');
    expect(m.workspaces.map((w) => w.brand_id)).toEqual(s.accounts[0]!.workspaceIds);
    expect(m.workspaces.every((w) => w.status === 'succeeded')).toBe(true);
    expect(m.files.filter((f) => f.key.startsWith('raw/'))).toHaveLength(2 + 12 * 7);
    expect(m.files.some((f) => f.key.startsWith('tables/visibility_daily/'))).toBe(true);
    expect(m.requests.calls).toBe(2 + 12 * 7);
  });

  it('the same backfill enqueued twice runs once', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    const dir = tempDir();
    const config = jobsConfig(s, dir);
    const c = jobsClient(config);
    const first = await enqueueRun(c.queues, c.ledger, config, {
      kind: 'backfill',
      account: 'acme',
      days: 30,
    });
    const second = await enqueueRun(c.queues, c.ledger, config, {
      kind: 'backfill',
      account: 'acme',
      days: 30,
    });
    expect(second.runId).toBe(first.runId);
    expect(second.created).toBe(false);
    await worker(config);
    expect((await waitForRun(config, first.runId)).status).toBe('succeeded');
    // Again after it finished (its BullMQ job may be gone by then): the ledger still refuses.
    const third = await enqueueRun(c.queues, c.ledger, config, {
      kind: 'backfill',
      account: 'acme',
      days: 30,
    });
    expect(third.created).toBe(false);
    expect(third.existing?.status).toBe('succeeded');
    await untilQueueIdle(config);
    expect(s.log.filter((e) => e.endpoint === 'me')).toHaveLength(1);
    expect(s.log.filter((e) => e.endpoint === 'visibility').every((e) => e.query.days === '30')).toBe(true);
  });

  it('a nightly run that fires twice for the same date runs once', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    const dir = tempDir();
    const config = jobsConfig(s, dir);
    const c = jobsClient(config);
    await worker(config);
    const { logicalRunId } = await import('../src/records/run-id.js');
    const runId = logicalRunId('nightly', 'acme', '2026-11-10');
    const data = { account: 'acme', kind: 'nightly', runDate: '2026-11-10' };
    // Two jobs for the same logical run (the ids differ, as two scheduler firings' would).
    await c.queues.for('acme').add('run', data, { jobId: 'first-firing' });
    expect((await waitForRun(config, runId)).status).toBe('succeeded');
    const calls = s.log.length;
    const events = new QueueEvents(queueName('acme'), {
      connection: { url: inject('redisUrl') },
      prefix: config.redis.prefix,
    });
    try {
      await events.waitUntilReady();
      const second = await c.queues.for('acme').add('run', data, { jobId: 'second-firing' });
      const result = await second.waitUntilFinished(events, 20_000);
      expect(result.skipped).toBe('already succeeded');
    } finally {
      await events.close();
    }
    expect(s.log.length).toBe(calls);
  });

  it('installs a nightly scheduler per account with the configured cron and time zone, and removes stale ones', async () => {
    const s = await sim({
      accounts: [
        { name: 'acme', workspaces: 1 },
        { name: 'beta', workspaces: 1 },
        { name: 'gone', workspaces: 1 },
      ],
    });
    const dir = tempDir();
    const before = jobsConfig(s, dir, {
      top: { schedule: { nightly: { cron: '30 3 * * *', tz: 'Europe/Paris' } } },
    });
    // Yesterday's config had a third account; today's has dropped it.
    const c = jobsClient(before);
    await installSchedules(c.queues, before);
    expect((await c.queues.for('gone').getJobSchedulers(0, -1)).map((x) => x.key)).toEqual(['nightly-gone']);
    const config: Config = { ...before, accounts: before.accounts.filter((a) => a.name !== 'gone') };
    const h = await worker(config);
    expect(h.schedules.removed).toEqual(['gone']);
    expect(await c.queues.for('gone').getJobSchedulers(0, -1)).toEqual([]);
    const schedulers = [
      ...(await c.queues.for('acme').getJobSchedulers(0, -1)),
      ...(await c.queues.for('beta').getJobSchedulers(0, -1)),
    ];
    expect(schedulers.map((x) => x.key ?? x.id).sort()).toEqual(['nightly-acme', 'nightly-beta']);
    for (const x of schedulers) {
      expect(x.pattern).toBe('30 3 * * *');
      expect(x.tz).toBe('Europe/Paris');
      // Due at 03:30 Paris time, not now: installing a schedule starts no run.
      const next = new Date(x.next!);
      expect(
        new Intl.DateTimeFormat('en-GB', {
          timeZone: 'Europe/Paris',
          hour: '2-digit',
          minute: '2-digit',
        }).format(next),
      ).toBe('03:30');
    }
    await untilQueueIdle(config, 'acme');
    await untilQueueIdle(config, 'beta');
    expect(s.log).toHaveLength(0);
  });

  it('after two failed nightly runs, the next window covers the missed days plus the overlap', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const dir = tempDir();
    const config = jobsConfig(s, dir, { extract: { visibilityDays: 3, overlapDays: 2 } });
    const c = jobsClient(config);
    await worker(config);
    const nightly = async (runDate: string) => {
      const { logicalRunId } = await import('../src/records/run-id.js');
      const runId = logicalRunId('nightly', 'acme', runDate);
      await c.queues
        .for('acme')
        .add('run', { account: 'acme', kind: 'nightly', runDate }, { jobId: runId, attempts: 1 });
      return waitForRun(config, runId);
    };
    expect((await nightly('2026-11-10')).status).toBe('succeeded');
    s.setPlan('acme', 'starter');
    for (const d of ['2026-11-11', '2026-11-12']) {
      const r = await nightly(d);
      expect(r.status).toBe('failed');
      expect(r.error).toMatch(/403/);
    }
    s.setPlan('acme', 'agency');
    const next = await nightly('2026-11-13');
    expect(next.status).toBe('succeeded');
    // Last success 2026-11-10: 3 missed days + 2 days overlap.
    expect(next.visibility_days).toBe(5);
    expect(next.window_from).toBe('2026-11-09');
    expect(s.log.filter((e) => e.endpoint === 'visibility').at(-1)?.query.days).toBe('5');
  });

  it("an account paused by a long Retry-After does not hold up another account's run", async () => {
    const s = await sim({
      accounts: [
        { name: 'acme', workspaces: 4 },
        { name: 'beta', workspaces: 4 },
      ],
    });
    s.addFault({ account: 'acme', endpoint: 'brand', kind: 'status', status: 429, retryAfter: 20 });
    const dir = tempDir();
    const config = jobsConfig(s, dir);
    const c = jobsClient(config);
    await worker(config, 2);
    const acme = await enqueueRun(c.queues, c.ledger, config, { kind: 'sync', account: 'acme' });
    await until('acme rate limited', async () => s.log.some((e) => e.status === 429));
    const beta = await enqueueRun(c.queues, c.ledger, config, { kind: 'sync', account: 'beta' });
    const betaRun = await waitForRun(config, beta.runId, 15_000);
    expect(betaRun.status).toBe('succeeded');
    const limited = s.log.find((e) => e.status === 429)!;
    // acme is still waiting out its pause, and sent nothing new since the 429: at most the calls
    // already on their way (a job's workspaces go at once: one call each of the other three).
    expect((await c.ledger.get(acme.runId))?.status).toBe('running');
    const acmeLater = s.log.filter((e) => e.account === 'acme' && e.seq > limited.seq);
    expect(acmeLater.length).toBeLessThanOrEqual(3);
    expect(acmeLater.every((e) => e.endpoint === 'brand' && e.brandId !== limited.brandId)).toBe(true);
    expect(new Set(acmeLater.map((e) => e.brandId)).size).toBe(acmeLater.length);
    expect(s.log.filter((e) => e.account === 'beta' && e.seq > limited.seq).length).toBeGreaterThan(20);
  });

  it('a revoked key fails the run once, with the reason in the ledger and the manifest, and no retries', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 3 }] });
    s.revokeKey(s.accounts[0]!.keys[0]!);
    const dir = tempDir();
    const config = jobsConfig(s, dir);
    await worker(config);
    const { runId, run } = await syncToEnd(config);
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/401: the API key was refused/);
    expect(run.error_code).toBe('auth_revoked');
    const m = (await readManifest(new FsObjectStore(dir), 'acme', runId))!;
    expect(m.status).toBe('failed');
    expect(m.error).toMatch(/401/);
    expect(m.error_code).toBe('auth_revoked');
    await untilQueueIdle(config);
    expect(s.log).toHaveLength(1);
  });

  it('a workspace that fails for good is recorded and does not block the load of the others', async () => {
    const s = await sim({
      accounts: [
        { name: 'acme', workspaces: 2 },
        { name: 'other', workspaces: 1 },
      ],
    });
    const [a, b] = s.accounts[0]!.workspaceIds;
    const foreign = s.accounts[1]!.workspaceIds[0]!;
    const dir = tempDir();
    const config = jobsConfig(s, dir, { accounts: { acme: { brands: [a, foreign, b] } } });
    await worker(config);
    const { runId, run } = await syncToEnd(config);
    expect(run.status).toBe('partial');
    const m = (await readManifest(new FsObjectStore(dir), 'acme', runId))!;
    const byId = Object.fromEntries(m.workspaces.map((w) => [w.brand_id, w]));
    expect(byId[foreign]?.status).toBe('failed');
    expect(byId[foreign]?.error).toMatch(/not owned by the account/);
    // One job covered the three workspaces: the one that failed did not fail the others.
    expect(byId[a!]?.status).toBe('succeeded');
    expect(byId[b!]?.status).toBe('succeeded');
    expect(m.files.some((f) => f.key.startsWith('tables/prompts/'))).toBe(true);
    // Not retried: a foreign workspace cannot become ours by asking again.
    expect(s.log.filter((e) => e.brandId === foreign)).toHaveLength(1);
  });

  it('Redis holds no API key: not in job data, the ledger, the budget or anywhere else', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 3 }] });
    s.addFault({ endpoint: 'prompts', kind: 'status', status: 429, retryAfter: 1 });
    const dir = tempDir();
    const config = jobsConfig(s, dir);
    await worker(config);
    await syncToEnd(config);
    const redis = new Redis(inject('redisUrl'));
    try {
      const keys = await redis.keys(`${config.redis.prefix}:*`);
      expect(keys.length).toBeGreaterThan(5);
      let dump = '';
      for (const k of keys) {
        const type = await redis.type(k);
        if (type === 'string') dump += await redis.get(k);
        else if (type === 'hash') dump += JSON.stringify(await redis.hgetall(k));
        else if (type === 'list') dump += JSON.stringify(await redis.lrange(k, 0, -1));
        else if (type === 'set') dump += JSON.stringify(await redis.smembers(k));
        else if (type === 'zset') dump += JSON.stringify(await redis.zrange(k, 0, -1));
        else if (type === 'stream') dump += JSON.stringify(await redis.xrange(k, '-', '+'));
        dump += k;
      }
      expect(dump).toContain('acme');
      expect(dump).not.toContain(s.accounts[0]!.keys[0]!);
    } finally {
      await redis.quit();
    }
  });

  it('a worker says once which per-account queues of an older visync still hold jobs', async () => {
    const s = await sim({
      accounts: [
        { name: 'acme', workspaces: 1 },
        { name: 'beta', workspaces: 1 },
      ],
    });
    const config = jobsConfig(s, tempDir());
    const c = jobsClient(config);
    // What the previous layout left behind: a run queued on `visync-acme`.
    const old = new Queue('visync-acme', { connection: c.redis, prefix: config.redis.prefix });
    await old.add('run', { account: 'acme', kind: 'sync' }, { priority: 5 });
    await old.close();
    const { logger, lines } = memoryLogger('warn');
    const h = await startWorker({ config, logger, concurrency: 1 });
    try {
      const notices = lines.filter((l) => l.includes('older visync'));
      expect(notices).toHaveLength(1);
      expect(notices[0]).toContain('visync-acme');
      expect(notices[0]).not.toContain('visync-beta');
    } finally {
      await h.close(1000);
    }
  });
});
