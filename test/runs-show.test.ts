// `visync run --json` and `visync runs show RUN_ID` as a user runs them (real processes): one JSON
// document on stdout with logs on stderr, one run read back whole from its manifest, lines no wider
// than the terminal with the upstream's long error wrapped rather than cut.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runVisync } from './helpers/cli-process.js';
import { configYaml, sim, tempDir } from './helpers/harness.js';
import { writeConfig } from './helpers/worker-process.js';

interface RunJson {
  status: string;
  exit_code: number;
  exit_meaning: string;
  runs: {
    account: string;
    run_id: string;
    status: string;
    workspaces: { brand_id: string; status: string; error?: string }[];
    files: { count: number; bytes: number };
    manifest: string | null;
    problems: string[];
  }[];
}

const lines = (text: string) => text.split('\n').filter(Boolean);
const noSpace = (text: string) => text.replace(/\s+/g, '');

describe('run --json and runs show', () => {
  it('run --json prints one JSON document (logs on stderr); runs show prints the run in text no wider than 100 columns and in JSON; runs --account still lists', async () => {
    const s = await sim({
      accounts: [
        { name: 'acme', workspaces: 2 },
        { name: 'gamma', workspaces: 1 },
      ],
    });
    const dir = tempDir();
    // gamma asks for a workspace it does not own: the upstream answers 404 with a JSON body.
    const { yaml, env } = configYaml(s, dir, { accounts: { gamma: { brands: ['nope'] } } });
    const cfg = writeConfig(dir, yaml);

    const run = await runVisync(['--config', cfg, 'run', '--json'], env);
    expect(run.code).toBe(2);
    const doc = JSON.parse(run.stdout) as RunJson;
    expect(doc).toMatchObject({
      status: 'partial',
      exit_code: 2,
      exit_meaning: expect.stringMatching(/^partial/),
    });
    // stderr: the JSON logs, and the problems in one line each as without --json.
    for (const l of lines(run.stderr))
      if (!l.startsWith('visync: gamma: ')) expect(() => JSON.parse(l)).not.toThrow();
    const acme = doc.runs.find((r) => r.account === 'acme')!;
    const gamma = doc.runs.find((r) => r.account === 'gamma')!;
    expect(acme).toMatchObject({ status: 'succeeded', problems: [] });
    expect(acme.workspaces.map((w) => w.status)).toEqual(['succeeded', 'succeeded']);
    expect(acme.files.count).toBeGreaterThan(0);
    expect(existsSync(acme.manifest!)).toBe(true);
    expect(gamma.status).toBe('failed');
    const upstreamError = gamma.workspaces[0]!.error!;
    expect(upstreamError).toMatch(/GET \/api\/v1\/brands\/nope -> 404: .*upstream said: \{"error"/);
    expect(upstreamError.length).toBeGreaterThan(100);

    const text = await runVisync(['--config', cfg, 'runs', 'show', gamma.run_id], env);
    expect(text.code).toBe(0);
    expect(text.stderr).toBe('');
    const shown = lines(text.stdout);
    expect(shown[0]).toBe(`run ${gamma.run_id} (account gamma)`);
    expect(shown).toContainEqual(expect.stringMatching(/^ {2}status: +failed$/));
    expect(shown).toContainEqual('workspaces: 0 of 1 succeeded');
    expect(shown).toContainEqual(
      expect.stringMatching(/^ {2}window: +\d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d \(3 days/),
    );
    // Its stages: extract failed with the upstream's error; what landed (/me, /brands) curated;
    // nothing loaded, as there is no warehouse.
    expect(shown).toContainEqual(expect.stringMatching(/^ {2}extract +failed +[0-9.]+s {2}\d{4}-/));
    expect(shown).toContainEqual(expect.stringMatching(/^ {2}curate +succeeded /));
    expect(shown).toContainEqual(expect.stringMatching(/^ {2}load +skipped$/));
    expect(shown).toContainEqual(expect.stringMatching(/^ {2}record +succeeded /));
    for (const l of shown) expect(l.length).toBeLessThanOrEqual(100);
    // The upstream's error whole, wrapped over several lines.
    expect(noSpace(text.stdout)).toContain(noSpace(upstreamError));

    const json = await runVisync(['--config', cfg, 'runs', 'show', acme.run_id, '--json'], env);
    expect(json.code).toBe(0);
    const detail = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(detail).toMatchObject({
      run_id: acme.run_id,
      account: 'acme',
      status: 'succeeded',
      manifest: acme.manifest,
      workspaces: acme.workspaces,
      drift: [],
      not_recorded: [],
      stages: { extract: { outcome: 'succeeded' }, load: { outcome: 'skipped' } },
    });
    expect(detail.files_by_area).toMatchObject({ raw: { files: expect.any(Number) } });

    // replay --json: the replayed run as one document, logs on stderr.
    const replay = await runVisync(['--config', cfg, 'replay', '--run', acme.run_id, '--json'], env);
    expect(replay.code).toBe(0);
    const replayed = JSON.parse(replay.stdout) as Record<string, unknown>;
    expect(replayed).toMatchObject({
      account: 'acme',
      run_id: acme.run_id,
      status: 'succeeded',
      exit_code: 0,
      manifest: acme.manifest,
      replayed_at: expect.stringMatching(/^\d{4}-/),
    });
    expect(replayed.curated_files).toBeGreaterThan(0);

    // The listing keeps its options beside the new subcommand.
    const listed = await runVisync(['--config', cfg, 'runs', '--account', 'acme', '--json'], env);
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as { run_id: string }[]).map((r) => r.run_id)).toEqual([acme.run_id]);

    // --account after `show` is show's: gamma's run is not acme's.
    const wrongAccount = await runVisync(
      ['--config', cfg, 'runs', 'show', gamma.run_id, '--account', 'acme'],
      env,
    );
    expect(wrongAccount.code).toBe(1);
    expect(lines(wrongAccount.stderr)).toEqual([
      expect.stringMatching(
        new RegExp(`^visync: run ${gamma.run_id} not found: no manifest runs/account=acme/`),
      ),
    ]);
    const unknown = await runVisync(['--config', cfg, 'runs', 'show', '20990101T000000Z-sync-000000'], env);
    expect(unknown.code).toBe(1);
    expect(lines(unknown.stderr)).toHaveLength(1);
    expect(unknown.stdout).toBe('');
    const malformed = await runVisync(['--config', cfg, 'runs', 'show', 'not a run'], env);
    expect(malformed.code).toBe(64);
    expect(lines(malformed.stderr)).toEqual(['visync: runs show: not a run id: "not a run"']);
  });
});
