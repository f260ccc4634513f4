// Redis restarting without persistence: its data is gone and every connection drops (emulated on a
// private redis-server by FLUSHALL and CLIENT KILL, which is what clients see of such a restart).
// The sink is the record that lasts: schedules come back, the window and the ledger are rebuilt
// from the manifests, a run lost mid-way completes when enqueued again (`enqueue --wait` says it
// was lost and how), a run whose finish outlives the data counts its requests from its raw landing,
// and the budget ramps instead of bursting into an upstream window that still counts the requests
// before the restart.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { enqueueRun } from '../jobs/enqueue.js';
import { RedisKeyLock } from '../jobs/redis-key-lock.js';
import { budgetKeys, RedisRateBudget } from '../jobs/redis-rate-budget.js';
import { missingSchedules, schedulerId } from '../jobs/schedules.js';
import { acquireSlot } from '../src/api/rate-budget.js';
import { waitForRuns } from '../src/cli/enqueue-wait.js';
import type { Config } from '../src/config/schema.js';
import { readManifest } from '../src/records/manifest.js';
import { CURATING } from '../src/records/run-state.js';
import { startWorker } from '../src/run/queued/worker.js';
import { peakInWindow } from '../src/simulator/index.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { latestKey } from '../src/sinks/layout.js';
import { capture, fakeBigQuery, memoryLogger, sim, tempDir, visyncCli } from './helpers/harness.js';
import {
  jobsClient,
  jobsConfig,
  jobsConfigFile,
  privateRedisForFile,
  until,
  waitForRun,
  worker,
} from './helpers/jobs.js';

const privateRedis = privateRedisForFile();

/** What clients see of a Redis restart without persistence: no data, every connection dropped. */
async function loseRedis(): Promise<void> {
  await privateRedis.admin.flushall();
  await privateRedis.admin.client('KILL', 'TYPE', 'normal');
}

function config(s: Parameters<typeof jobsConfig>[0], dir: string, o: Parameters<typeof jobsConfig>[2] = {}) {
  return jobsConfig(s, dir, {
    ...o,
    top: {
      redis: { url: privateRedis.server.url, prefix: `r-${randomUUID().slice(0, 8)}` },
      ...(o.top ?? {}),
    },
  });
}

/** Adds a nightly run for `runDate` as its scheduler would, and waits for its job's result. */
async function nightly(c: ReturnType<typeof jobsClient>, runDate: string, jobId: string) {
  const queue = c.queues.for('acme');
  await queue.add('run', { account: 'acme', kind: 'nightly', runDate }, { jobId, attempts: 1 });
  let result: { runId: string; skipped?: string } | undefined;
  await until(`nightly ${runDate}`, async () => {
    result = (await queue.getJob(jobId))?.returnvalue;
    return result != null;
  });
  return result!;
}

