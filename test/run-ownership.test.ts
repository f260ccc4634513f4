// Who completes a run that has no manifest yet. A run still working looks exactly like a crashed
// one (raw files, no manifest): only its lease tells them apart (src/records/run-lease.ts). These
// tests run real `visync run --once` processes against the simulator and the BigQuery fake: one
// held still mid-extraction by a proxy while a second runs, one killed with SIGKILL whose lease
// says it belongs to another machine, one whose manifest could not be written.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { describe, expect, inject, it } from 'vitest';
import { RunLedger } from '../jobs/ledger.js';
import { LedgerRecorder } from '../jobs/ledger-recorder.js';
import { RedisLeaseSignal } from '../jobs/redis-run-lease.js';
import { summaryLine } from '../src/cli/run-lines.js';
import { type Manifest, readManifest } from '../src/records/manifest.js';
import { readPlannedRun } from '../src/records/planned-run.js';
import { logicalRunId, newRunId } from '../src/records/run-id.js';
import { type LeaseSignal, type RunLease, readRunLease, takeRunLease } from '../src/records/run-lease.js';
import { runInline } from '../src/run/inline/run-inline.js';
import { lastInterruptedRun } from '../src/run/interrupted.js';
import { replayRun } from '../src/run/replay.js';
import { createRunLoader } from '../src/run/warehouse.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { manifestKey, rawKey, runLeaseKey } from '../src/sinks/layout.js';
import type { PutOptions } from '../src/sinks/object-store.js';
import { processGone } from '../src/util/process-owner.js';
import type { FakeBigQuery } from './fakes/bigquery-server.js';
import { runVisync, startVisync } from './helpers/cli-process.js';
import { gateProxy } from './helpers/gate-proxy.js';
import {
  type ConfigOverrides,
  configFor,
  configYaml,
  fakeBigQuery,
  listFiles,
  memoryLogger,
  sim,
  tempDir,
} from './helpers/harness.js';
import { waitFor } from './helpers/wait-for.js';
import { writeConfig } from './helpers/worker-process.js';

const bigquery = (bq: FakeBigQuery) => ({ projectId: 'p', dataset: 'vis', apiEndpoint: bq.url });
const runIdOf = (summary: string) => /\| run (\S+) \|/.exec(summary)![1]!;

/** `visync run --once` as a process, with a config of its own written for `dir`'s data. */
function runOnceArgs(configDir: string, yaml: string): string[] {
  return ['--config', writeConfig(configDir, yaml), 'run', '--once', '--log-level', 'silent'];
}

/** Each table the run loaded holds the run's curated rows once in BigQuery, and one sync_runs row. */
function expectLoadedOnce(bq: FakeBigQuery, m: Manifest): void {
  const rowsOfRun = (table: string) => bq.rows('p', 'vis', table).filter((r) => r.run_id === m.run_id).length;
  expect(m.loads.length, m.run_id).toBeGreaterThan(3);
  for (const l of m.loads) {
    const curated = m.files
      .filter((f) => f.key.startsWith(`tables/${l.table}/`))
      .reduce((n, f) => n + (f.rows ?? 0), 0);
    expect(rowsOfRun(l.table), `${m.run_id} ${l.table}`).toBe(curated);
  }
  expect(rowsOfRun('sync_runs'), m.run_id).toBe(1);
}

