// Curated rows wait in the spool until their table's parts are written: in memory while they are
// few, on local disk once they pass the spool's budget (4 MB), and the same lines come back either way.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RowSpool } from '../src/curate/spool.js';

async function readBack(spool: RowSpool) {
  const out: Record<string, { rows: number; lines: string[] }> = {};
  for (const table of await spool.tables())
    for (const p of await spool.partitions(table)) {
      const lines: string[] = [];
      for await (const line of p.lines()) lines.push(line);
      out[`${table}/${p.partition}`] = { rows: p.rows, lines };
    }
  return out;
}

const spoolDir = (spool: RowSpool) => join(spool.path('x'), '..');

describe('the row spool', () => {
  it('keeps a few rows in memory and gives them back by table and partition, in order', async () => {
    const spool = await RowSpool.create();
    spool.add('b_table', '2026-11-02', '{"n":1}');
    spool.add('a_table', '2026-11-01', '{"n":2}');
    spool.add('b_table', '2026-11-01', '{"n":3}');
    spool.add('b_table', '2026-11-02', '{"n":4}');
    await spool.close();
    expect(await spool.tables()).toEqual(['a_table', 'b_table']);
    expect(await readBack(spool)).toEqual({
      'a_table/2026-11-01': { rows: 1, lines: ['{"n":2}'] },
      'b_table/2026-11-01': { rows: 1, lines: ['{"n":3}'] },
      'b_table/2026-11-02': { rows: 2, lines: ['{"n":1}', '{"n":4}'] },
    });
    // Nothing was written to disk for them.
    expect(readdirSync(spoolDir(spool))).toEqual([]);
    await spool.dispose();
  });

  it('makes no folder at all while its rows stay in memory', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'visync-spool-parent-'));
    try {
      const spool = await RowSpool.create(parent);
      spool.add('t', '2026-11-01', '{"n":1}');
      await spool.close();
      expect(await readBack(spool)).toEqual({ 't/2026-11-01': { rows: 1, lines: ['{"n":1}'] } });
      expect(readdirSync(parent)).toEqual([]);
      await spool.dispose();
      // A load file asks for one: it is made then, and removed with the spool.
      const withFile = await RowSpool.create(parent);
      expect(withFile.path('t.load.ndjson.gz').startsWith(parent)).toBe(true);
      expect(readdirSync(parent)).toHaveLength(1);
      await withFile.dispose();
      expect(readdirSync(parent)).toEqual([]);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });

  it('past its budget it holds every row on disk, and gives back the same lines', async () => {
    const spool = await RowSpool.create();
    const big = 'x'.repeat(1000);
    const expected: string[] = [];
    for (let i = 0; i < 6000; i++) {
      const line = `{"i":${i},"pad":"${big}"}`;
      expected.push(line);
      spool.add('t', i % 2 ? '2026-11-02' : '2026-11-01', line);
    }
    spool.add('u', '2026-11-01', '{"late":true}');
    await spool.close();
    expect(readdirSync(spoolDir(spool)).sort()).toEqual(['t', 'u']);
    const back = await readBack(spool);
    expect(back['t/2026-11-01']?.lines).toEqual(expected.filter((_, i) => i % 2 === 0));
    expect(back['t/2026-11-02']?.lines).toEqual(expected.filter((_, i) => i % 2 === 1));
    expect(back['t/2026-11-02']?.rows).toBe(3000);
    expect(back['u/2026-11-01']?.lines).toEqual(['{"late":true}']);
    await spool.dispose();
  });
});
