// A real `visync run --once` process killed with SIGKILL at four points (after some raw files,
// during curate, between two load jobs, just before the manifest). The next `run --once` completes
// the crashed run under its own id before it starts a new one; afterwards the sink and BigQuery hold
// what a clean run holds: every row once, curated files byte for byte what the raw landing gives,
// and a sync_runs row for each run whose newest recording is the completed run's. Completing a
// crashed run is a replay of what landed (src/run/inline/interrupted.ts calls src/run/replay.ts):
// `replayRun` of a copy of the crashed run's landing gives the same tables and the same manifest.
// The kill comes from the test hook in src/run/inline/crash-points.ts (VISYNC_TEST_CRASH_AT).
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { type Manifest, readManifest } from '../src/records/manifest.js';
import { replayRun } from '../src/run/replay.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { type FakeBigQuery, startFakeBigQuery } from './fakes/bigquery-server.js';
import { runVisync } from './helpers/cli-process.js';
import {
  configYaml,
  listFiles,
  memoryLogger,
  readBytes,
  sim,
  tempDir,
  visyncCli,
} from './helpers/harness.js';
import { writeConfig } from './helpers/worker-process.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
  for (const k of Object.keys(process.env)) if (k.startsWith('SIM_')) delete process.env[k];
});

const POINTS = ['raw:5', 'curate', 'between-loads', 'manifest'] as const;

/** Rows of BigQuery table `table` that a run loaded. */
const rowsOfRun = (bq: FakeBigQuery, table: string, runId: string) =>
  bq.table('p', 'vis', table) ? bq.rows('p', 'vis', table).filter((r) => r.run_id === runId).length : 0;

/** What a run's manifest says of it, apart from when it was recorded and loaded (times, job ids). */
function outcomeOf(m: Manifest) {
  return {
    run_id: m.run_id,
    kind: m.kind,
    status: m.status,
    started_at: m.started_at,
    run_date: m.run_date,
    window: m.window,
    error: m.error,
    error_code: m.error_code,
    workspaces: m.workspaces,
    requests: m.requests,
    // The sync_runs part is the run's record, written when it is recorded.
    files: m.files.filter((f) => !f.key.startsWith('tables/sync_runs/')),
    interrupted: m.interrupted?.replace(/ at \S+ /, ' at T '),
  };
}