describe('Redis restart without persistence', () => {
  it('between runs: schedules come back, a finished run is not run again, the window and last success come from the manifests', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    const dir = tempDir();
    // A short budget window: after the restart the budget ramps over one window.
    const cfg: Config = config(s, dir, {
      extract: { visibilityDays: 1, overlapDays: 1 },
      accounts: { acme: { requestsPerMinute: 20, rateWindowSeconds: 1 } },
    });
    await worker(cfg, 2);
    const c = jobsClient(cfg);
    const first = await nightly(c, '2026-11-10', 'n1');
    expect((await waitForRun(cfg, first.runId)).status).toBe('succeeded');

    await loseRedis();
    await until('schedules re-installed', async () => (await missingSchedules(c.queues, cfg)).length === 0);
    // Re-installing starts no run: the nightly is due at the next cron time.
    const scheduler = await c.queues.for('acme').getJobScheduler(schedulerId('acme'));
    expect(scheduler?.next).toBeGreaterThan(Date.now());

    // The same nightly again: its manifest says it succeeded, so it makes no call.
    const calls = s.log.length;
    const again = await nightly(c, '2026-11-10', 'n1-again');
    expect(again).toMatchObject({ runId: first.runId, skipped: 'already succeeded' });
    expect(s.log.length).toBe(calls);

    const next = await nightly(c, '2026-11-13', 'n2');
    const run = await waitForRun(cfg, next.runId);
    expect(run.status).toBe('succeeded');
    // Last success 2026-11-10 (from its manifest): 3 days since, plus 1 of overlap.
    expect(run.visibility_days).toBe(4);
    expect(run.window_from).toBe('2026-11-10');
    expect((await c.ledger.lastSuccess('acme'))?.run_id).toBe(next.runId);
  });

  it('mid-run: the run enqueued again completes with a full manifest, and the budget ramps instead of bursting', async () => {
    const windowMs = 1000;
    const limit = 10;
    const s = await sim({
      accounts: [{ name: 'acme', workspaces: 4 }],
      limit: { requests: limit, windowMs },
      latencyMs: 20,
    });
    const dir = tempDir();
    const cfg = config(s, dir, {
      accounts: { acme: { requestsPerMinute: limit, rateWindowSeconds: windowMs / 1000 } },
    });
    await worker(cfg, 4);
    const c = jobsClient(cfg);
    const { runId } = await enqueueRun(c.queues, c.ledger, cfg, { kind: 'sync', account: 'acme' });
    await until('the run is half-way', async () => s.log.length >= 15);
    const flushedAt = s.log.at(-1)!.seq;
    await loseRedis();
    await until('schedules re-installed', async () => (await missingSchedules(c.queues, cfg)).length === 0);
    expect(await c.ledger.get(runId)).toBeUndefined();

    const again = await enqueueRun(c.queues, c.ledger, cfg, { kind: 'sync', account: 'acme' });
    expect(again).toMatchObject({ runId, created: true });
    const run = await waitForRun(cfg, runId, 45_000);
    expect(run.status).toBe('succeeded');
    expect(run.workspaces_done).toBe(4);
    const m = (await readManifest(new FsObjectStore(dir), 'acme', runId))!;
    expect(m.status).toBe('succeeded');
    expect(m.workspaces.map((w) => w.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
    expect(m.files.filter((f) => f.key.startsWith('raw/'))).toHaveLength(2 + 4 * 7);

    // The upstream may still count the requests of the window before the restart: in the first
    // window after it, the budget ramps instead of sending the limit at once: the ramp grants 4 of
    // 10 in a 0.3 s window where a burst would send all 10; the bound of half the limit leaves room
    // for arrival jitter. Later windows are ordinary sliding windows again, where an idle window may
    // rightly be followed by a burst, so only the first one is held to the ramp.
    const after = s.log.filter((e) => e.seq > flushedAt);
    const rampEnds = (after[0]?.at ?? 0) + windowMs;
    const ramp = after.filter((e) => e.at < rampEnds);
    expect(ramp.length).toBeGreaterThan(0);
    expect(peakInWindow(ramp, 'acme', windowMs * 0.3)).toBeLessThanOrEqual(limit / 2);
    expect(peakInWindow(s.log, 'acme', windowMs)).toBeLessThanOrEqual(limit);
  });

  it('enqueue --wait: a run lost with Redis before it ended is said lost, with the command that enqueues it again; exit 1', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const redis = { url: privateRedis.server.url, prefix: `e-${randomUUID().slice(0, 8)}` };
    const { config: cfg, path } = jobsConfigFile(s, tempDir(), { top: { redis } });
    // No worker: the run stays queued until Redis loses it.
    const waiting = visyncCli(path, ['enqueue', 'sync', '--account', 'acme', '--days', '3', '--wait']);
    const c = jobsClient(cfg);
    let runId = '';
    await until('the run is enqueued', async () => {
      runId = (await c.ledger.recent('acme'))[0]?.run_id ?? '';
      return runId !== '';
    });
    await loseRedis();
    const r = await waiting;
    expect(r.code).toBe(1);
    expect(r.err.at(-1)).toBe(
      `visync: run ${runId} was lost with Redis's data before it ended (Redis restarted without persistence?); enqueue it again: visync enqueue sync --account acme --days 3`,
    );
    // The command given enqueues the same run again.
    const again = await visyncCli(path, ['enqueue', 'sync', '--account', 'acme', '--days', '3']);
    expect(again.out).toEqual([`acme: enqueued sync ${runId}`]);
  }, 20_000);

  it('enqueue --wait: a run that ended before Redis lost it is read from its manifest and back in the ledger', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const dir = tempDir();
    const cfg = config(s, dir);
    const w = await worker(cfg, 2);
    const c = jobsClient(cfg);
    const { runId } = await enqueueRun(c.queues, c.ledger, cfg, { kind: 'sync', account: 'acme' });
    const before = await waitForRun(cfg, runId);
    await w.close(5000);
    await loseRedis();
    const out = capture();
    const store = new FsObjectStore(dir);
    const runs = await waitForRuns(c, [runId], out.io, {
      lost: { manifest: (id) => readManifest(store, 'acme', id), enqueueAgain: () => 'not asked for' },
      since: new Date(Date.parse(before.created_at)),
    });
    expect(runs?.map((r) => [r.run_id, r.status, r.calls])).toEqual([[runId, 'succeeded', before.calls]]);
    expect(out.out).toEqual([
      `acme: ${runId} succeeded | manifest runs/account=acme/run=${runId}/manifest.json`,
    ]);
    expect((await c.ledger.get(runId))?.status).toBe('succeeded');
  }, 20_000);

  it.each([
    ['recorded by its finish', false],
    ['recorded by its load batch', true],
  ])(
    'during the finish stage (%s): the manifest counts the requests from the raw landing, and the ledger has the run again',
    async (_, batched) => {
      const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
      const dir = tempDir();
      const bq = batched ? await fakeBigQuery() : undefined;
      const cfg = config(s, dir, {
        ...(bq
          ? { sinks: { fs: { dir }, bigquery: { projectId: 'p', dataset: 'd', apiEndpoint: bq.url } } }
          : {}),
      });
      // A latest/ bundle's lock, held here, keeps the run's finish from completing until Redis
      // loses its data (and the lock with it).
      const holder = new Redis(privateRedis.server.url);
      let release = () => {};
      const held = new Promise<void>((r) => {
        release = r;
      });
      const holding = new RedisKeyLock(holder, cfg.redis.prefix)
        .runAll([latestKey('acme', s.accounts[0]!.workspaceIds[0]!)], () => held)
        .catch(() => {});
      await worker(cfg, 2);
      const c = jobsClient(cfg);
      const { runId } = await enqueueRun(c.queues, c.ledger, cfg, { kind: 'sync', account: 'acme' });
      await until('the run is curating', async () => (await c.ledger.get(runId))?.phase === CURATING);
      await loseRedis();
      release();
      await holding;
      holder.disconnect();

      // The workers reconnect with backoff and the finish or batch may be retried after the flush:
      // seconds alone, but far longer beside a busy suite on 2 cores, so the wait is generous.
      const run = await waitForRun(cfg, runId, 100_000);
      // 1 + 1 + 2 * 7 calls, each landed once: no retry, no 429.
      expect(s.log).toHaveLength(16);
      const m = (await readManifest(new FsObjectStore(dir), 'acme', runId))!;
      expect(m.status).toBe('succeeded');
      expect(m.requests).toEqual({ calls: 16, rate_limited: 0, retries: 0, waited_ms: 0 });
      expect(m.requests_from).toBe('raw landing');
      // In the ledger again, as the manifest records it: status lists it, and it is the last success.
      expect(run).toMatchObject({ status: 'succeeded', calls: 16, workspaces_done: 2, workspaces_failed: 0 });
      expect(run.manifest_key).toBe(`runs/account=acme/run=${runId}/manifest.json`);
      expect((await c.ledger.lastSuccess('acme'))?.run_id).toBe(runId);
      if (bq) {
        expect(m.loads.every((l) => l.status === 'succeeded' && l.load_batch_id)).toBe(true);
        expect(bq.rows('p', 'd', 'sync_runs').map((r) => [r.run_id, r.requests])).toEqual([[runId, 16]]);
      }
    },
    120_000,
  );

  it('the budget: a lost log ramps over the next window; a first use does not', async () => {
    const redis = new Redis(privateRedis.server.url);
    try {
      const prefix = `b-${randomUUID().slice(0, 8)}`;
      const b = new RedisRateBudget(redis, { prefix });
      const lim = { requests: 5, windowMs: 1000 };
      // First use by this process: the full window at once.
      for (let i = 0; i < 5; i++) expect((await b.tryTake('a', lim)).ok).toBe(true);
      await privateRedis.admin.flushall();
      // The log is gone: of many immediate takes, one is granted.
      const burst = await Promise.all(Array.from({ length: 10 }, () => b.tryTake('a', lim)));
      expect(burst.filter((r) => r.ok)).toHaveLength(1);
      const refused = burst.find((r) => !r.ok);
      expect(refused && !refused.ok && refused.retryInMs).toBeLessThanOrEqual(
        lim.windowMs / lim.requests + 1,
      );
      const k = budgetKeys(prefix, 'a');
      const since = Number(await redis.get(k.since));
      for (let i = 0; i < 4; i++) await acquireSlot(b, 'a', lim);
      // Granted on the server clock: the k-th slot of the ramp k/5 of a window after it began.
      const scores = (await redis.zrange(k.slots, 0, -1, 'WITHSCORES'))
        .filter((_, i) => i % 2 === 1)
        .map(Number)
        .sort((x, y) => x - y);
      expect(scores).toHaveLength(5);
      scores.forEach((at, i) => {
        expect(at - since).toBeGreaterThanOrEqual((i * lim.windowMs * 1000) / lim.requests);
      });
    } finally {
      await redis.quit();
    }
  });

  it('the worker says in one line each when Redis keeps no data, may evict, or cannot be checked', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const dir = tempDir();
    const start = async (url: string) => {
      const { logger, lines } = memoryLogger('warn');
      const cfg = config(s, dir, { top: { redis: { url, prefix: `w-${randomUUID().slice(0, 8)}` } } });
      const h = await startWorker({ config: cfg, logger, concurrency: 1 });
      await h.close(1000);
      return lines.map((l) => JSON.parse(l).msg as string);
    };
    const plain = await start(privateRedis.server.url);
    expect(plain.filter((l) => /persistence/.test(l))).toHaveLength(1);
    expect(plain.find((l) => /persistence/.test(l))).toMatch(/appendonly yes.*appendfsync everysec/);
    expect(plain.filter((l) => /evict/.test(l))).toHaveLength(0);

    await privateRedis.admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
    await privateRedis.admin.config('SET', 'appendonly', 'yes');
    try {
      const lru = await start(privateRedis.server.url);
      expect(lru.filter((l) => /persistence/.test(l))).toHaveLength(0);
      expect(lru.filter((l) => /maxmemory-policy allkeys-lru/.test(l))).toHaveLength(1);
    } finally {
      await privateRedis.admin.config('SET', 'maxmemory-policy', 'noeviction');
      await privateRedis.admin.config('SET', 'appendonly', 'no');
    }

    // A managed Redis that refuses CONFIG.
    await privateRedis.admin.acl('SETUSER', 'limited', 'on', '>secret', '~*', '&*', '+@all', '-config');
    const url = new URL(privateRedis.server.url);
    const refused = await start(`redis://limited:secret@${url.host}`);
    expect(refused.filter((l) => /could not check Redis/.test(l))).toHaveLength(1);
    expect(refused.join('\n')).not.toMatch(/\n\s+at /);
  });
});
