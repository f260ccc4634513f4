// `visync export duckdb|athena` through the BUILT visync (test/helpers/built-bin.ts), as a user runs
// it after a night: the DuckDB script, with the root relative as given, run whole in DuckDB gives
// the current state; the Athena statements land one per file in the order to run.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
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
});