describe('run --once killed with SIGKILL', () => {
  it('at each crash point, the next run --once completes the crashed run: each row once, identical curated bytes', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    const cases = await Promise.all(
      POINTS.map(async (point) => {
        const bq = await startFakeBigQuery();
        closers.push(() => bq.close());
        const dir = tempDir();
        const { yaml, env } = configYaml(s, dir, {
          sinks: { fs: { dir }, bigquery: { projectId: 'p', dataset: 'vis', apiEndpoint: bq.url } },
        });
        const path = writeConfig(dir, yaml);
        const crashed = await runVisync(['--config', path, 'run', '--once', '--log-level', 'silent'], {
          ...env,
          VISYNC_TEST_CRASH_AT: point,
        });
        return { point, bq, dir, path, env, crashed };
      }),
    );

    for (const { point, bq, dir, path, env, crashed } of cases) {
      expect(crashed.code, `${point}: ${crashed.stderr}`).toBeNull();
      const files = listFiles(dir);
      // No manifest: only the run's lease and plan are under runs/.
      expect(
        files.some((f) => f.startsWith('runs/') && f.endsWith('/manifest.json')),
        point,
      ).toBe(false);
      const crashedRun = /^raw\/me\/account=acme\/dt=[^/]+\/run=([^/]+)\//.exec(
        files.find((f) => f.startsWith('raw/me/'))!,
      )![1]!;

      // The crashed run's landing as it was left (raw files, its plan and lease), in a store of its
      // own: replayed there below, it must give what the completion gives.
      const clean = tempDir();
      for (const f of files.filter((f) => f.includes(`/run=${crashedRun}/`))) {
        mkdirSync(join(clean, f, '..'), { recursive: true });
        cpSync(join(dir, f), join(clean, f));
      }

      Object.assign(process.env, env);
      const c = await visyncCli(path, ['run', '--once', '--log-level', 'silent']);
      expect(c.code, point).toBe(0);
      // Killed after 5 raw files, neither workspace has all of its planned calls: both fail.
      const status = point === 'raw:5' ? 'failed' : 'partial';
      expect(c.out[0], point).toMatch(
        new RegExp(`^acme: completed interrupted run: ${status} \\| run ${crashedRun} \\|`),
      );
      const newRun = /\| run (\S+) \|/.exec(c.out[1]!)![1]!;
      expect(newRun).not.toBe(crashedRun);

      const store = new FsObjectStore(dir);
      const completed = (await readManifest(store, 'acme', crashedRun))!;
      expect(completed.interrupted, point).toMatch(/stopped before writing its manifest/);
      expect(
        completed.loads.every((l) => l.status === 'succeeded'),
        point,
      ).toBe(true);

      // A replay of the crashed run's landing, in its own store, gives the same bytes and manifest.
      const replayed = await replayRun({
        store: new FsObjectStore(clean),
        runId: crashedRun,
        logger: memoryLogger('silent').logger,
      });
      expect(outcomeOf(replayed), point).toEqual(outcomeOf(completed));
      // The sync_runs part is the run's record, not curated from raw: its times differ by design.
      const curatedOf = (d: string) =>
        listFiles(d).filter(
          (f) =>
            f.startsWith('tables/') &&
            !f.startsWith('tables/sync_runs/') &&
            f.includes(`/run=${crashedRun}/`),
        );
      expect(curatedOf(dir), point).toEqual(curatedOf(clean));
      expect(curatedOf(dir).length).toBeGreaterThan(0);
      for (const f of curatedOf(dir))
        expect(readBytes(dir, f).equals(readBytes(clean, f)), `${point}: ${f}`).toBe(true);

      // BigQuery holds each curated row of both runs once: the completed loads were found by their
      // job ids (409), never appended a second time.
      const fresh = (await readManifest(store, 'acme', newRun))!;
      expect(fresh.status).toBe('succeeded');
      // Killed just before its manifest, the crashed run had loaded its own sync_runs row already;
      // its completion loads a newer one (a new job): per run, the newest recording is the one to read.
      const earlierRecordings = point === 'manifest' ? 1 : 0;
      const recordings = (runId: string) =>
        bq
          .rows('p', 'vis', 'sync_runs')
          .filter((r) => r.run_id === runId)
          .sort((a, b) => ((a.recorded_at as string) < (b.recorded_at as string) ? -1 : 1));
      const partRow = (m: typeof completed) => {
        const part = m.files.find((f) => f.key.startsWith('tables/sync_runs/'))!;
        return JSON.parse(gunzipSync(readBytes(dir, part.key)).toString('utf8'));
      };
      expect(recordings(crashedRun), point).toHaveLength(1 + earlierRecordings);
      const newest = recordings(crashedRun).at(-1)!;
      expect(newest.status, point).toBe(status);
      expect(Date.parse(newest.recorded_at as string), point).toBe(
        Date.parse(partRow(completed).recorded_at),
      );
      expect(recordings(newRun), point).toHaveLength(1);
      expect(recordings(newRun)[0], point).toMatchObject({ status: 'succeeded' });
      for (const m of [completed, fresh]) {
        for (const l of m.loads) {
          if (l.table === 'sync_runs') continue;
          const curatedRows = m.files
            .filter((f) => f.key.startsWith(`tables/${l.table}/`))
            .reduce((n, f) => n + (f.rows ?? 0), 0);
          expect(rowsOfRun(bq, l.table, m.run_id), `${point}: ${m.run_id} ${l.table}`).toBe(curatedRows);
        }
      }
      const created = bq.jobs.filter((j) => j.outcome === 'created');
      expect(new Set(created.map((j) => j.jobId)).size, point).toBe(created.length);
      expect(created, point).toHaveLength(completed.loads.length + fresh.loads.length + earlierRecordings);
    }
  });
});
