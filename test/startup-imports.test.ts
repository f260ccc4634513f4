// Start-up cost: a command loads only what it uses. `--help` and a command on the local disk must
// not load the AWS SDK, BigQuery, BullMQ or Redis (each costs 100-300 ms and tens of MB at every
// start). A resolve hook preloaded into the child records every module it loads. It runs the sources
// (bin/visync-dev.js, tsx), not the bundle the other CLI tests run: the bundle inlines zod, undici,
// commander and Vega, so only the sources show which of those a command loads.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEV_BIN } from './helpers/cli-bin.js';
import { configYaml, sim } from './helpers/harness.js';

const HOOK = new URL('./fixtures/record-imports.mjs', import.meta.url).pathname;
const HEAVY = [
  '@aws-sdk',
  '@google-cloud/bigquery',
  'bullmq',
  'ioredis',
  'prom-client',
  'hono',
  '@bull-board',
  // ~190 ms: imported only when a report.xlsx is written (src/report/tables/xlsx.ts).
  'exceljs',
];

const dir = mkdtempSync(join(tmpdir(), 'visync-imports-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `visync ARGS`; resolves with its exit code and the packages (under node_modules) it loaded. */
async function packagesLoadedBy(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; packages: string[]; stderr: string }> {
  const record = join(dir, `imports-${args.join('-').replace(/\W+/g, '_')}.txt`);
  writeFileSync(record, '');
  const child = spawn(process.execPath, ['--import', HOOK, DEV_BIN, ...args], {
    env: { ...process.env, ...env, RECORD_IMPORTS: record },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const packages = new Set<string>();
  for (const url of readFileSync(record, 'utf8').split('\n')) {
    const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (m) packages.add(m[1] as string);
  }
  return { code, packages: [...packages].sort(), stderr };
}

/** A config file of one account (no reachable API) whose store is the folder `data` in `dir`. */
function localDiskConfig(file: string, data: string): string {
  const config = join(dir, file);
  writeFileSync(
    config,
    [
      'accounts:',
      '  - name: acme',
      '    apiKey: test-key-1234',
      '    baseUrl: http://127.0.0.1:1/api/v1',
      `sinks: { fs: { dir: ${JSON.stringify(join(dir, data))} } }`,
      '',
    ].join('\n'),
  );
  return config;
}

function heavyIn(packages: string[]): string[] {
  return packages.filter((p) => HEAVY.some((h) => p === h || p.startsWith(`${h}/`)));
}

describe('start-up imports', () => {
  it('`visync --help` loads commander, not the AWS SDK, BigQuery, BullMQ or Redis', async () => {
    const r = await packagesLoadedBy(['--help']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.packages).toContain('commander'); // the hook sees the packages the CLI loads
    expect(heavyIn(r.packages)).toEqual([]);
  });

  it('`visync runs` and `visync events` on a local-disk store load none of them either', async () => {
    const config = localDiskConfig('visync.yaml', 'data');
    for (const command of ['runs', 'events']) {
      const r = await packagesLoadedBy(['--config', config, command]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.packages).toContain('zod'); // it did load and check the config
      expect(heavyIn(r.packages), command).toEqual([]);
    }
  });

  it('`visync export athena|duckdb|dbt` with S3 and BigQuery sinks configured loads none of them either', async () => {
    const config = join(dir, 'export.yaml');
    writeFileSync(
      config,
      [
        'accounts:',
        '  - name: acme',
        '    apiKey: ${EXPORT_TEST_KEY}',
        '    baseUrl: http://127.0.0.1:1/api/v1',
        'sinks:',
        '  s3: { bucket: analytics, prefix: visync }',
        '  bigquery: { projectId: p, dataset: d }',
        '',
      ].join('\n'),
    );
    for (const engine of ['athena', 'duckdb', 'dbt']) {
      // dbt writes a project folder: into the test's folder, not the working directory.
      const out = engine === 'dbt' ? ['--out', join(dir, 'dbt-project')] : [];
      const r = await packagesLoadedBy(['--config', config, 'export', engine, ...out], {
        EXPORT_TEST_KEY: 'test-key-1234',
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.packages).toContain('zod'); // it did load and check the config
      expect(heavyIn(r.packages), engine).toEqual([]);
    }
  });

  it('`visync run --once --plan` on a local-disk store loads none of them either (and calls nothing)', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }], seed: 5 });
    const { yaml, env } = configYaml(s, join(dir, 'plan-data'));
    const config = join(dir, 'plan.yaml');
    writeFileSync(config, yaml);
    const r = await packagesLoadedBy(['--config', config, 'run', '--once', '--plan'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.packages).toContain('zod');
    expect(heavyIn(r.packages)).toEqual([]);
    expect(s.log).toEqual([]);
  });

  it('`visync run --once` without redis.url, to the local disk, loads none of them either', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }], seed: 5 });
    const { yaml, env } = configYaml(s, join(dir, 'run-data'));
    const config = join(dir, 'run.yaml');
    writeFileSync(config, yaml);
    const r = await packagesLoadedBy(['--config', config, 'run', '--once', '--log-level', 'warn'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.packages).toContain('undici'); // it did call the API
    expect(heavyIn(r.packages)).toEqual([]);
  });

  it('`visync report` loads Vega only to render a page, and on a local-disk store no cloud client', async () => {
    const help = await packagesLoadedBy(['--help']);
    expect(help.packages.filter((p) => p.startsWith('vega'))).toEqual([]);
    const config = localDiskConfig('visync-report.yaml', 'report-data');
    const r = await packagesLoadedBy(['--config', config, 'report']);
    expect(r.stderr).toContain('no complete run'); // it ran: an empty store has nothing to report
    // Nothing to render (no complete run), so no Vega; --help loads none either (above).
    expect(r.packages.filter((p) => p.startsWith('vega'))).toEqual([]);
    // hono/html escapes the report's HTML; the rest of the heavy list stays unloaded.
    expect(heavyIn(r.packages).filter((p) => p !== 'hono')).toEqual([]);
  });
});
