// Faults after the data landed: BigQuery unreachable or refusing, the sink full. Every run still
// ends with a manifest (partial: what landed stays, each failed table is named with its reason;
// failed only when nothing could be written, naming the path), and in worker mode the ledger
// reaches a terminal state, `enqueue --wait` returns, and a run that failed can be enqueued again.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readManifest } from '../src/records/manifest.js';
import { runInline } from '../src/run/inline/run-inline.js';
import { createRunLoader } from '../src/run/warehouse.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import type { ObjectStore, PutOptions } from '../src/sinks/object-store.js';
import { S3ObjectStore } from '../src/sinks/s3-store.js';
import { HttpError } from './fakes/bigquery-server.js';
import {
  configFile,
  configFor,
  fakeBigQuery,
  memoryLogger,
  runOnceCli,
  sim,
  tempDir,
  visyncCli,
} from './helpers/harness.js';
import { jobsConfigFile, worker } from './helpers/jobs.js';
import { freePort } from './helpers/net.js';

/** The real fs store, except that writes of the keys `full` selects fail as on a full disk. */
class FullDiskStore implements ObjectStore {
  readonly location: string;
  constructor(
    readonly inner: FsObjectStore,
    readonly dir: string,
    public full: (key: string) => boolean,
  ) {
    this.location = inner.location;
  }
  async put(key: string, body: Uint8Array | string, options: PutOptions) {
    if (this.full(key)) {
      throw Object.assign(
        new Error(`cannot write ${join(this.dir, key)}: ENOSPC: no space left on device, write`),
        { code: 'ENOSPC' },
      );
    }
    return this.inner.put(key, body, options);
  }
  get(key: string) {
    return this.inner.get(key);
  }
  list(prefix: string) {
    return this.inner.list(prefix);
  }
  delete(key: string) {
    return this.inner.delete(key);
  }
}

const bigquery = (apiEndpoint: string) => ({ projectId: 'p', dataset: 'vis', apiEndpoint });

/** A run --once of two workspaces loading into the fake BigQuery, on a disk full for the keys `full` selects. */
async function runOnFullDisk(full: (key: string) => boolean) {
  const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
  const bq = await fakeBigQuery();
  const dir = tempDir();
  const config = configFor(s, dir, { sinks: { fs: { dir }, bigquery: bigquery(bq.url) } });
  const result = await runInline({
    config,
    store: new FullDiskStore(new FsObjectStore(dir), dir, full),
    logger: memoryLogger('silent').logger,
    loader: (await createRunLoader(config.sinks))!,
  });
  return { bq, ...result };
}

