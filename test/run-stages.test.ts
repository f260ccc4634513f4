// Both drivers of a run record its four stages (extract, curate, load, record) in the manifest the
// same way (src/run/stages.ts), and `visync runs show` prints when each ran and how long it took:
// `run --once` into BigQuery, and a worker's run loaded by its load batch. Real Redis, the
// simulator over HTTP, the fake BigQuery REST server with the real client.
import { describe, expect, it } from 'vitest';
import { enqueueRun } from '../jobs/enqueue.js';
import { renderRunDetail, runDetail } from '../src/cli/run-detail.js';
import { type Manifest, readManifest } from '../src/records/manifest.js';
import { STAGE_NAMES } from '../src/records/run-state.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { fakeBigQuery, runOnceCli, sim, tempDir, visyncCli } from './helpers/harness.js';
import { jobsClient, jobsConfigFile, waitForRun, worker } from './helpers/jobs.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

async function setup() {
  const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
  const bq = await fakeBigQuery();
  const dir = tempDir();
  const sinks = { fs: { dir }, bigquery: { projectId: 'p', dataset: 'shared', apiEndpoint: bq.url } };
  return { s, dir, sinks };
}

/** Every stage succeeded, in order: each started when or after the one before it finished. */
function expectFourStages(m: Manifest) {
  expect(m.status).toBe('succeeded');
  expect(Object.keys(m.stages ?? {}).sort()).toEqual([...STAGE_NAMES].sort());
  let before = m.started_at;
  for (const name of STAGE_NAMES) {
    const st = m.stages![name]!;
    expect(st, name).toMatchObject({ outcome: 'succeeded', started_at: expect.stringMatching(ISO) });
    expect(st.finished_at, name).toMatch(ISO);
    expect(Date.parse(st.started_at!), name).toBeGreaterThanOrEqual(Date.parse(before));
    expect(Date.parse(st.finished_at!), name).toBeGreaterThanOrEqual(Date.parse(st.started_at!));
    before = st.finished_at!;
  }
}

/** `runs show` lists each stage with its outcome, its duration and its times; nothing "not recorded". */
async function expectShown(path: string, m: Manifest) {
  const shown = await visyncCli(path, ['runs', 'show', m.run_id]);
  expect(shown.code).toBe(0);
  expect(shown.out).toContain('stages:');
  for (const name of STAGE_NAMES) {
    const st = m.stages![name]!;
    const line = shown.out.find((l) => l.startsWith(`  ${name} `));
    expect(line, name).toMatch(new RegExp(`^  ${name} +succeeded +[0-9.]+s  `));
    expect(line).toContain(`${st.started_at} to ${st.finished_at}`);
  }
  expect(shown.out.some((l) => l.startsWith('not recorded'))).toBe(false);
}

describe('run stages in the manifest', () => {
  it('run --once records extract, curate, load and record with their outcomes and times; runs show prints them', async () => {
    const { s, dir, sinks } = await setup();
    const run = await runOnceCli(s, dir, ['--json'], { sinks });
    expect(run.code).toBe(0);
    const runId = (JSON.parse(run.out.join('\n')) as { runs: { run_id: string }[] }).runs[0]!.run_id;
    const m = (await readManifest(new FsObjectStore(dir), 'acme', runId))!;
    expectFourStages(m);
    const { path } = jobsConfigFile(s, dir, { sinks });
    await expectShown(path, m);
    // A manifest of a version before stages still reads, and says what it does not record.
    const { stages: _stages, ...older } = m;
    const shown = renderRunDetail(runDetail(older, 'older'), 100);
    expect(shown).not.toContain('stages:');
    expect(shown).toContainEqual(expect.stringMatching(/^not recorded: per-stage times/));
  });

  it("a worker's run (curated in its finish job, loaded by its load batch) records the same four stages", async () => {
    const { s, dir, sinks } = await setup();
    const { config, path } = jobsConfigFile(s, dir, { sinks, top: { load: { batchRuns: 1 } } });
    await worker(config);
    const c = jobsClient(config);
    const { runId } = await enqueueRun(c.queues, c.ledger, config, { kind: 'sync', account: 'acme' });
    expect((await waitForRun(config, runId)).status).toBe('succeeded');
    const m = (await readManifest(new FsObjectStore(dir), 'acme', runId))!;
    expectFourStages(m);
    // Its tables were loaded by a batch, not by the finish job.
    expect(m.loads.every((l) => l.load_batch_id)).toBe(true);
    await expectShown(path, m);
  });
});
