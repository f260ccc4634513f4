// Worker processes as deployed: several `visync worker` processes (spawned through the bin) on
// one Redis, one simulator and the fake BigQuery. Shared budget and pauses, takeover after
// SIGKILL, graceful SIGTERM.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { jobIds } from '../jobs/definitions.js';
import { enqueueRun } from '../jobs/enqueue.js';
import { type JobsClient, openJobsClient } from '../jobs/jobs-client.js';
import { TABLES } from '../src/catalogue/index.js';
import { parseConfig } from '../src/config/read-config.js';
import { readManifest } from '../src/records/manifest.js';
import { isFinishedStatus } from '../src/records/run-state.js';
import { peakInWindow } from '../src/simulator/index.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { type FakeBigQuery, startFakeBigQuery } from './fakes/bigquery-server.js';
import { type ConfigOverrides, configYaml, listFiles, sim, tempDir } from './helpers/harness.js';
import { waitForRunState } from './helpers/jobs.js';
import { spawnWorker, writeConfig } from './helpers/worker-process.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

function setup(s: Parameters<typeof configYaml>[0], dir: string, o: ConfigOverrides = {}) {
  const { yaml, env } = configYaml(s, dir, {
    ...o,
    top: {
      redis: { url: inject('redisUrl'), prefix: `w-${randomUUID().slice(0, 8)}` },
      jobs: { lockSeconds: 2, maxBudgetWaitSeconds: 1 },
      ...(o.top ?? {}),
    },
  });
  const path = writeConfig(dir, yaml);
  const config = parseConfig(yaml, { source: path, env });
  const client = openJobsClient(config, 'test');
  closers.push(() => client.close());
  return { path, env, config, client };
}

/** The run's ledger record once it has finished. */
const finishedRun = (client: JobsClient, runId: string) =>
  waitForRunState(client, runId, (r) => isFinishedStatus(r.status), { what: 'to finish', timeoutMs: 60_000 });