describe('run --once: load-stage faults end in a manifest', () => {
  it('BigQuery unreachable: a partial manifest naming every table with the reason, files kept', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    const dir = tempDir();
    const closed = `http://127.0.0.1:${await freePort()}`;
    const config = configFor(s, dir, { sinks: { fs: { dir }, bigquery: bigquery(closed) } });
    const log = memoryLogger('info');
    const { manifests, status } = await runInline({
      config,
      store: new FsObjectStore(dir),
      logger: log.logger,
      // The client's own retries of a refused connection take seconds; the outcome is the same.
      loader: (await createRunLoader(config.sinks, { maxRetries: 0 }))!,
    });
    expect(status).toBe('partial');
    const m = (await readManifest(new FsObjectStore(dir), 'acme', manifests[0]!.run_id))!;
    expect(m.status).toBe('partial');
    expect(m.workspaces.every((w) => w.status === 'succeeded')).toBe(true);
    expect(m.loads.length).toBeGreaterThan(3);
    for (const l of m.loads) {
      expect(l.status).toBe('failed');
      expect(l.error).toMatch(/^BigQuery dataset p:vis not ready: .*ECONNREFUSED/);
    }
    expect(m.files.some((f) => f.key.startsWith('tables/'))).toBe(true);
    // One log record for the run's loads, naming the tables (sync_runs is recorded on its own).
    const failures = log.lines.map((l) => JSON.parse(l)).filter((r) => /load/.test(r.msg) && r.error);
    const tables = m.loads.map((l) => l.table).filter((t) => t !== 'sync_runs');
    expect(failures.filter((r) => r.tables)).toEqual([
      expect.objectContaining({ msg: 'load failed', tables, error: m.loads[0]!.error }),
    ]);
    expect(failures.filter((r) => !r.tables).map((r) => r.table)).toEqual(['sync_runs']);
  });

  it('a 403 on the dataset: exit 2, one line naming every table and the 403 once, curated files written', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    const bq = await fakeBigQuery();
    bq.onRequest = (req) => {
      if (req.path.includes('/datasets/vis'))
        throw new HttpError(
          403,
          'accessDenied',
          'Access Denied: Dataset p:vis: Permission bigquery.datasets.get denied',
        );
    };
    const dir = tempDir();
    const c = await runOnceCli(s, dir, [], { sinks: { fs: { dir }, bigquery: bigquery(bq.url) } });
    expect(c.code).toBe(2);
    const runId = /\| run (\S+) \|/.exec(c.out[0]!)![1]!;
    const m = (await readManifest(new FsObjectStore(dir), 'acme', runId))!;
    expect(m.status).toBe('partial');
    expect(m.loads.length).toBeGreaterThan(3);
    expect(m.loads.every((l) => l.status === 'failed' && /Access Denied/.test(l.error ?? ''))).toBe(true);
    expect(m.files.some((f) => f.key.startsWith('tables/'))).toBe(true);
    // One line naming every table, the shared reason once.
    const names = m.loads.map((l) => l.table).join(', ');
    expect(c.err).toEqual([
      `visync: acme: loads failed for ${m.loads.length} tables (${names}): BigQuery dataset p:vis not ready: Access Denied: Dataset p:vis: Permission bigquery.datasets.get denied`,
    ]);
    expect(c.err.join('\n')).not.toMatch(/\n\s+at /);
    expect(bq.jobs).toHaveLength(0);
  });

  it("a full disk under one table's parts: that table fails with ENOSPC and its key, the others load", async () => {
    const { bq, manifests, status } = await runOnFullDisk((k) => k.startsWith('tables/prompts/'));
    expect(status).toBe('partial');
    const m = manifests[0]!;
    const prompts = m.loads.find((l) => l.table === 'prompts');
    expect(prompts?.status).toBe('failed');
    expect(prompts?.error).toMatch(/ENOSPC/);
    expect(prompts?.error).toContain('tables/prompts/');
    const others = m.loads.filter((l) => l.table !== 'prompts');
    expect(others.length).toBeGreaterThan(3);
    expect(others.every((l) => l.status === 'succeeded')).toBe(true);
    expect(bq.rows('p', 'vis', 'prompts')).toHaveLength(0);
    expect(bq.rows('p', 'vis', 'visibility_daily').length).toBeGreaterThan(0);
  });

  it('a full disk when curate starts (latest bundles): partial, every table not loaded with the reason', async () => {
    const { bq, manifests } = await runOnFullDisk((k) => k.startsWith('latest/'));
    const m = manifests[0]!;
    expect(m.status).toBe('partial');
    expect(m.loads.length).toBeGreaterThan(0);
    const tables = m.loads.filter((l) => l.table !== 'sync_runs');
    for (const l of tables) expect(l.error).toMatch(/^not curated: cannot write .*latest\/.*ENOSPC/);
    // Only the run's own record was loaded: its sync_runs row, saying why the rest is missing.
    expect(bq.jobs.map((j) => j.destination)).toEqual(['vis.sync_runs']);
    const [row] = bq.rows('p', 'vis', 'sync_runs');
    expect(row).toMatchObject({ run_id: m.run_id, status: 'partial' });
    expect(row!.tables_failed).toEqual(tables.map((l) => l.table));
  });

  it('nothing can be written: exit 1, one line naming the path', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const dir = tempDir();
    const blocker = join(dir, 'not-a-dir');
    writeFileSync(blocker, 'x');
    const c = await runOnceCli(s, dir, [], { sinks: { fs: { dir: join(blocker, 'data') } } });
    expect(c.code).toBe(1);
    expect(c.err.join('\n')).toContain(join(blocker, 'data'));
    expect(c.err.join('\n')).not.toMatch(/\n\s+at /);
  });
});

