// Queued runs into BigQuery are loaded in batches across accounts (jobs/load-batches.ts): one load
// job per table per batch, counted on the fake BigQuery server (real client), every run's rows
// once, the batch named in each manifest and sync_runs row; a batch retried after its worker was
// killed loads nothing twice; a failed table makes every run of the batch partial; each dataset
// batches on its own. Real Redis, real workers, the simulator over HTTP.

import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueRun } from '../jobs/enqueue.js';
import { FINISH_QUEUE, finishQueue } from '../jobs/finish-queue.js';
import type { LedgerRun } from '../jobs/ledger.js';
import { LoadBatches, SWEEP_SCHEDULER } from '../jobs/load-batches.js';
import { checkStale } from '../jobs/stale-watch.js';
import type { ConfigError } from '../src/config/config-error.js';
import { parseConfig } from '../src/config/read-config.js';
import type { Config } from '../src/config/schema.js';
import { type Manifest, readManifest } from '../src/records/manifest.js';
import { AWAITING_LOAD_BATCH } from '../src/records/run-state.js';
import { startWorker } from '../src/run/queued/worker.js';
import type { FaultRule } from '../src/simulator/faults.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import type { FakeBigQuery } from './fakes/bigquery-server.js';
import { configFile, fakeBigQuery, memoryLogger, sim, tempDir, visyncCli } from './helpers/harness.js';
import { jobsClient, jobsConfig, jobsConfigFile, until, waitForRun, worker } from './helpers/jobs.js';
import { freePort } from './helpers/net.js';
import { type PrivateCluster, startPrivateCluster } from './helpers/redis-cluster.js';
import { spawnWorker } from './helpers/worker-process.js';

/** An account whose run stays in flight: every workspace call gets a 429 with an hour of Retry-After. */
const PAUSED: FaultRule = {
  account: 'slow',
  endpoint: 'visibility',
  kind: 'status',
  status: 429,
  retryAfter: 3600,
  times: Infinity,
};

interface Setup {
  accounts: { name: string; workspaces: number }[];
  batchRuns?: number;
  /** Accounts with a dataset of their own. */
  datasets?: Record<string, string>;
  faults?: FaultRule[];
  attempts?: number;
}

async function setup(o: Setup) {
  const s = await sim({ accounts: o.accounts, ...(o.faults ? { faults: o.faults } : {}) });
  const bq = await fakeBigQuery();
  const dir = tempDir();
  const { config, path } = jobsConfigFile(s, dir, {
    accounts: Object.fromEntries(
      Object.entries(o.datasets ?? {}).map(([a, dataset]) => [a, { bigquery: { dataset } }]),
    ),
    sinks: { fs: { dir }, bigquery: { projectId: 'p', dataset: 'shared', apiEndpoint: bq.url } },
    top: {
      jobs: { lockSeconds: 2, maxBudgetWaitSeconds: 1, attempts: o.attempts ?? 3 },
      load: { batchRuns: o.batchRuns ?? 500 },
    },
  });
  return { s, bq, dir, config, path };
}

async function enqueue(config: Config, account: string): Promise<string> {
  const c = jobsClient(config);
  return (await enqueueRun(c.queues, c.ledger, config, { kind: 'sync', account })).runId;
}

async function phaseOf(config: Config, runId: string): Promise<string | undefined> {
  const r = (await jobsClient(config).ledger.get(runId)) as { phase?: string } | undefined;
  return r?.phase;
}

const manifestOf = async (dir: string, account: string, runId: string) =>
  (await readManifest(new FsObjectStore(dir), account, runId))!;

/** Load jobs the fake created, per destination `dataset.table`. */
function createdJobs(bq: FakeBigQuery, dataset: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const j of bq.jobs)
    if (j.outcome === 'created' && j.destination?.startsWith(`${dataset}.`))
      out.set(j.destination, [...(out.get(j.destination) ?? []), j.jobId]);
  return out;
}

const tableLoads = (m: Manifest) => m.loads.filter((l) => l.table !== 'sync_runs');