describe('worker processes', () => {
  it('two workers on one account never exceed its limit and both obey one Retry-After pause', async () => {
    const windowMs = 500;
    const s = await sim({
      accounts: [{ name: 'acme', workspaces: 10 }],
      keysPerAccount: 2,
      limit: { requests: 10, windowMs },
      latencyMs: { min: 0, max: 10 },
    });
    // The account's 16th request, whichever job makes it: early enough that most of the run's
    // calls are still to make when the pause ends (what the last check relies on).
    s.addFault({ account: 'acme', after: 15, kind: 'status', status: 429, retryAfter: 1 });
    const dir = tempDir();
    const { path, env, config, client } = setup(s, dir, {
      accounts: { acme: { requestsPerMinute: 10, rateWindowSeconds: windowMs / 1000 } },
    });
    // Each process uses its own key of the account, so the simulator's log tells them apart.
    const concurrency = 4;
    // Started together: neither takes a job before the run is enqueued below.
    await Promise.all([
      spawnWorker(path, env, concurrency),
      spawnWorker(path, { ...env, SIM_ACME_KEY: s.accounts[0]!.keys[1]! }, concurrency),
    ]);
    const { runId } = await enqueueRun(client.queues, client.ledger, config, {
      kind: 'sync',
      account: 'acme',
    });
    const run = await finishedRun(client, runId);
    expect(run.status).toBe('succeeded');

    expect(new Set(s.log.map((e) => e.keyIndex))).toEqual(new Set([0, 1]));
    expect(peakInWindow(s.log, 'acme', windowMs)).toBeLessThanOrEqual(10);
    expect(s.log.filter((e) => e.status === 429)).toHaveLength(1);
    const limited = s.log.find((e) => e.status === 429)!;
    const pauseEnds = limited.at + 1000;
    // Only requests already in flight when the 429 came back (at most one per job slot of the two
    // processes) may arrive during the pause; nothing new leaves either process before it ends.
    const during = s.log.filter((e) => e.seq > limited.seq && e.at < pauseEnds - 2);
    expect(during.length).toBeLessThanOrEqual(2 * concurrency);
    expect(s.log.filter((e) => e.at >= pauseEnds).length).toBeGreaterThan(10);
  });

  it('a worker killed with SIGKILL mid-run: another takes over, every workspace lands once, BigQuery has each row once', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 12 }], latencyMs: 60 });
    const bq: FakeBigQuery = await startFakeBigQuery();
    closers.push(() => bq.close());
    const dir = tempDir();
    const { path, env, config, client } = setup(s, dir, {
      sinks: { fs: { dir }, bigquery: { projectId: 'p', dataset: 'vis', apiEndpoint: bq.url } },
    });
    const a = await spawnWorker(path, env, 3);
    const { runId } = await enqueueRun(client.queues, client.ledger, config, {
      kind: 'sync',
      account: 'acme',
    });
    await waitForRunState(client, runId, (r) => r.workspaces_done >= 3, { what: 'to finish 3 workspaces' });
    a.child.kill('SIGKILL');
    expect((await a.exited).signal).toBe('SIGKILL');
    const stateAtKill = (await client.ledger.get(runId))!;
    expect(isFinishedStatus(stateAtKill.status)).toBe(false);

    await spawnWorker(path, env, 3);
    const run = await finishedRun(client, runId);
    expect(run.status).toBe('succeeded');
    const m = (await readManifest(new FsObjectStore(dir), 'acme', runId))!;
    expect(m.workspaces.filter((w) => w.status === 'succeeded')).toHaveLength(12);
    // One file per call: the keys are deterministic, so a redone call rewrote its file.
    expect(listFiles(dir).filter((f) => f.startsWith('raw/'))).toHaveLength(2 + 12 * 7);
    // One load job per table, and exactly the curated rows: nothing appended twice.
    const loaded = bq.jobs.filter((j) => j.outcome === 'created');
    expect(loaded).toHaveLength(m.loads.length);
    expect(bq.rows('p', 'vis', 'visibility_daily')).toHaveLength(12 * 3);
    for (const t of TABLES) {
      const rows = m.files
        .filter((f) => f.key.startsWith(`tables/${t.name}/`))
        .reduce((n, f) => n + (f.rows ?? 0), 0);
      expect(bq.rows('p', 'vis', t.name), t.name).toHaveLength(rows);
    }
  });

  it('SIGTERM: past its grace the worker stops without waiting for its jobs, and another takes them over', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 12 }], latencyMs: 500 });
    const dir = tempDir();
    const { path, env, config, client } = setup(s, dir, { top: { shutdownGraceSeconds: 0.2 } });
    // One slot, 12 workspaces (jobs of 8 and 4) and a slow upstream: the run's second workspace job
    // starts once the first has ended (its calls counted), and its calls (seven rounds of 500 ms)
    // take seconds more than the 0.2 s of grace and the shutdown.
    const a = await spawnWorker(path, env, 1);
    const { runId } = await enqueueRun(client.queues, client.ledger, config, {
      kind: 'sync',
      account: 'acme',
    });
    await waitForRunState(client, runId, (r) => r.workspaces_total !== undefined && r.calls >= 4, {
      what: 'to make its first workspace calls',
    });
    a.child.kill('SIGTERM');
    const exit = await a.exited;
    expect(exit.code).toBe(0);
    // It did not wait for its jobs (a workspace job needs seconds more than the 0.2 s of grace): the
    // run is open and a workspace job neither completed nor failed, left for another worker.
    expect(isFinishedStatus((await client.ledger.get(runId))!.status)).toBe(false);
    const queue = client.queues.for('acme');
    const workspaceJobs = async () =>
      (await Promise.all([0, 1, 2, 3, 4, 5].map((i) => queue.getJob(jobIds.workspace(runId, i))))).filter(
        (j) => j !== undefined,
      );
    const states = await Promise.all((await workspaceJobs()).map((j) => j.getState()));
    expect(states.filter((st) => st !== 'completed' && st !== 'failed').length).toBeGreaterThan(0);

    await spawnWorker(path, env, 2);
    const run = await finishedRun(client, runId);
    expect(run.status).toBe('succeeded');
    expect(run.workspaces_done).toBe(12);
    expect(run.workspaces_failed).toBe(0);
    // Taken over once its lock lapsed: BullMQ counts the job as stalled, not failed.
    expect(Math.max(...(await workspaceJobs()).map((j) => j.stalledCounter))).toBeGreaterThan(0);
  });
});