describe('run --once: the object store (S3) down', () => {
  it('the run does not start: the summary names no manifest, the one line names the lease it could not write', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const closed = `http://127.0.0.1:${await freePort()}`;
    const c = await visyncCli(
      configFile(s, tempDir(), {
        sinks: {
          s3: { bucket: 'lake', prefix: 'vis/', endpoint: closed, forcePathStyle: true, maxAttempts: 1 },
        },
      }).path,
      ['run', '--log-format', 'json', '--log-level', 'warn'],
    );
    expect(c.code).toBe(1);
    // The summary does not name a manifest that was never written.
    expect(c.out).toEqual([expect.stringMatching(/^acme: failed \| run \S+ \| .* \| manifest not written$/)]);
    const runId = /\| run (\S+) \|/.exec(c.out[0]!)![1]!;
    // The run's lease is its first write: a store that cannot take it stops the run before any API call.
    expect(c.err).toEqual([
      `visync: acme: run not started: its lease could not be taken: s3://lake/vis/runs/account=acme/run=${runId}/lease.json: ${c.err[0]!.split('lease.json: ')[1]}`,
    ]);
    expect(s.log).toHaveLength(0);
    // The account is named once per line, at its start.
    for (const line of [...c.out, ...c.err]) expect(line.match(/(^|\s)acme: /g)).toHaveLength(1);
  });

  it('the log says the store could not be searched for an interrupted run, not that one could not be completed', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const closed = `http://127.0.0.1:${await freePort()}`;
    const config = configFor(s, tempDir(), {
      sinks: {
        s3: { bucket: 'lake', prefix: 'vis/', endpoint: closed, forcePathStyle: true, maxAttempts: 1 },
      },
    });
    const store = new S3ObjectStore(config.sinks.s3!);
    const log = memoryLogger('warn');
    const r = await runInline({ config, store, logger: log.logger });
    await store.close();
    expect(r.status).toBe('failed');
    expect(r.completed).toEqual([]);
    const text = log.lines.join('');
    // There was no interrupted run: nothing may say one could not be completed.
    expect(text).not.toContain('could not complete the interrupted run');
    expect(text).toContain('could not look for an interrupted run');
  });
});

describe('worker mode: load-stage faults end in a terminal ledger state', () => {
  async function setup(sinks: Record<string, unknown>, attempts = 2) {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    const dir = tempDir();
    const { config, path } = jobsConfigFile(s, dir, {
      sinks: { fs: { dir }, ...sinks },
      top: { jobs: { lockSeconds: 2, attempts } },
    });
    const log = memoryLogger('warn');
    const h = await worker(config, 4, log.logger);
    return { s, dir, path, h, log };
  }

  it('BigQuery unreachable: the run ends partial, enqueue --wait exits 2; enqueued again it completes', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const { dir, path, h, log } = await setup({ bigquery: bigquery(closed) });
    // As configured, but without the client's own retries of a refused connection (seconds each).
    const unreachable = await createRunLoader(
      { fs: { dir }, bigquery: { ...bigquery(closed), location: 'US' } },
      { maxRetries: 0 },
    );
    h.context.loaderFor = async () => unreachable;
    const args = ['enqueue', 'sync', '--wait', '--timeout', '40'];
    const c = await visyncCli(path, args);
    expect(c.code).toBe(2);
    expect(c.out.at(-1)).toMatch(/^acme: \S+ partial: .*BigQuery/);
    const runId = c.out[0]!.split(' ').at(-1)!;
    expect((await readManifest(new FsObjectStore(dir), 'acme', runId))?.status).toBe('partial');
    // The batch says once that BigQuery is not ready, naming the tables, not once per table.
    const batchLogs = log.lines.map((l) => JSON.parse(l)).filter((r) => /^batch load/.test(r.msg));
    expect(batchLogs).toEqual([
      expect.objectContaining({ msg: 'batch load failed', tables: expect.arrayContaining(['brands']) }),
    ]);

    // BigQuery is back: the same run enqueued again completes, under the same id and keys.
    const bq = await fakeBigQuery();
    const back = await createRunLoader({ fs: { dir }, bigquery: { ...bigquery(bq.url), location: 'US' } });
    h.context.loaderFor = async () => back;
    const again = await visyncCli(path, args);
    expect(again.code).toBe(0);
    expect(again.out[0]).toBe(`acme: enqueued sync ${runId}`);
    const m = (await readManifest(new FsObjectStore(dir), 'acme', runId))!;
    expect(m.status).toBe('succeeded');
    expect(m.loads.every((l) => l.status === 'succeeded')).toBe(true);
    expect(new Set(bq.jobs.map((j) => j.destination)).size).toBe(m.loads.length);
  });

  it('the manifest cannot be written: the run fails for good naming the path, and can be enqueued again', async () => {
    const { dir, path, h } = await setup({}, 1);
    const full = new FullDiskStore(new FsObjectStore(dir), dir, (k) => k.startsWith('runs/'));
    h.context.storeFor = async () => full;
    const args = ['enqueue', 'sync', '--wait', '--timeout', '40'];
    const c = await visyncCli(path, args);
    expect(c.code).toBe(1);
    expect(c.out.at(-1)).toMatch(/^acme: \S+ failed: .*ENOSPC/);
    expect(c.out.at(-1)).toContain(join(dir, 'runs/account=acme/'));

    full.full = () => false;
    const again = await visyncCli(path, args);
    expect(again.code).toBe(0);
    const runId = c.out[0]!.split(' ').at(-1)!;
    expect(again.out[0]).toBe(`acme: enqueued sync ${runId}`);
    expect((await readManifest(new FsObjectStore(dir), 'acme', runId))?.status).toBe('succeeded');
  });
});