describe('a run --once still working is not taken for a crashed one', () => {
  it.each([
    { redis: 'without Redis', withRedis: false },
    { redis: 'with Redis', withRedis: true },
  ])(
    '$redis: a second run --once of the account while the first waits on the API leaves the first alone; each run loaded once',
    async ({ withRedis }) => {
      const s = await sim({ accounts: [{ name: 'acme', workspaces: 3 }] });
      const bq = await fakeBigQuery();
      const dir = tempDir();
      const sinks = { fs: { dir }, bigquery: bigquery(bq) };
      const top = withRedis
        ? { redis: { url: inject('redisUrl'), prefix: `own-${randomUUID().slice(0, 8)}` } }
        : {};
      // The first run stands still once every workspace asks for its prompts: half of it has landed.
      const gate = await gateProxy(s.url, (path) => path.includes('/prompts'));
      const first = configYaml(s, dir, { sinks, top, accounts: { acme: { baseUrl: gate.url } } });
      const second = configYaml(s, dir, { sinks, top });
      const a = startVisync(runOnceArgs(tempDir(), first.yaml), first.env);
      await waitFor(() => gate.held() === 3, { what: 'the first run to wait on its prompts calls' });
      // `visync replay` of the working run is refused too: it would load half of it under its job ids.
      const working = /\/run=([^/]+)\//.exec(listFiles(dir).find((f) => f.startsWith('raw/me/'))!)![1]!;
      await expect(
        replayRun({ store: new FsObjectStore(dir), runId: working, logger: memoryLogger('silent').logger }),
      ).rejects.toThrow(new RegExp(`run ${working} is still running .*: replay it once it has ended`));

      const b = await runVisync(runOnceArgs(tempDir(), second.yaml), second.env);
      expect(b.code, b.stderr).toBe(0);
      expect(b.stdout).not.toMatch(/completed interrupted run/);
      gate.open();
      const done = await a.exited;
      expect(done.code, done.stderr).toBe(0);

      const store = new FsObjectStore(dir);
      const runs = [runIdOf(done.stdout), runIdOf(b.stdout)];
      expect(new Set(runs).size).toBe(2);
      for (const id of runs) {
        const m = (await readManifest(store, 'acme', id))!;
        expect(m.status, id).toBe('succeeded');
        expect(m.interrupted).toBeUndefined();
        expectLoadedOnce(bq, m);
        // A finished run leaves no lease behind; its plan stays as the record of what it set out to do.
        expect(await readRunLease(store, { account: m.account, runId: m.run_id })).toBeUndefined();
      }
    },
  );

  it('a run killed with SIGKILL on another machine is completed only once its lease expired: original start, every workspace lacking a planned call failed, its calls counted', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    const bq = await fakeBigQuery();
    const dir = tempDir();
    const { yaml, env } = configYaml(s, dir, { sinks: { fs: { dir }, bigquery: bigquery(bq) } });
    const args = runOnceArgs(tempDir(), yaml);
    // /me, /brands and three workspace calls landed: no workspace has all of its calls.
    const crashed = await runVisync(args, { ...env, VISYNC_TEST_CRASH_AT: 'raw:5' });
    expect(crashed.code).toBeNull();
    const store = new FsObjectStore(dir);
    const me = listFiles(dir).find((f) => f.startsWith('raw/me/'))!;
    const run = {
      account: 'acme',
      runId: /\/run=([^/]+)\//.exec(me)![1]!,
      runDate: /dt=([^/]+)/.exec(me)![1]!,
    };
    const lease = (await readRunLease(store, run))!;
    const plan = (await readPlannedRun(store, run))!;
    expect(plan.workspaces).toHaveLength(2);

    // Seen from here, the owner is a process of another machine: only its lease's expiry tells.
    const leasePath = join(dir, runLeaseKey('acme', run.runId));
    const elsewhere = (expiresIn: number): RunLease => ({
      ...lease,
      holder: { ...lease.holder, host: `not-${lease.holder.host}` },
      expires_at: new Date(Date.now() + expiresIn).toISOString(),
    });
    writeFileSync(leasePath, JSON.stringify(elsewhere(3_600_000)));
    const meanwhile = await runVisync(args, env);
    expect(meanwhile.code, meanwhile.stderr).toBe(0);
    expect(meanwhile.stdout).not.toMatch(/completed interrupted run/);
    expect(await readManifest(store, 'acme', run.runId)).toBeUndefined();

    writeFileSync(leasePath, JSON.stringify(elsewhere(-1000)));
    const after = await runVisync(args, env);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toMatch(
      new RegExp(`^acme: completed interrupted run: failed \\| run ${run.runId} \\|`),
    );
    const m = (await readManifest(store, 'acme', run.runId))!;
    expect(m.started_at).toBe(plan.started_at);
    expect(m.window).toEqual(plan.window);
    expect(m.workspaces.map((w) => w.brand_id).sort()).toEqual([...plan.workspaces!].sort());
    for (const w of m.workspaces) {
      expect(w.status, w.brand_id).toBe('failed');
      expect(w.error).toMatch(/^the run stopped before .+ landed$/);
    }
    expect(m.requests.calls).toBe(5);
    expectLoadedOnce(bq, m);
  });

  it('a run of the queue (no lease) is never completed by run --once; one of an older run --once (no lease) only once its lease time has passed', async () => {
    const store = new FsObjectStore(tempDir());
    const land = async (runId: string) => {
      await store.put(rawKey({ endpoint: 'me', account: 'acme', runDate: '2026-11-26', runId }), '{}', {
        contentType: 'application/json',
      });
    };
    const now = Date.parse('2026-11-26T12:00:00Z');
    await land(newRunId('sync', new Date(now - 3_600_000)));
    expect(await lastInterruptedRun(store, 'acme', { ttlMs: 30_000, now })).toBeUndefined();
    await land('20261126T115950Z-sync-1dcd54');
    expect(await lastInterruptedRun(store, 'acme', { ttlMs: 30_000, now })).toBeUndefined();
    await land('20261126T105950Z-sync-3fa2c1');
    expect((await lastInterruptedRun(store, 'acme', { ttlMs: 30_000, now }))?.runId).toBe(
      '20261126T105950Z-sync-3fa2c1',
    );
  });
});

