// `visync export duckdb|athena` through the BUILT visync (test/helpers/built-bin.ts), as a user runs
// it after a night: the DuckDB script, with the root relative as given, run whole in DuckDB gives
// the current state; the Athena statements land one per file in the order to run.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { VIEWS, WAREHOUSE_TABLES } from '../src/catalogue/index.js';
import { type BuiltVisync, builtVisync, NODE22 } from './helpers/built-bin.js';
import { configFile, runOnceCli, sim, tempDir } from './helpers/harness.js';

let built: BuiltVisync;
beforeAll(() => {
  built = builtVisync();
}, 60_000);

/** The built `visync --config visync.yaml ARGS` run in `dir`, whatever its exit code. */
const visyncRun = (dir: string, args: string[]) => {
  const r = spawnSync(NODE22, [built.bin, '--config', 'visync.yaml', ...args], {
    cwd: dir,
    encoding: 'utf8',
  });
  return { code: r.status, out: r.stdout, err: r.stderr.trimEnd().split('\n') };
};

/** The built `visync --config visync.yaml ARGS`, run in `dir`; its stdout. */
const visync = (dir: string, args: string[]) =>
  execFileSync(NODE22, [built.bin, '--config', 'visync.yaml', ...args], { cwd: dir, encoding: 'utf8' });

describe('the built visync export', () => {
  it('duckdb: a relative root as given, the script run whole, the current state per workspace', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }], seed: 6 });
    const dir = tempDir();
    expect((await runOnceCli(s, dir, [], { sinks: { fs: { dir: join(dir, 'data') } } })).code).toBe(0);
    visync(dir, ['export', 'duckdb', '--root', './data', '--out', 'views.sql']);
    const sql = readFileSync(join(dir, 'views.sql'), 'utf8');
    expect(sql).toContain("'./data/tables/brands/dt=*/");
    expect(sql).toContain('No part files yet (when this was generated) for: brand_events.');

    const instance = await DuckDBInstance.create(':memory:');
    const db = await instance.connect();
    try {
      // Relative paths are read from `dir`, as from a DuckDB started there.
      await db.run(`SET file_search_path = '${dir}'`);
      await db.run(sql);
      const latest = (
        await db.runAndReadAll('SELECT brand_id FROM brands_latest ORDER BY 1')
      ).getRowObjectsJson();
      expect(latest.map((r) => r.brand_id)).toEqual([...s.accounts[0]!.workspaceIds].sort());
      const changes = await db.runAndReadAll('SELECT count(*)::INTEGER AS n FROM prompt_changes');
      expect(changes.getRowObjectsJson()[0]?.n).toBe(0);
    } finally {
      db.closeSync();
      instance.closeSync();
    }
  });

  it('athena --split: one numbered file per statement, tables then views', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }], seed: 6 });
    const dir = tempDir();
    configFile(s, dir);
    const out = visync(dir, ['export', 'athena', '--root', 's3://lake/visync/', '--split', 'athena']);
    const files = readdirSync(join(dir, 'athena')).sort();
    expect(files).toHaveLength(WAREHOUSE_TABLES.length + VIEWS.length);
    expect(out).toContain(`wrote ${files.length} statements to athena`);
    const last = readFileSync(join(dir, 'athena', files.at(-1)!), 'utf8');
    expect(last).toMatch(/^CREATE OR REPLACE VIEW "share_of_voice_changes" AS$/m);
  });

  it('a store folder named `store [prod]`: the script reads that folder, run whole in DuckDB', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }], seed: 6 });
    const dir = tempDir();
    expect((await runOnceCli(s, dir, [], { sinks: { fs: { dir: join(dir, 'store [prod]') } } })).code).toBe(
      0,
    );
    visync(dir, ['export', 'duckdb', '--out', 'views.sql']);
    const instance = await DuckDBInstance.create(':memory:');
    const db = await instance.connect();
    try {
      await db.run(readFileSync(join(dir, 'views.sql'), 'utf8'));
      const rows = (
        await db.runAndReadAll('SELECT brand_id FROM brands_latest ORDER BY 1')
      ).getRowObjectsJson();
      expect(rows.map((r) => r.brand_id)).toEqual([...s.accounts[0]!.workspaceIds].sort());
    } finally {
      db.closeSync();
      instance.closeSync();
    }
  });

  it('refusals: one line on stderr, no stack, exit 64; nothing written', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }], seed: 6 });
    const dir = tempDir();
    configFile(s, dir);
    writeFileSync(join(dir, 'FILE'), 'mine\n');
    mkdirSync(join(dir, 'DIR'));
    for (const args of [
      ['export', 'athena', '--root', 's3://lake/visync/', '--split', 'FILE'],
      ['export', 'duckdb', '--out', 'FILE/x.sql'],
      ['export', 'dbt', '--out', 'FILE'],
      ['export', 'duckdb', '--out', 'DIR'],
      ['export', 'duckdb', '--root', './data\nCREATE TABLE injected AS SELECT 1;--'],
      ['export', 'athena', '--root', 's3://lake/visync\nDROP TABLE brands;--/', '--split', 'athena'],
    ]) {
      const r = visyncRun(dir, args);
      expect(r.code, args.join(' ')).toBe(64);
      // A bad option value is followed by commander's pointer to --help, as every usage error is.
      const lines = r.err.filter((l) => l !== '(add --help for usage)');
      expect(lines, args.join(' ')).toHaveLength(1);
      expect(lines[0], args.join(' ')).not.toMatch(/unexpected error|EEXIST|\bat /);
      expect(r.out, args.join(' ')).toBe('');
    }
    expect(readdirSync(dir).sort()).toEqual(['DIR', 'FILE', 'visync.yaml']);
    expect(readFileSync(join(dir, 'FILE'), 'utf8')).toBe('mine\n');
  });
});
