// A store knows the release that wrote it (issue #41, item 2): its marker `_visync/store.json`
// names the writer's version. A release older than the store's writer refuses, through the built
// bin, to write into it (run, replay, report): one line, exit 78, nothing written, no API call. A
// store without a marker (written before markers, or new) or with an older one is written, and
// its marker says this release.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { S3ObjectStore } from '../src/sinks/s3-store.js';
import { packageVersion } from '../src/util/writer.js';
import { cleanups } from './helpers/cleanup-stack.js';
import { runVisync } from './helpers/cli-process.js';
import { configFile, listFiles, runOnceCli, sim, tempDir } from './helpers/harness.js';
import { startS3rver } from './helpers/s3rver.js';

const MARKER = '_visync/store.json';
const NEWER = '9.0.0';
const THIS_WRITER = { writer: { name: 'visibility-sync', version: packageVersion() }, format_version: 1 };

const refusal = (at: string) =>
  `visync: this store (${at}) was written by visibility-sync ${NEWER}, newer than this ${packageVersion()}; ` +
  `upgrade (npm install -g ./visibility-sync-${NEWER}.tgz, or its image) or point sinks.fs.dir or sinks.s3.prefix at another store\n`;

/** A marker as a release would write it. */
function writeMarker(storeDir: string, version: string): void {
  mkdirSync(join(storeDir, '_visync'), { recursive: true });
  writeFileSync(
    join(storeDir, MARKER),
    `${JSON.stringify({ writer: { name: 'visibility-sync', version }, format_version: 1 }, null, 2)}\n`,
  );
}

/** Every file of a folder with its SHA-256: what a refused command must leave as it was. */
function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(
    listFiles(dir).map((f) => [
      f,
      createHash('sha256')
        .update(readFileSync(join(dir, f)))
        .digest('hex'),
    ]),
  );
}

/** A store with one run of acme in it (by this release); the config, the store and the run id. */
async function storeWithOneRun() {
  const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }], seed: 41 });
  const dir = tempDir();
  const data = join(dir, 'data');
  const o = { sinks: { fs: { dir: data } } };
  const first = await runOnceCli(s, dir, ['--json'], o);
  expect(first.code, first.err.join('\n')).toBe(0);
  const runId = (JSON.parse(first.out.join('\n')) as { runs: { run_id: string }[] }).runs[0]!.run_id;
  const file = configFile(s, dir, o);
  return { s, data, config: file.path, env: file.env, runId };
}

