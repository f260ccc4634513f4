// An upgrade as an operator does it (issue #41, item 4): the previous release (the newest in
// releases.json, built from its recorded commit by test/helpers/previous-release.ts) runs nights on
// a store and makes October's report; then this release (the built bin of HEAD) takes over the same
// store and config, must refuse nothing, read every old run and report, and extend the store as a
// fresh install would; on the fs store and on S3 (s3rver). A Redis holding the old release's queued
// sync is worked by this release's worker. Every process runs on a clock moved to its night
// (test/setup/moved-clock.mjs), so the dates never depend on today's.
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { VIEWS } from '../src/catalogue/index.js';
import { S3ObjectStore } from '../src/sinks/s3-store.js';
import { compareVersions, packageVersion, parseVersion } from '../src/util/writer.js';
import { NODE22, ROOT } from './helpers/built-bin.js';
import { cleanups } from './helpers/cleanup-stack.js';
import { BIN, type CliRun, startProcess } from './helpers/cli-process.js';
import { duckdbIn } from './helpers/duckdb.js';
import { type ConfigOverrides, configFile, listFiles, sim, tempDir } from './helpers/harness.js';
import { type BuiltRelease, buildRelease } from './helpers/previous-release.js';
import { startS3rver } from './helpers/s3rver.js';
import { waitFor } from './helpers/wait-for.js';
import { spawnWorker } from './helpers/worker-process.js';

const SPEC = { accounts: [{ name: 'acme', workspaces: 2 }], seed: 41 };
/** The old release's nights (the first fetches all of October), then this release's. */
const OLD_NIGHTS = ['2026-10-28', '2026-10-29', '2026-10-30', '2026-10-31'];
const NEW_NIGHTS = ['2026-11-01', '2026-11-30'];
const MARKER = '_visync/store.json';
/** The release upgraded from is older than `version` (what it wrote differs by release). */
const fromBefore = (version: string) =>
  compareVersions(parseVersion(old.version) ?? [0, 0, 0], parseVersion(version) ?? [0, 0, 0]) < 0;
/**
 * Columns that differ between any two installs syncing the same data: run ids, event ids, times of
 * writing and how long things took.
 */
const PER_INSTALL = /(^|_)run(_id)?$|^event_id$|_at$|_ms$|_seconds$/;
const MOVED_CLOCK = join(ROOT, 'test/setup/moved-clock.mjs');
// Bounds for a hang only, ten times a quiet machine's time (about 40 s for the fs case with its fresh
// install of six nights, 20 s on S3): more than the e2e tier's two minutes.
const FS_BOUND_MS = 400_000;
const S3_BOUND_MS = 200_000;

// The wall clock as it really is, whatever this process's Date says (a fake one, or scripts/on-day.mjs).
const dateNow = Date.now.bind(Date);
const realNow = () => dateNow() - Number(process.env.VISYNC_CLOCK_OFFSET_MS ?? 0);

let old: BuiltRelease;
beforeAll(() => {
  old = buildRelease();
  // Measured for docs/development.md: the first build (npm ci and its build), then the cache.
  console.info(`upgrade: release ${old.version} (${old.commit.slice(0, 7)}) ready in ${old.buildMs} ms`);
}, 600_000);

afterAll(() => {
  vi.useRealTimers();
});

type Release = 'old' | 'new';

/** `visync ARGS` of a release on a clock moved to 03:00 UTC of `night`. */
function visync(
  release: Release,
  night: string,
  args: string[],
  env: Record<string, string>,
): Promise<CliRun> {
  const bin = release === 'old' ? old.bin : BIN;
  return startProcess(NODE22, [bin, ...args], { env: { ...env, ...onNight(night) }, guardMs: 90_000 }).exited;
}