/** Each run's rows of every table it loaded, once: as many rows in BigQuery as its manifest says. */
function expectRowsOnce(bq: FakeBigQuery, dataset: string, manifests: Manifest[]) {
  for (const m of manifests)
    for (const l of tableLoads(m)) {
      const inBq = bq.rows('p', dataset, l.table).filter((r) => r.run_id === m.run_id);
      expect(inBq.length, `${m.run_id} ${l.table}`).toBe(l.rows);
    }
}

describe('load batches (queued runs into BigQuery)', () => {
  it('runs wait, shown in status, until batchRuns are ready; then one load job per table for all of them', async () => {
    const { bq, dir, config, path } = await setup({
      accounts: [
        { name: 'acme', workspaces: 2 },
        { name: 'beta', workspaces: 2 },
        { name: 'gamma', workspaces: 1 },
        { name: 'slow', workspaces: 1 },
      ],
      batchRuns: 3,
      faults: [PAUSED],
    });
    await worker(config);
    // Still extracting for an hour: no batch starts because nothing else is in flight.
    const slow = await enqueue(config, 'slow');
    const first = [await enqueue(config, 'acme'), await enqueue(config, 'beta')];
    await until('acme and beta curated', async () => {
      const phases = await Promise.all(first.map((id) => phaseOf(config, id)));
      return phases.every((p) => p === AWAITING_LOAD_BATCH);
    });
    // Two of three: nothing loaded, no manifest yet; status says what the runs wait for.
    expect(bq.jobs.filter((j) => j.jobType === 'LOAD')).toEqual([]);
    for (const [i, account] of ['acme', 'beta'].entries())
      expect(await readManifest(new FsObjectStore(dir), account, first[i]!)).toBeUndefined();
    const status = await visyncCli(path, ['status']);
    // A line longer than 100 columns (stdout is no terminal) goes on below, indented 4 more.
    for (const l of status.out) expect(l.length).toBeLessThanOrEqual(100);
    expect(
      status.out
        .join('\n')
        .replace(/\n {6}/g, ' ')
        .split('\n'),
    ).toContain(
      `  running: ${first[0]} (sync 3d, running 2/2 workspaces, ${AWAITING_LOAD_BATCH}, ${(await jobsClient(config).ledger.get(first[0]!))!.calls} requests)`,
    );
    // Under the queue counts: the runs that wait and the finish queue (the runs' finish jobs and the
    // load batches), not named by its key; its counts go on below when they pass 100 columns.
    expect(
      status.out
        .join('\n')
        .replace(/\n {4}/g, ' ')
        .split('\n')
        .slice(-2),
    ).toEqual([
      'load batches: 2 runs awaiting a batch',
      expect.stringMatching(
        /^finish queue: waiting \d+, prioritized \d+, active \d+, delayed \d+, waiting-children \d+, completed \d+, failed 0$/,
      ),
    ]);

    const third = await enqueue(config, 'gamma');
    const runs = [...first, third];
    for (const id of runs) expect((await waitForRun(config, id)).status).toBe('succeeded');
    const manifests = await Promise.all(
      ['acme', 'beta', 'gamma'].map((a, i) => manifestOf(dir, a, runs[i]!)),
    );

    // One batch: its id on every load of every run, one job id per table shared by the runs.
    const batchIds = new Set(manifests.flatMap((m) => m.loads.map((l) => l.load_batch_id)));
    expect(batchIds.size).toBe(1);
    const [batchId] = [...batchIds] as [string];
    const tables = new Set(manifests.flatMap((m) => tableLoads(m).map((l) => l.table)));
    expect(tables.size).toBeGreaterThan(5);
    for (const table of [...tables, 'sync_runs']) {
      const ids = new Set(
        manifests.flatMap((m) => m.loads.filter((l) => l.table === table).map((l) => l.job_id)),
      );
      expect(ids.size, table).toBe(1);
      expect([...ids][0]).toContain(batchId.replace(/[^A-Za-z0-9_-]/g, '_'));
    }
    // On the server: exactly one load job per table (sync_runs included), all of them created once.
    const created = createdJobs(bq, 'shared');
    expect([...created.keys()].sort()).toEqual([...tables, 'sync_runs'].map((t) => `shared.${t}`).sort());
    for (const [dest, ids] of created) expect(ids, dest).toHaveLength(1);
    expect(bq.jobs.filter((j) => j.jobType === 'LOAD' && j.outcome !== 'created')).toEqual([]);
    expectRowsOnce(bq, 'shared', manifests);

    // The batch in sync_runs: one row per run, naming it.
    const recorded = bq.rows('p', 'shared', 'sync_runs');
    expect(recorded.map((r) => r.run_id).sort()).toEqual([...runs].sort());
    for (const r of recorded) expect(r).toMatchObject({ status: 'succeeded', load_batch_id: batchId });
    expect((await jobsClient(config).ledger.get(slow))!.status).toBe('running');
    expect(await phaseOf(config, runs[0]!)).toBe(`loaded in batch ${batchId}`);
    // status --json: no run waits now, and the batch's job is among the completed.
    const json = JSON.parse((await visyncCli(path, ['status', '--json'])).out.join('\n'));
    expect(json.load_batches).toMatchObject({ queue_name: FINISH_QUEUE, runs_waiting: 0 });
    expect(json.load_batches.queue.completed).toBeGreaterThanOrEqual(1);
    // The same queue under its own name, and the older field still read by clients beside it.
    expect(json.finish_queue).toEqual({ queue_name: FINISH_QUEUE, queue: json.load_batches.queue });
    expect(FINISH_QUEUE).toBe('{visync-loads}');
  });

  // A measurement too: VISYNC_BATCH_ACCOUNTS=100 VISYNC_BATCH_RUNS=500 (docs/scaling.md quotes it).
  // By default 20 runs in batches of 5: four batches or so, as 40 in batches of 10 made, at half the runs.
  const many = Number(process.env.VISYNC_BATCH_ACCOUNTS ?? 20);
  const batchRuns = Number(process.env.VISYNC_BATCH_RUNS ?? 5);
  it(`${many} accounts' runs at once, batchRuns ${batchRuns}: one job per table per batch, a batch per ${batchRuns} runs or so`, async () => {
    const accounts = Array.from({ length: many }, (_, i) => ({ name: `a${i}`, workspaces: 1 }));
    const { bq, dir, config } = await setup({ accounts, batchRuns });
    await worker(config, 8);
    const runs: string[] = [];
    for (const a of accounts) runs.push(await enqueue(config, a.name));
    const manifests: Manifest[] = [];
    for (const [i, id] of runs.entries()) {
      expect((await waitForRun(config, id, 300_000)).status).toBe('succeeded');
      manifests.push(await manifestOf(dir, `a${i}`, id));
    }
    const batches = new Set(manifests.flatMap((m) => m.loads.map((l) => l.load_batch_id)));
    const created = createdJobs(bq, 'shared');
    console.log(
      `${many} runs, batchRuns ${batchRuns}: ${batches.size} batches; load jobs per table: ${[...new Set([...created.values()].map((ids) => ids.length))].join(', ')}`,
    );
    for (const [dest, ids] of created) expect(ids.length, dest).toBe(batches.size);
    // A batch per batchRuns runs as they get ready, and at most two more at the end (runs
    // finishing together).
    expect(batches.size).toBeLessThanOrEqual(Math.ceil(many / batchRuns) + 2);
    expectRowsOnce(bq, 'shared', manifests);
  });

  it('accounts with datasets of their own batch separately, each in its dataset', async () => {
    const { bq, dir, config } = await setup({
      accounts: [
        { name: 'acme', workspaces: 2 },
        { name: 'beta', workspaces: 1 },
        { name: 'gamma', workspaces: 1 },
      ],
      datasets: { acme: 'client_acme', beta: 'client_beta' },
    });
    await worker(config);
    const runs = { acme: '', beta: '', gamma: '' } as Record<string, string>;
    for (const a of Object.keys(runs)) runs[a] = await enqueue(config, a);
    for (const [a, id] of Object.entries(runs)) {
      expect((await waitForRun(config, id)).status, a).toBe('succeeded');
    }
    const datasetOf: Record<string, string> = { acme: 'client_acme', beta: 'client_beta', gamma: 'shared' };
    const batches = new Set<string>();
    for (const [a, id] of Object.entries(runs)) {
      const m = await manifestOf(dir, a, id);
      const ids = new Set(m.loads.map((l) => l.load_batch_id));
      expect(ids.size, a).toBe(1);
      batches.add([...ids][0]!);
      const dataset = datasetOf[a]!;
      // Each dataset: one job per table of its one run, and only that account's rows.
      const created = createdJobs(bq, dataset);
      expect(created.size).toBe(m.loads.length);
      for (const ids of created.values()) expect(ids).toHaveLength(1);
      expectRowsOnce(bq, dataset, [m]);
      for (const t of [...created.keys()].map((d) => d.split('.')[1]!))
        expect(new Set(bq.rows('p', dataset, t).map((r) => r.account)), t).toEqual(new Set([a]));
    }
    expect(batches.size).toBe(3);
  });

  it('a failed table load: every run of the batch partial with the reason and what to do; replay loads it for one run', async () => {
    const { bq, dir, config, path } = await setup({
      accounts: [
        { name: 'acme', workspaces: 2 },
        { name: 'beta', workspaces: 2 },
        { name: 'slow', workspaces: 1 },
      ],
      batchRuns: 2,
      faults: [PAUSED],
    });
    await worker(config);
    await enqueue(config, 'slow');
    bq.failNextLoad('prompts', 'Error while reading data, error message: simulated failure');
    const runs = [await enqueue(config, 'acme'), await enqueue(config, 'beta')];
    for (const [i, id] of runs.entries()) {
      const r = await waitForRun(config, id);
      expect(r.status).toBe('partial');
      expect(r.error).toContain('prompts: Error while reading data, error message: simulated failure');
      expect(r.error).toContain(`visync replay --run ${id}`);
      const m = await manifestOf(dir, ['acme', 'beta'][i]!, id);
      expect(m.status).toBe('partial');
      expect(m.loads.filter((l) => l.status === 'failed')).toMatchObject([
        {
          table: 'prompts',
          error: expect.stringContaining('simulated failure'),
          load_batch_id: expect.any(String),
        },
      ]);
    }
    expect(bq.rows('p', 'shared', 'prompts')).toEqual([]);
    // The status line says it too, with what to do.
    const st = await visyncCli(path, ['status']);
    expect(st.out.join('\n')).toContain('load of prompts failed: Error while reading data');

    // Replay of one run loads its prompts with a job of its own; the other run still waits for its replay.
    const r = await visyncCli(path, ['replay', '--run', runs[0]!, '--log-level', 'silent']);
    expect(r.code).toBe(0);
    const replayed = await manifestOf(dir, 'acme', runs[0]!);
    expect(replayed.status).toBe('succeeded');
    const prompts = replayed.loads.find((l) => l.table === 'prompts')!;
    expect(prompts).toMatchObject({ status: 'succeeded' });
    expect(prompts.load_batch_id).toBeUndefined();
    expect(bq.rows('p', 'shared', 'prompts').map((x) => x.run_id)).toEqual(
      Array.from({ length: prompts.rows }, () => runs[0]),
    );
    expectRowsOnce(bq, 'shared', [replayed]);
  });

  it('a batch whose worker is killed after some loads is retried with the same runs and job ids: no row twice', async () => {
    const { bq, dir, config, path } = await setup({
      accounts: [
        { name: 'acme', workspaces: 2 },
        { name: 'beta', workspaces: 2 },
      ],
      batchRuns: 2,
    });
    const doomed = await spawnWorker(path, {});
    let uploads = 0;
    bq.onRequest = async (req) => {
      if (!req.path.startsWith('/upload/')) return;
      // The third table's upload arrives, then its worker dies: BigQuery runs the job it was sent.
      if (++uploads === 3) {
        doomed.child.kill('SIGKILL');
        await doomed.exited;
      }
    };
    const runs = [await enqueue(config, 'acme'), await enqueue(config, 'beta')];
    await doomed.exited;
    // Another worker takes the batch over once its lock has lapsed.
    await worker(config);
    for (const id of runs) expect((await waitForRun(config, id, 60_000)).status).toBe('succeeded');
    const manifests = [await manifestOf(dir, 'acme', runs[0]!), await manifestOf(dir, 'beta', runs[1]!)];

    // The job that ran while its worker died was found by its id (409), not run again.
    const loads = bq.jobs.filter((j) => j.jobType === 'LOAD');
    expect(loads.filter((j) => j.outcome === 'duplicate').length).toBeGreaterThan(0);
    for (const [dest, ids] of createdJobs(bq, 'shared')) {
      // One job per table per batch (the runs may have made one batch or two).
      expect(new Set(ids).size, dest).toBe(ids.length);
      const batches = new Set(manifests.flatMap((m) => m.loads.map((l) => l.load_batch_id)));
      expect(ids.length, dest).toBeLessThanOrEqual(batches.size);
    }
    // Every job id a manifest names is one the server created; every row once.
    const createdIds = new Set(loads.filter((j) => j.outcome === 'created').map((j) => j.jobId));
    for (const m of manifests) for (const l of m.loads) expect(createdIds.has(l.job_id), l.table).toBe(true);
    expectRowsOnce(bq, 'shared', manifests);
    expect(
      bq
        .rows('p', 'shared', 'sync_runs')
        .map((r) => r.run_id)
        .sort(),
    ).toEqual([...runs].sort());
  });

  it('a batch that fails for good still ends each run: the reason in the ledger, the others recorded', async () => {
    const { bq, dir, config } = await setup({
      accounts: [
        { name: 'acme', workspaces: 1 },
        { name: 'beta', workspaces: 1 },
        { name: 'slow', workspaces: 1 },
      ],
      batchRuns: 2,
      attempts: 1,
      faults: [PAUSED],
    });
    await worker(config);
    await enqueue(config, 'slow');
    const acmeRun = await enqueue(config, 'acme');
    await until('acme curated', async () => (await phaseOf(config, acmeRun)) === AWAITING_LOAD_BATCH);
    // acme's manifest cannot be written: a file stands where its folder would be.
    mkdirSync(join(dir, 'runs', 'account=acme'), { recursive: true });
    writeFileSync(join(dir, 'runs', 'account=acme', `run=${acmeRun}`), 'in the way');
    const betaRun = await enqueue(config, 'beta');
    const acme = await waitForRun(config, acmeRun);
    expect(acme.status).toBe('failed');
    expect(acme.error).toMatch(/^run not recorded: load batch lb-\S+ failed: /);
    expect(acme.error).toContain(`runs/account=acme/run=${acmeRun}`);
    const beta = await waitForRun(config, betaRun);
    expect(beta.status).toBe('succeeded');
    expect((await manifestOf(dir, 'beta', betaRun)).status).toBe('succeeded');
    expect(bq.rows('p', 'shared', 'sync_runs').map((r) => r.run_id)).toContain(betaRun);
  });

  it('replay refuses a run awaiting its load batch, in one line saying what to do, also when Redis is unreachable; as before without Redis', async () => {
    const { s, bq, dir, config, path } = await setup({
      accounts: [
        { name: 'acme', workspaces: 1 },
        { name: 'slow', workspaces: 1 },
      ],
      batchRuns: 2,
      faults: [PAUSED],
    });
    await worker(config);
    await enqueue(config, 'slow');
    const runId = await enqueue(config, 'acme');
    await until('acme curated', async () => (await phaseOf(config, runId)) === AWAITING_LOAD_BATCH);
    const since = (await jobsClient(config).ledger.get(runId)) as { phase_at?: string } | undefined;

    const refused = await visyncCli(path, ['replay', '--run', runId, '--log-level', 'silent']);
    expect(refused.code).toBe(1);
    expect(refused.out).toEqual([]);
    expect(refused.err).toEqual([
      `visync: run ${runId} is awaiting its load batch (since ${since?.phase_at}), which will load it: replaying it now would load its rows twice. Wait until visync status no longer lists it as running; if it ends partial or failed, visync replay --run ${runId} then loads what the batch did not`,
    ]);
    const nothingDone = async () => {
      // Nothing loaded, nothing written: the run still waits for its batch.
      expect(bq.jobs.filter((j) => j.jobType === 'LOAD')).toEqual([]);
      expect(await readManifest(new FsObjectStore(dir), 'acme', runId)).toBeUndefined();
      expect(await phaseOf(config, runId)).toBe(AWAITING_LOAD_BATCH);
    };
    await nothingDone();

    // Redis configured but not answering: the ledger cannot say whether a batch owns the run, and
    // nothing in the store says no batch does (no manifest yet): refused too, saying what to do.
    const sinks = { fs: { dir }, bigquery: { projectId: 'p', dataset: 'shared', apiEndpoint: bq.url } };
    const down = configFile(s, tempDir(), {
      sinks,
      top: { redis: { url: `redis://127.0.0.1:${await freePort()}` } },
    });
    const unchecked = await visyncCli(down.path, ['replay', '--run', runId, '--log-level', 'silent']);
    expect(unchecked.code).toBe(1);
    expect(unchecked.out).toEqual([]);
    expect(unchecked.err).toHaveLength(1);
    expect(unchecked.err[0]).toMatch(
      new RegExp(
        `^visync: cannot tell whether run ${runId} waits for a load batch \\(Redis at 127\\.0\\.0\\.1:\\d+ is unreachable: connection refused .*\\), and it has no manifest showing it was loaded without one: replaying it now could load its rows twice\\. Start Redis, then visync replay --run ${runId} again$`,
      ),
    );
    await nothingDone();

    // The same store and dataset without redis: replay does as it did before load batches (the run
    // has no manifest yet: it is completed from its raw landing, partial, with jobs of its own).
    const noRedis = configFile(s, tempDir(), { sinks });
    const replayed = await visyncCli(noRedis.path, ['replay', '--run', runId, '--log-level', 'silent']);
    expect(replayed.code).toBe(2);
    expect(replayed.out[0]).toMatch(new RegExp(`^acme: replayed run ${runId}: partial \\|`));
    const m = await manifestOf(dir, 'acme', runId);
    expect(m.loads.length).toBeGreaterThan(0);
    expect(m.loads.every((l) => l.status === 'succeeded' && l.load_batch_id === undefined)).toBe(true);

    // A run --once run says in its manifest that it was loaded without a batch: with Redis down
    // it still replays, saying why in one line.
    const once = await visyncCli(noRedis.path, [
      'run',
      '--once',
      '--account',
      'acme',
      '--log-level',
      'silent',
    ]);
    expect(once.code).toBe(0);
    const onceId = /run (\S+)/.exec(once.out.join('\n'))![1]!;
    const inline = await visyncCli(down.path, ['replay', '--run', onceId, '--log-level', 'silent']);
    expect(inline.code).toBe(0);
    expect(inline.err).toHaveLength(1);
    expect(inline.err[0]).toMatch(
      new RegExp(
        `^visync: could not check whether run ${onceId} waits for a load batch \\(Redis at 127\\.0\\.0\\.1:\\d+ is unreachable: .*\\); its manifest shows it was loaded without one, so it is replayed$`,
      ),
    );
    expect(inline.out[0]).toMatch(new RegExp(`^acme: replayed run ${onceId}: succeeded \\|`));
  });

  it('runs waiting when their dataset changes (a restart) or BigQuery is removed (a reload) end partial, not loaded, saying what to do', async () => {
    const { bq, dir, config } = await setup({
      accounts: [
        { name: 'acme', workspaces: 1 },
        { name: 'beta', workspaces: 1 },
        { name: 'gamma', workspaces: 1 },
        { name: 'slow', workspaces: 1 },
      ],
      batchRuns: 3,
      faults: [PAUSED],
    });
    const first = await startWorker({ config, logger: memoryLogger('silent').logger, concurrency: 4 });
    await enqueue(config, 'slow');
    const [acme, beta] = [await enqueue(config, 'acme'), await enqueue(config, 'beta')];
    await until('acme and beta curated', async () =>
      (await Promise.all([acme, beta].map((id) => phaseOf(config, id)))).every(
        (p) => p === AWAITING_LOAD_BATCH,
      ),
    );
    await first.close(5000);

    // Restarted with beta in a dataset of its own: its run, curated for the shared one, is not
    // loaded anywhere; acme's, in the same batch, loads as before.
    const moved: Config = {
      ...config,
      accounts: config.accounts.map((a) =>
        a.name === 'beta' ? { ...a, bigquery: { dataset: 'beta_own' } } : a,
      ),
    };
    const h = await worker(moved);
    expect((await waitForRun(config, acme)).status).toBe('succeeded');
    const betaRun = await waitForRun(config, beta);
    const movedWhy = `account beta now loads into p.beta_own, not the dataset its run was curated for, so the run is not loaded; visync replay --run ${beta} loads it into p.beta_own`;
    expect(betaRun.status).toBe('partial');
    expect(betaRun.error).toMatch(new RegExp(`^load batch lb-\\S+: ${movedWhy.replace(/[.()]/g, '\\$&')}$`));
    const betaManifest = await manifestOf(dir, 'beta', beta);
    expect(betaManifest.status).toBe('partial');
    expect(betaManifest.loads.length).toBeGreaterThan(1);
    for (const l of betaManifest.loads)
      expect(l, l.table).toMatchObject({ status: 'failed', error: betaRun.error });
    expect(bq.rows('p', 'shared', 'sync_runs').map((r) => r.run_id)).toEqual([acme]);
    expect(bq.jobs.filter((j) => j.jobType === 'LOAD' && !j.destination?.startsWith('shared.'))).toEqual([]);

    // A reload that removes BigQuery while gamma's run waits: its batch ends it the same way.
    const gamma = await enqueue(moved, 'gamma');
    await until('gamma curated', async () => (await phaseOf(config, gamma)) === AWAITING_LOAD_BATCH);
    const loadsBefore = bq.jobs.filter((j) => j.jobType === 'LOAD').length;
    await h.reconfigure({ ...moved, sinks: { fs: config.sinks.fs! } });
    const gammaRun = await waitForRun(config, gamma);
    expect(gammaRun.status).toBe('partial');
    expect(gammaRun.error).toMatch(
      new RegExp(
        `^load batch lb-\\S+: BigQuery is no longer configured for account gamma, so its run is not loaded; once it is configured again, visync replay --run ${gamma} loads the run$`,
      ),
    );
    expect((await manifestOf(dir, 'gamma', gamma)).status).toBe('partial');
    expect(bq.jobs.filter((j) => j.jobType === 'LOAD')).toHaveLength(loadsBefore);
    // No run waits for a batch any more.
    const c = jobsClient(config);
    expect(await new LoadBatches(c.redis, config.redis.prefix).waitingRuns()).toBe(0);
  });

  it('the stale alert leaves an account alone while its run waits for a batch as long as expected', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    // Nothing listens there: checkStale still says which accounts it alerted.
    const webhook = `http://127.0.0.1:${await freePort()}/hook`;
    const config = jobsConfig(s, tempDir(), { top: { alerts: { webhook, staleAfterHours: 30 } } });
    const c = jobsClient(config);
    const at = (iso: string) => () => new Date(iso);
    const watch = { config, redis: c.redis, ledger: c.ledger, logger: memoryLogger('silent').logger };
    const check = (iso: string) =>
      checkStale({ ...watch, now: at(iso), send: { attempts: 1, baseDelayMs: 1 } });
    expect(await check('2026-11-20T00:00:00Z')).toEqual([]);
    // 30 h later its run is curated and has waited 10 minutes for its batch (expected: 2 x 15 + 60).
    await c.ledger.create({ run_id: 'r1', account: 'acme', kind: 'nightly', run_date: '2026-11-21' });
    const waiting = {
      status: 'running',
      started_at: '2026-11-21T05:00:00.000Z',
      phase: AWAITING_LOAD_BATCH,
      phase_at: '2026-11-21T05:50:00.000Z',
    };
    await c.ledger.update('r1', waiting as Partial<LedgerRun>);
    expect(await check('2026-11-21T06:00:00Z')).toEqual([]);
    // Past the expected wait it is news.
    expect(await check('2026-11-21T07:21:00Z')).toEqual(['acme']);
  });

  it('the sweep runs every load.batchMinutes where BigQuery is configured, also after a reload; bad values name the key', async () => {
    const { config, dir } = await setup({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const withoutBq = { ...config, sinks: { fs: config.sinks.fs! } };
    const h = await worker(withoutBq);
    const q = finishQueue(h.context.redis, config.redis.prefix);
    try {
      expect(q.name).toBe(FINISH_QUEUE);
      expect(await q.getJobScheduler(SWEEP_SCHEDULER)).toBeUndefined();
      // A reloaded config adds BigQuery: the sweep is installed, and this worker takes batches.
      await h.reconfigure({ ...config, load: { batchMinutes: 7, batchRuns: 500 } });
      expect((await q.getJobScheduler(SWEEP_SCHEDULER))?.every).toBe(7 * 60_000);
      const runId = await enqueue(config, 'acme');
      expect((await waitForRun(config, runId)).status).toBe('succeeded');
      expect((await manifestOf(dir, 'acme', runId)).loads.every((l) => l.load_batch_id)).toBe(true);
      // Without BigQuery the sweep goes.
      await h.reconfigure(withoutBq);
      expect(await q.getJobScheduler(SWEEP_SCHEDULER)).toBeUndefined();
    } finally {
      await q.close();
    }
    const base =
      'accounts: [{ name: a, apiKey: k1k1k1k1, baseUrl: "https://x.example" }]\nsinks: { fs: {} }\n';
    const issues = (yaml: string) => {
      try {
        parseConfig(yaml, { source: 'c.yaml', env: {} });
      } catch (err) {
        return (err as ConfigError).issues;
      }
      return [];
    };
    expect(issues(`${base}load: { batchMinutes: 0, batchRuns: many }\n`)).toEqual([
      { path: 'load.batchMinutes', message: 'expected a whole number between 1 and 1440' },
      { path: 'load.batchRuns', message: 'expected a whole number between 1 and 10000' },
    ]);
    expect(parseConfig(base, { source: 'c.yaml', env: {} }).load).toEqual({
      batchMinutes: 15,
      batchRuns: 500,
    });
  });
});

describe('load batches on Redis Cluster', () => {
  let cluster: PrivateCluster;
  beforeAll(async () => {
    cluster = await startPrivateCluster();
  }, 60_000);
  afterAll(() => cluster?.stop());

  it('three accounts, one batch: the scripts keep their keys in one slot', async () => {
    const s = await sim({ accounts: ['acme', 'beta', 'gamma'].map((name) => ({ name, workspaces: 1 })) });
    const bq = await fakeBigQuery();
    const dir = tempDir();
    const config = jobsConfig(s, dir, {
      sinks: { fs: { dir }, bigquery: { projectId: 'p', dataset: 'shared', apiEndpoint: bq.url } },
      top: {
        redis: { url: cluster.url, prefix: `c-${randomUUID().slice(0, 8)}`, cluster: true },
        load: { batchRuns: 3 },
      },
    });
    await worker(config);
    const runs = [];
    for (const a of ['acme', 'beta', 'gamma']) runs.push(await enqueue(config, a));
    const manifests = [];
    for (const [i, id] of runs.entries()) {
      expect((await waitForRun(config, id, 60_000)).status).toBe('succeeded');
      manifests.push(await manifestOf(dir, ['acme', 'beta', 'gamma'][i]!, id));
    }
    const batches = new Set(manifests.flatMap((m) => m.loads.map((l) => l.load_batch_id)));
    for (const [dest, ids] of createdJobs(bq, 'shared')) expect(ids.length, dest).toBe(batches.size);
    expectRowsOnce(bq, 'shared', manifests);
  });
});