describe('a store a newer release wrote', () => {
  it('run --once refuses with one line and exit 78: nothing written, no API call', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }], seed: 41 });
    const dir = tempDir();
    const data = join(dir, 'data');
    const file = configFile(s, dir, { sinks: { fs: { dir: data } } });
    writeMarker(data, NEWER);
    const before = snapshot(data);
    const r = await runVisync(['--config', file.path, 'run', '--once', '--log-level', 'silent'], file.env);
    expect(r.stderr).toBe(refusal(data));
    expect(r.code).toBe(78);
    expect(r.stdout).toBe('');
    expect(snapshot(data)).toEqual(before);
    expect(s.log).toEqual([]);
  });

  it('a marker that does not parse is refused the same way, naming the marker', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }], seed: 41 });
    const dir = tempDir();
    const data = join(dir, 'data');
    const file = configFile(s, dir, { sinks: { fs: { dir: data } } });
    writeMarker(data, NEWER);
    writeFileSync(join(data, MARKER), '{"writer": {"name": "visibility-sync", "ver');
    const before = snapshot(data);
    const r = await runVisync(['--config', file.path, 'run', '--once', '--log-level', 'silent'], file.env);
    expect(r.stderr).toBe(
      `visync: this store (${data}) has a marker ${MARKER} this release (${packageVersion()}) cannot read: ` +
        'a newer release may have written it; upgrade, or point sinks.fs.dir or sinks.s3.prefix at another store\n',
    );
    expect(r.code).toBe(78);
    expect(snapshot(data)).toEqual(before);
    expect(s.log).toEqual([]);
  });

  it('replay, report and the worker refuse the same way, the store as it was', async () => {
    const { data, config, env, runId } = await storeWithOneRun();
    writeMarker(data, NEWER);
    const before = snapshot(data);
    const replay = await runVisync(
      ['--config', config, 'replay', '--run', runId, '--log-level', 'silent'],
      env,
    );
    expect(replay.stderr).toBe(refusal(data));
    expect(replay.code).toBe(78);
    const report = await runVisync(['--config', config, 'report', '--period', '2026-11'], env);
    expect(report.stderr).toBe(refusal(data));
    expect(report.code).toBe(78);
    // The worker too: at its start, before Redis, a port or a job.
    const worker = await runVisync(['--config', config, 'worker', '--log-level', 'silent'], env);
    expect(worker.stderr).toBe(refusal(data));
    expect(worker.code).toBe(78);
    expect(snapshot(data)).toEqual(before);
  });

  it('on S3 too: the marker under the prefix, no object put', async () => {
    const s3 = await startS3rver({ buckets: ['lake'] });
    cleanups.push(() => s3.close());
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }], seed: 41 });
    const dir = tempDir();
    const s3Sink = { bucket: 'lake', prefix: 'vis/', endpoint: s3.endpoint, forcePathStyle: true };
    const file = configFile(s, dir, { sinks: { s3: s3Sink } });
    const store = new S3ObjectStore({
      ...s3Sink,
      region: 'us-east-1',
      requestTimeoutSeconds: 5,
      maxAttempts: 1,
    });
    cleanups.push(() => store.close());
    const env = { ...file.env, AWS_REGION: 'us-east-1' };
    const run = () => runVisync(['--config', file.path, 'run', '--once', '--log-level', 'silent'], env);
    // The first run writes the marker (this release's); then a newer release's takes its place.
    const first = await run();
    expect(first.code, first.stderr).toBe(0);
    const marker = JSON.parse(String(await store.get(MARKER))) as { writer: { version: string } };
    expect(marker.writer.version).toBe(packageVersion());
    const calls = s.log.length;
    await store.put(
      MARKER,
      JSON.stringify({ writer: { name: 'visibility-sync', version: NEWER }, format_version: 1 }),
      { contentType: 'application/json' },
    );
    const writes = () => s3.requests.filter((q) => q.method === 'PUT' || q.method === 'POST').length;
    const putsBefore = writes();
    const r = await run();
    expect(r.stderr).toBe(refusal('s3://lake/vis/'));
    expect(r.code).toBe(78);
    expect(writes()).toBe(putsBefore);
    expect(s.log.length).toBe(calls);
  });
});

describe('a store without a marker, or with an older one', () => {
  it('is written, and its marker, run manifests and report manifests then name this release and their format', async () => {
    const { s, data, config, env } = await storeWithOneRun();
    // The run above found no marker (a store of a release before markers, or a new one): it wrote one.
    const marker = () => JSON.parse(readFileSync(join(data, MARKER), 'utf8')) as unknown;
    expect(marker()).toEqual(THIS_WRITER);
    writeMarker(data, '0.0.1');
    const r = await runVisync(['--config', config, 'run', '--once', '--log-level', 'silent', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(s.log.length).toBeGreaterThan(0);
    expect(marker()).toEqual(THIS_WRITER);
    // The run's manifest names its writer, and so does the report written into the store.
    const run = (JSON.parse(r.stdout) as { runs: { manifest: string }[] }).runs[0]!;
    const manifest = JSON.parse(readFileSync(run.manifest, 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject(THIS_WRITER);
    const month = String(manifest.run_date).slice(0, 7);
    const report = await runVisync(
      ['--config', config, 'report', '--period', month, '--format', 'json'],
      env,
    );
    expect(report.code, report.stderr).toBe(0);
    const reports = listFiles(join(data, 'reports')).filter((f) => f.endsWith('/manifest.json'));
    expect(reports.length).toBeGreaterThan(0);
    for (const f of reports)
      expect(JSON.parse(readFileSync(join(data, 'reports', f), 'utf8'))).toMatchObject({
        writer: THIS_WRITER.writer,
        format_version: 1,
      });
  });
});