/** The environment that moves a Node process's clock to 03:00 UTC of `night`. */
function onNight(night: string): Record<string, string> {
  const imports = (process.env.NODE_OPTIONS ?? '').includes('moved-clock') ? '' : ` --import=${MOVED_CLOCK}`;
  return {
    VISYNC_CLOCK_OFFSET_MS: String(Date.parse(`${night}T03:00:00Z`) - realNow()),
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''}${imports}`.trim(),
  };
}

const ok = (r: CliRun, what: string) => expect(r.code, `${what}:\n${r.stderr}`).toBe(0);

interface Store {
  /** Config overrides naming the store (sinks), with whatever else a night needs. */
  config: ConfigOverrides;
  /** Extra environment of every command (S3's region). */
  env?: Record<string, string>;
}

/** One night: a simulator of that day and `visync run --once` of `release` against it. */
async function night(release: Release, date: string, dir: string, store: Store) {
  const s = await sim({ ...SPEC, today: date });
  const file = configFile(s, dir, { ...store.config, extract: { visibilityDays: 31 } });
  const env = { ...file.env, ...store.env };
  const r = await visync(
    release,
    date,
    ['--config', file.path, 'run', '--once', '--log-level', 'silent'],
    env,
  );
  ok(r, `${release} run --once on ${date}`);
  return { config: file.path, env };
}

/** `runs --json` of a release: every run, newest first. */
async function runs(release: Release, date: string, config: string, env: Record<string, string>) {
  const r = await visync(release, date, ['--config', config, 'runs', '--json', '--limit', '100'], env);
  ok(r, `${release} runs --json`);
  return JSON.parse(r.stdout) as Record<string, unknown>[];
}

/** `events --json` of a release. */
async function events(release: Release, date: string, config: string, env: Record<string, string>) {
  const r = await visync(release, date, ['--config', config, 'events', '--json'], env);
  ok(r, `${release} events --json`);
  return JSON.parse(r.stdout) as Record<string, unknown>[];
}

/** `release`'s `visync report --period PERIOD --format json` on `date` into the store, which must end 0. */
async function report(
  release: Release,
  date: string,
  period: string,
  at: { config: string; env: Record<string, string> },
): Promise<void> {
  const r = await visync(
    release,
    date,
    ['--config', at.config, 'report', '--period', period, '--format', 'json'],
    at.env,
  );
  ok(r, `${release} report --period ${period}`);
}

/** `fields` of `row` only: what an old release printed, read back from the new one's output. */
function pick(row: Record<string, unknown> | undefined, fields: string[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((f) => [f, row?.[f]]));
}

/** Each old run as the new release lists it: the same value in every field the old release printed. */
function expectSameRuns(oldRuns: Record<string, unknown>[], now: Record<string, unknown>[]): void {
  for (const o of oldRuns) {
    const n = now.find((r) => r.run_id === o.run_id);
    expect(pick(n, Object.keys(o)), String(o.run_id)).toEqual(o);
  }
}

/** What an event says, without the ids and times that differ between two installs. */
const meaning = (e: Record<string, unknown>) =>
  JSON.stringify(
    pick(e, ['brand_id', 'snapshot_date', 'event_type', 'key', 'before', 'after', 'magnitude', 'severity']),
  );

/** The report files of the store's reports/ folder (fs) with their bytes. */
function reportFiles(data: string): Record<string, string> {
  return Object.fromEntries(
    listFiles(join(data, 'reports')).map((f) => [f, readFileSync(join(data, 'reports', f), 'utf8')]),
  );
}

/**
 * Every `_latest` and change view (src/catalogue/views.ts) `visync export duckdb` declares over the store at `root`, its rows sorted, without the
 * columns that name a run or a time of writing (they differ between any two installs).
 */
async function duckdbViews(date: string, config: string, env: Record<string, string>, root: string) {
  const r = await visync('new', date, ['--config', config, 'export', 'duckdb', '--root', root], env);
  ok(r, 'export duckdb');
  const db = await duckdbIn(root);
  await db.run(r.stdout);
  const declared = (await db.runAndReadAll('SELECT view_name FROM duckdb_views() WHERE NOT internal'))
    .getRowObjectsJson()
    .map((v) => String(v.view_name));
  const out: Record<string, string[]> = {};
  for (const view of declared.filter((v) => VIEWS.some((d) => d.name === v))) {
    const rows = (await db.runAndReadAll(`SELECT * FROM "${view}"`)).getRowObjectsJson();
    out[view] = rows
      .map((row) =>
        JSON.stringify(Object.fromEntries(Object.entries(row).filter(([k]) => !PER_INSTALL.test(k)))),
      )
      .sort();
  }
  return out;
}

/** A fresh install: this release alone on every night, for what the upgraded store must equal. */
async function freshInstall(nights: string[]) {
  const dir = tempDir();
  const store: Store = { config: { sinks: { fs: { dir: join(dir, 'data') } } } };
  let last = { config: '', env: {} as Record<string, string> };
  for (const d of nights) last = await night('new', d, dir, store);
  return { dir, ...last };
}

describe('the previous release', () => {
  it('is refused in one line saying how to fetch it when this clone does not have its commit', () => {
    const missing = { version: '0.0.1', commit: 'f'.repeat(40) };
    expect(() => buildRelease(missing)).toThrow(
      new RegExp(
        `^the upgrade test needs release 0\\.0\\.1's commit ${missing.commit}, which this (shallow )?clone ` +
          'does not have: run `git fetch --unshallow`',
      ),
    );
  });
});

