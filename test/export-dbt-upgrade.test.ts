// `visync export dbt` as a user of 0.1.0 meets it (issue #41, case 2): 0.1.0 wrote one sources.yml
// (`visync export dbt --out models/staging/visync/sources.yml`, or `> sources.yml`), 0.2.0 writes a
// dbt project folder. The old usage is refused with exit 64 and the new way, never a folder where
// the file was nor a progress line in it; and the `_latest` and change views the old sources
// declared are still sources, so `source('visync', 'visibility_daily_latest')` keeps compiling.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { currentStateViews } from '../src/catalogue/index.js';
import { builtVisync, NODE22 } from './helpers/built-bin.js';
import { startProcess } from './helpers/cli-process.js';
import * as h from './helpers/harness.js';

const CONFIG = [
  'accounts:',
  '  - name: acme',
  '    apiKey: ${ACME_KEY}',
  '    baseUrl: https://api.example/api/v1',
  'sinks:',
  '  fs: { dir: ./data }',
  '  bigquery: { projectId: analytics-prod, dataset: visync, location: EU }',
  '',
].join('\n');

const OLD_SOURCES = '# dbt sources for the BigQuery dataset visync loads.\nversion: 2\nsources: []\n';

function project(): string {
  const dir = h.tempDir();
  writeFileSync(join(dir, 'visync.yaml'), CONFIG);
  return dir;
}

function visync(dir: string, args: string[]) {
  return startProcess(NODE22, [builtVisync().bin, '--config', 'visync.yaml', ...args], {
    cwd: dir,
    env: { ACME_KEY: 'test-key-1234' },
  }).exited;
}

/** The bin with its stdout redirected into `file`, as `visync export dbt > file` does. */
function visyncInto(
  dir: string,
  file: string,
  args: string[],
): Promise<{ code: number | null; stderr: string }> {
  const fd = openSync(join(dir, file), 'w');
  const child = spawn(NODE22, [builtVisync().bin, '--config', 'visync.yaml', ...args], {
    cwd: dir,
    env: { ...process.env, ACME_KEY: 'test-key-1234' },
    stdio: ['ignore', fd, 'pipe'],
  });
  closeSync(fd);
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

describe('visync export dbt, used as 0.1.0 was', () => {
  it("0.1.0's --help example with last week's sources.yml in place: exit 64, one line with the new way, the file untouched", async () => {
    const dir = project();
    const old = join(dir, 'models/staging/visync/sources.yml');
    mkdirSync(join(dir, 'models/staging/visync'), { recursive: true });
    writeFileSync(old, OLD_SOURCES);
    const r = await visync(dir, ['export', 'dbt', '--out', 'models/staging/visync/sources.yml']);
    expect(r.code).toBe(64);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/export dbt now writes a dbt project folder/);
    expect(lines[0]).toContain('use --out visync_dbt');
    expect(lines[0]).toContain('docs/dbt.md "Upgrading from 0.1.0"');
    expect(lines[0]).not.toMatch(/\bat .*\.js:\d+/);
    expect(readFileSync(old, 'utf8')).toBe(OLD_SOURCES);
  });

  it('the same --out with no file there yet: exit 64 and the new way, nothing written', async () => {
    const dir = project();
    const r = await visync(dir, ['export', 'dbt', '--out', 'models/staging/visync/sources.yml']);
    expect(r.code).toBe(64);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('export dbt now writes a dbt project folder');
    expect(existsSync(join(dir, 'models'))).toBe(false);
    expect(existsSync(join(dir, 'visync_dbt'))).toBe(false);
  });

  it('`export dbt > sources.yml`: exit 64 naming --out, the file empty (no progress line), no folder written', async () => {
    const dir = project();
    const r = await visyncInto(dir, 'sources.yml', ['export', 'dbt']);
    expect(r.code).toBe(64);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('--out');
    expect(statSync(join(dir, 'sources.yml')).size).toBe(0);
    expect(existsSync(join(dir, 'visync_dbt'))).toBe(false);
  });

  it('with --out a folder the project declares every `_latest` and change view as a source beside its staging models', async () => {
    const dir = project();
    for (const target of ['bigquery', 'duckdb', 'athena']) {
      const out = `dbt_${target}`;
      const r = await visync(dir, ['export', 'dbt', '--target', target, '--out', out]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const doc = parse(readFileSync(join(dir, out, 'models/sources.yml'), 'utf8')) as {
        sources: { name: string; tables: { name: string }[] }[];
      };
      const names = doc.sources.flatMap((s) => s.tables.map((t) => `${s.name}.${t.name}`));
      for (const v of currentStateViews('bigquery', (t) => t))
        expect(names, `${target}: ${v.name}`).toContain(`visync.${v.name}`);
      expect(names).toContain('visync.visibility_daily_latest');
      expect(names).toContain('visync.recommendation_status_changes');
      expect(existsSync(join(dir, out, 'models/staging/stg_visibility_daily.sql'))).toBe(true);
    }
  });
});