describe('the owner of a lease', () => {
  it('is gone once its process exited, also while it is a zombie nobody reaped', async () => {
    // The child ends after its parent has exec'd into `sleep 10`, which never reaps it (a child that
    // ended while the shell still ran could be reaped by the shell, and no zombie would ever show).
    const parent = spawn('sh', ['-c', 'sleep 1 & echo $!; exec sleep 10'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      const [line] = (await once(parent.stdout!, 'data')) as [Buffer];
      const pid = Number(line.toString().trim());
      await waitFor(() => readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z'), {
        what: `process ${pid} to be a zombie`,
      });
      expect(processGone(pid)).toBe(true);
      expect(processGone(parent.pid!)).toBe(false);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});

describe('run ids', () => {
  it('one shape for every kind and source: the run date, the kind, hex; fresh ids of a date sort by start time', () => {
    const SHAPE = /^\d{8}-(nightly|sync|backfill)-([0-9a-f]{8}|[0-9a-f]{12})$/;
    expect(logicalRunId('sync', 'acme', '2026-11-26')).toMatch(SHAPE);
    const at = (t: string) => new Date(`2026-11-26T${t}Z`);
    // `enqueue --force` and `run --once` both take fresh ids.
    const fresh = ['00:00:00', '00:00:01', '09:59:59', '11:33:07', '23:59:59'].map((t) =>
      newRunId('sync', at(t)),
    );
    for (const id of fresh) expect(id).toMatch(SHAPE);
    expect(fresh.every((id) => id.startsWith('20261126-sync-'))).toBe(true);
    expect([...fresh].reverse().sort()).toEqual(fresh);
    // A past night run now is named by its date.
    expect(newRunId('nightly', at('11:33:07'), '2026-11-20')).toMatch(/^20261120-nightly-/);
  });
});

describe('completing an interrupted run', () => {
  it('with Redis: the ledger entry the crashed run left running ends with the completed manifest', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    const dir = tempDir();
    const prefix = `own-${randomUUID().slice(0, 8)}`;
    const o: ConfigOverrides = { top: { redis: { url: inject('redisUrl'), prefix } } };
    const { yaml, env } = configYaml(s, dir, o);
    const args = runOnceArgs(tempDir(), yaml);
    expect((await runVisync(args, { ...env, VISYNC_TEST_CRASH_AT: 'raw:5' })).code).toBeNull();
    const me = listFiles(dir).find((f) => f.startsWith('raw/me/'))!;
    const runId = /\/run=([^/]+)\//.exec(me)![1]!;
    const redis = new Redis(inject('redisUrl'));
    try {
      const ledger = new RunLedger(redis, prefix);
      expect((await ledger.get(runId))?.status).toBe('running');
      const next = await runVisync(args, env);
      expect(next.stdout).toMatch(new RegExp(`completed interrupted run: \\w+ \\| run ${runId} \\|`));
      const entry = (await ledger.get(runId))!;
      expect(entry.status).toBe('failed');
      expect(entry.finished_at).toBeDefined();
    } finally {
      redis.disconnect();
    }
  });

  it('two run --once completing one crashed run at once (Redis configured): one completes it, the other leaves it; its rows load once, one sync_runs row', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    const bq = await fakeBigQuery();
    const dir = tempDir();
    const prefix = `own-${randomUUID().slice(0, 8)}`;
    const o: ConfigOverrides = {
      sinks: { fs: { dir }, bigquery: bigquery(bq) },
      top: { redis: { url: inject('redisUrl'), prefix } },
    };
    const { yaml, env } = configYaml(s, dir, o);
    expect(
      (await runVisync(runOnceArgs(tempDir(), yaml), { ...env, VISYNC_TEST_CRASH_AT: 'curate' })).code,
    ).toBeNull();
    const redis = new Redis(inject('redisUrl'));
    try {
      const config = configFor(s, dir, o);
      const both = await Promise.all(
        [1, 2].map(async () =>
          runInline({
            config,
            store: new FsObjectStore(dir),
            logger: memoryLogger('silent').logger,
            loader: (await createRunLoader(config.sinks))!,
            leaseSignal: new RedisLeaseSignal(redis, prefix),
          }),
        ),
      );
      const completed = both.flatMap((r) => r.completed);
      expect(completed).toHaveLength(1);
      expectLoadedOnce(bq, completed[0]!);
      for (const r of both) expectLoadedOnce(bq, r.manifests[0]!);
    } finally {
      redis.disconnect();
    }
  });

  it.each([
    ['the lease', false],
    ['the ledger (Redis), the lease being unwritable too', true],
  ])(
    "a run whose manifest could not be written says so, not a manifest's path; its completion keeps the cause, from %s",
    async (_, withRedis) => {
      const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
      const dir = tempDir();
      const prefix = `own-${randomUUID().slice(0, 8)}`;
      const config = configFor(
        s,
        dir,
        withRedis ? { top: { redis: { url: inject('redisUrl'), prefix } } } : {},
      );
      const fs = new FsObjectStore(dir);
      // The disk fills up after the run started: its manifest cannot be written, nor (with Redis
      // here) the lease's last word.
      let leases = 0;
      class FullDisk extends FsObjectStore {
        override put(k: string, body: Uint8Array | string, options: PutOptions) {
          if (k.endsWith('/manifest.json') || (withRedis && k.endsWith('/lease.json') && ++leases > 1))
            return Promise.reject(new Error(`cannot write ${k}: ENOSPC: no space left on device, write`));
          return super.put(k, body, options);
        }
      }
      const full = new FullDisk(dir);
      const redis = new Redis(inject('redisUrl'));
      const recorder = withRedis ? new LedgerRecorder(new RunLedger(redis, prefix)) : undefined;
      try {
        const logger = memoryLogger('silent').logger;
        const stopped = await runInline({ config, store: full, logger, recorder });
        const m = stopped.manifests[0]!;
        expect(stopped.unrecorded.has(m.run_id)).toBe(true);
        expect(m.status).toBe('failed');
        expect(summaryLine(m, undefined)).toMatch(/\| manifest not written$/);
        expect(listFiles(dir)).not.toContain(manifestKey('acme', m.run_id));

        // Its process has exited since (this test runs it in its own process): no pid has this number.
        const leasePath = join(dir, runLeaseKey('acme', m.run_id));
        const lease = JSON.parse(readFileSync(leasePath, 'utf8')) as RunLease;
        writeFileSync(leasePath, JSON.stringify({ ...lease, holder: { ...lease.holder, pid: 99_999_999 } }));
        const next = await runInline({ config, store: fs, logger, recorder });
        const completed = next.completed[0]!;
        expect(completed.run_id).toBe(m.run_id);
        expect(completed.started_at).toBe(m.started_at);
        expect(completed.interrupted).toMatch(/ENOSPC/);
        expect(JSON.parse(readFileSync(join(dir, manifestKey('acme', m.run_id)), 'utf8')).run_id).toBe(
          m.run_id,
        );
      } finally {
        redis.disconnect();
      }
    },
  );
});

describe('a lease taken over while its first owner still runs', () => {
  it('the first owner stops renewing: lease.json stays the new owner’s, also after the first releases', async () => {
    const redis = new Redis(inject('redisUrl'));
    try {
      const prefix = `lease-${randomUUID().slice(0, 8)}`;
      const signal = new RedisLeaseSignal(redis, prefix);
      const store = new FsObjectStore(tempDir());
      const run = { account: 'acme', runId: newRunId('sync'), runDate: '2026-11-26' };
      const base = { store, run, kind: 'sync' as const, startedAt: new Date().toISOString(), signal };
      // The first owner frozen (a process stopped past its TTL): its renewals wait at this gate
      // until the takeover is done, then go on through its real renewal path; the first answered
      // is seen here.
      let wake: () => void = () => {};
      const frozen = new Promise<void>((r) => {
        wake = r;
      });
      let renewed: (ok: boolean) => void = () => {};
      const renewalAfterTakeover = new Promise<boolean>((r) => {
        renewed = r;
      });
      const watched: LeaseSignal = {
        claim: (...a) => signal.claim(...a),
        held: (...a) => signal.held(...a),
        release: (...a) => signal.release(...a),
        renew: async (...a) => {
          await frozen;
          const ok = await signal.renew(...a);
          renewed(ok);
          return ok;
        },
      };
      const first = (await takeRunLease({
        ...base,
        signal: watched,
        ttlMs: 300,
        logger: memoryLogger('silent').logger,
      }))!;
      // The first owner's Redis lease lapses (a process frozen past its TTL), then a completer takes over.
      await redis.del(...(await redis.keys(`${prefix}:*`)));
      const previous = await readRunLease(store, run);
      const second = (await takeRunLease({
        ...base,
        ttlMs: 60_000,
        logger: memoryLogger('silent').logger,
        takeover: { previous },
      }))!;
      const owner = (await readRunLease(store, run))!.holder.token;
      expect(owner).not.toBe(previous!.holder.token);
      // The first owner wakes: its renewal (its timer, every ttl/3) is refused, and release() waits
      // for a renewal in flight, so whatever that renewal would write to lease.json is written
      // before the check below.
      wake();
      expect(await renewalAfterTakeover).toBe(false);
      await first.release({ recorded: true });
      expect((await readRunLease(store, run))?.holder.token).toBe(owner);
      await second.release({ recorded: true });
    } finally {
      redis.disconnect();
    }
  });
});