describe('upgrading from the previous release on an fs store', () => {
  it(
    'this release refuses nothing, reads the old runs, events and reports, and extends the store as a fresh install does',
    async () => {
      const dir = tempDir();
      const data = join(dir, 'data');
      const store: Store = { config: { sinks: { fs: { dir: data } } } };
      // The build is the recorded release, and HEAD says the version package.json gives it.
      expect((await visync('old', OLD_NIGHTS[0]!, ['--version'], {})).stdout.trim()).toBe(old.version);
      expect((await visync('new', OLD_NIGHTS[0]!, ['--version'], {})).stdout.trim()).toBe(packageVersion());
      let last = { config: '', env: {} as Record<string, string> };
      for (const d of OLD_NIGHTS) last = await night('old', d, dir, store);
      const oldRuns = await runs('old', '2026-10-31', last.config, last.env);
      const oldEvents = await events('old', '2026-10-31', last.config, last.env);
      await report('old', '2026-11-01', '2026-10', last);
      expect(oldRuns.map((r) => r.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
      expect(oldEvents.length).toBeGreaterThan(0);
      const octReports = reportFiles(data);
      expect(Object.keys(octReports).filter((f) => f.endsWith('/report.json'))).toHaveLength(2);
      // A release before 0.2.0 left no marker: this release must take the store as one of its own
      // past; a later one left its own, naming itself, which this release moves on.
      const oldMarker = listFiles(data).includes(MARKER)
        ? (JSON.parse(readFileSync(join(data, MARKER), 'utf8')) as { writer: { version: string } })
        : undefined;
      if (fromBefore('0.2.0')) expect(oldMarker).toBeUndefined();
      else expect(oldMarker?.writer.version).toBe(old.version);

      // The old release's own November, on a copy of the store: what an upgrade is held against.
      const oldAlone = { dir: tempDir(), data: '' };
      oldAlone.data = join(oldAlone.dir, 'data');
      cpSync(data, oldAlone.data, { recursive: true });
      if (!fromBefore('0.2.0')) {
        const copy: Store = { config: { sinks: { fs: { dir: oldAlone.data } } } };
        let at = last;
        for (const d of NEW_NIGHTS) at = await night('old', d, oldAlone.dir, copy);
        await report('old', '2026-12-01', '2026-11', at);
      }

      // This release reads the old store before writing anything into it.
      expectSameRuns(oldRuns, await runs('new', '2026-11-01', last.config, last.env));
      for (const d of NEW_NIGHTS) last = await night('new', d, dir, store);
      const marker = JSON.parse(readFileSync(join(data, MARKER), 'utf8')) as { writer: { version: string } };
      expect(marker.writer.version).toBe(packageVersion());
      await report('new', '2026-12-01', '2026-11', last);

      // Nothing lost: the old runs read field for field the same after the new nights, and the new
      // nights succeeded beside them.
      const after = await runs('new', '2026-12-01', last.config, last.env);
      expectSameRuns(oldRuns, after);
      expect(after.map((r) => r.status)).toEqual(
        Array(OLD_NIGHTS.length + NEW_NIGHTS.length).fill('succeeded'),
      );
      // October's reports as the old release wrote them; November's beside them, naming this release.
      const now = reportFiles(data);
      for (const [f, text] of Object.entries(octReports)) expect(now[f], f).toBe(text);
      const novManifests = Object.keys(now).filter(
        (f) => f.includes('period=2026-11/') && f.endsWith('manifest.json'),
      );
      expect(novManifests).toHaveLength(2);
      for (const f of novManifests)
        expect(JSON.parse(now[f] ?? '{}')).toMatchObject({ writer: { version: packageVersion() } });
      // October's figures as the old reports stated them. From 0.1.0: none called revised where only
      // a rule changed since (issue #41 case 1; RULE_CHANGED in src/report/model/compare.ts), those
      // that moved restated, once. From a later release, whose rules this one keeps: the same
      // revisions the old release itself states when it makes November on a copy of the store (the
      // night after October's end revises its snapshot figures, docs/reports.md "Revised figures"),
      // and nothing restated: an upgrade adds no revision.
      const novReports = Object.keys(now).filter(
        (f) => f.includes('period=2026-11/') && f.endsWith('/report.json'),
      );
      expect(novReports).toHaveLength(2);
      type Stated = { revisions: unknown[]; restated: unknown[] };
      const stated = (files: Record<string, string>, f: string) => JSON.parse(files[f] ?? '{}') as Stated;
      const byOld = fromBefore('0.2.0') ? undefined : reportFiles(oldAlone.data);
      let restated = 0;
      for (const f of novReports) {
        const json = stated(now, f);
        expect(json.revisions, f).toEqual(byOld ? stated(byOld, f).revisions : []);
        restated += json.restated.length;
      }
      if (byOld) expect(restated).toBe(0);
      else expect(restated).toBeGreaterThan(0);

      // Old events read once, each as the old release recorded it; the new nights add what a fresh
      // install of this release adds on those nights.
      const newEvents = await events('new', '2026-12-01', last.config, last.env);
      const ids = newEvents.map((e) => e.event_id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const o of oldEvents)
        expect(
          pick(
            newEvents.find((e) => e.event_id === o.event_id),
            Object.keys(o),
          ),
          String(o.event_id),
        ).toEqual(o);
      // Each old event keeps the meaning of the release that recorded it (issue #41 case 3).
      for (const o of oldEvents)
        expect(newEvents.find((e) => e.event_id === o.event_id)?.detected_by, String(o.event_id)).toBe(
          old.version,
        );
      const fresh = await freshInstall([...OLD_NIGHTS, ...NEW_NIGHTS]);
      const freshEvents = await events('new', '2026-12-01', fresh.config, fresh.env);
      const inNewNights = (list: Record<string, unknown>[]) =>
        list
          .filter((e) => String(e.snapshot_date) >= NEW_NIGHTS[0]!)
          .map(meaning)
          .sort();
      expect(inNewNights(newEvents)).toEqual(inNewNights(freshEvents));
      expect(inNewNights(newEvents).length).toBeGreaterThan(0);

      // The `_latest` and change views of `visync export duckdb` over the upgraded store show what
      // they show over the fresh install's. brand_events_latest keeps every event ever recorded: its
      // rows of the old nights are the old release's (checked above, as `visync events` reads them),
      // where a fresh install of this release records some differently (an event type whose meaning
      // changed, issue #41 item 3); its rows of the new nights must be the fresh install's.
      const upgraded = await duckdbViews('2026-12-01', last.config, last.env, data);
      const freshViews = await duckdbViews('2026-12-01', fresh.config, fresh.env, join(fresh.dir, 'data'));
      expect(Object.keys(upgraded).sort()).toEqual(Object.keys(freshViews).sort());
      expect(Object.keys(upgraded).length).toBeGreaterThan(10);
      const sinceUpgrade = (rows: string[] = []) =>
        rows.filter(
          (r) => String((JSON.parse(r) as { snapshot_date: string }).snapshot_date) >= NEW_NIGHTS[0]!,
        );
      for (const [view, rows] of Object.entries(freshViews)) {
        if (view === 'brand_events_latest')
          expect(sinceUpgrade(upgraded[view]), view).toEqual(sinceUpgrade(rows));
        else expect(upgraded[view], view).toEqual(rows);
      }
    },
    FS_BOUND_MS,
  );
});

describe('a run the old release crashed', () => {
  it('is completed by the first run of this release, as it completes a crash of its own', async () => {
    const dir = tempDir();
    const data = join(dir, 'data');
    const store: Store = { config: { sinks: { fs: { dir: data } } } };
    await night('old', '2026-10-30', dir, store);
    // Killed by the old release's own test hook (src/run/inline/crash-points.ts has the same) once
    // the first curated part is written: no manifest.
    const s = await sim({ ...SPEC, today: '2026-10-31' });
    const file = configFile(s, dir, { ...store.config, extract: { visibilityDays: 31 } });
    const crashed = await visync(
      'old',
      '2026-10-31',
      ['--config', file.path, 'run', '--once', '--log-level', 'silent'],
      {
        ...file.env,
        VISYNC_TEST_CRASH_AT: 'curate',
      },
    );
    expect(crashed.code, crashed.stderr).toBeNull();
    const landed = listFiles(data).find((f) => f.startsWith('raw/me/') && f.includes('dt=2026-10-31'));
    const crashedRun = /\/run=([^/]+)\//.exec(landed ?? '')?.[1];
    expect(crashedRun).toMatch(/^20261031-sync-/);
    expect(listFiles(data)).not.toContain(`runs/account=acme/run=${crashedRun}/manifest.json`);

    const s2 = await sim({ ...SPEC, today: '2026-11-01' });
    const next = configFile(s2, dir, { ...store.config, extract: { visibilityDays: 31 } });
    const r = await visync(
      'new',
      '2026-11-01',
      ['--config', next.path, 'run', '--once', '--log-level', 'silent'],
      next.env,
    );
    ok(r, 'new run --once after the crash');
    // As test/crash-points.test.ts finds it for a crash of this release at the same point.
    expect(r.stdout.split('\n')[0]).toMatch(
      new RegExp(`^acme: completed interrupted run: partial \\| run ${crashedRun} \\|`),
    );
    const manifest = JSON.parse(
      readFileSync(join(data, `runs/account=acme/run=${crashedRun}/manifest.json`), 'utf8'),
    ) as Record<string, unknown>;
    expect(manifest).toMatchObject({ run_id: crashedRun, writer: { version: packageVersion() } });
    expect(manifest.interrupted).toMatch(/stopped before writing its manifest/);
  });
});

describe('upgrading from the previous release on S3 (s3rver)', () => {
  it(
    'this release reads the old runs and reports under the prefix and extends them',
    async () => {
      // s3rver refuses a request signed more than 15 minutes away from its clock: this process's Date
      // follows each command's night (the simulator's data follow its `today`).
      vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
      const at = (d: string) => vi.setSystemTime(Date.parse(`${d}T03:00:00Z`));
      const s3 = await startS3rver({ buckets: ['lake'] });
      cleanups.push(() => s3.close());
      const dir = tempDir();
      const s3Sink = { bucket: 'lake', prefix: 'vis/', endpoint: s3.endpoint, forcePathStyle: true };
      const store: Store = { config: { sinks: { s3: s3Sink } }, env: { AWS_REGION: 'us-east-1' } };
      let last = { config: '', env: {} as Record<string, string> };
      const nightAt = async (release: Release, d: string) => {
        at(d);
        last = await night(release, d, dir, store);
      };
      await nightAt('old', '2026-10-30');
      await nightAt('old', '2026-10-31');
      at('2026-11-01');
      const oldRuns = await runs('old', '2026-11-01', last.config, last.env);
      await report('old', '2026-11-01', '2026-10', last);
      expectSameRuns(oldRuns, await runs('new', '2026-11-01', last.config, last.env));
      await nightAt('new', '2026-11-30');
      at('2026-12-01');
      await report('new', '2026-12-01', '2026-11', last);
      const after = await runs('new', '2026-12-01', last.config, last.env);
      expectSameRuns(oldRuns, after);
      expect(after.map((r) => r.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
      const lake = new S3ObjectStore({
        ...s3Sink,
        region: 'us-east-1',
        requestTimeoutSeconds: 5,
        maxAttempts: 1,
      });
      cleanups.push(() => lake.close());
      const keys = await lake.list('');
      expect(keys).toContain(MARKER);
      for (const period of ['2026-10', '2026-11'])
        expect(
          keys.filter((k) => k.includes(`period=${period}/`) && k.endsWith('/report.json')),
        ).toHaveLength(2);
      vi.useRealTimers();
    },
    S3_BOUND_MS,
  );
});

describe('a Redis with the old release queued work', () => {
  it("this release's worker works the sync the old release enqueued, without a worker", async () => {
    const dir = tempDir();
    const data = join(dir, 'data');
    const redis = { url: inject('redisUrl'), prefix: `up-${realNow().toString(36)}` };
    const s = await sim({ ...SPEC, today: '2026-11-02' });
    const file = configFile(s, dir, { sinks: { fs: { dir: data } }, top: { redis } });
    const queued = await visync(
      'old',
      '2026-11-02',
      ['--config', file.path, 'enqueue', 'sync', '--account', 'acme', '--json'],
      file.env,
    );
    ok(queued, 'old enqueue sync');
    const runId = String((JSON.parse(queued.stdout) as { runs: { run_id: string }[] }).runs[0]?.run_id);
    expect(runId).toMatch(/^20261102-sync-/);
    await spawnWorker(file.path, { ...file.env, ...onNight('2026-11-02') }, 2);
    const manifest = join(data, `runs/account=acme/run=${runId}/manifest.json`);
    await waitFor(() => listFiles(data).includes(`runs/account=acme/run=${runId}/manifest.json`), {
      what: () => `the worker to finish ${runId}`,
      timeoutMs: 60_000,
    });
    expect(JSON.parse(readFileSync(manifest, 'utf8'))).toMatchObject({
      run_id: runId,
      status: 'succeeded',
      writer: { version: packageVersion() },
    });
  });
});
