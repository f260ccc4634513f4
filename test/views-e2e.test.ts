// Two real `run --once` runs against the simulator into an fs sink, every curated part loaded into
// DuckDB: the `_latest` views show what the newest run's raw landing says, nothing of the run before.
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { TABLES } from '../src/catalogue/index.js';
import { openWarehouse } from './helpers/duckdb.js';
import { listFiles, readBytes, readText, runOnceCli, sim, tempDir } from './helpers/harness.js';

interface Recommendation {
  id: string;
  status: string;
}

/** `brand|id|status` of every recommendation in a run's raw landing. */
function rawRecommendations(dir: string, runId: string): string[] {
  const out: string[] = [];
  for (const key of listFiles(dir)) {
    const m = /^raw\/recommendations\/account=acme\/dt=[^/]+\/run=([^/]+)\/(.+)\.json$/.exec(key);
    if (m?.[1] !== runId) continue;
    const { body } = JSON.parse(readText(dir, key)) as { body: { data: Recommendation[] } };
    for (const r of body.data) out.push(`${decodeURIComponent(m[2] as string)}|${r.id}|${r.status}`);
  }
  return out.sort();
}

/** The account's run ids, oldest first, from the manifests. */
function runIds(dir: string): string[] {
  return listFiles(dir)
    .filter((k) => k.startsWith('runs/') && k.endsWith('/manifest.json'))
    .map((k) => JSON.parse(readText(dir, k)) as { run_id: string; started_at: string })
    .sort((a, b) => a.started_at.localeCompare(b.started_at))
    .map((m) => m.run_id);
}

describe('_latest views after real runs', () => {
  it('show the newest run as its raw landing says: recommendations it no longer returns are gone', async () => {
    // The same account seen on two days far apart: every recommendation slot has a new id by then.
    const spec = { accounts: [{ name: 'acme', workspaces: 2 }], seed: 11 };
    const before = await sim({ ...spec, today: '2026-01-10' });
    const after = await sim({ ...spec, today: '2026-03-25' });
    expect(after.accounts[0]?.workspaceIds).toEqual(before.accounts[0]?.workspaceIds);
    const dir = tempDir();

    expect((await runOnceCli(before, dir, [])).code).toBe(0);
    expect((await runOnceCli(after, dir, [])).code).toBe(0);
    const [first, second] = runIds(dir);
    expect(second).toBeDefined();

    const wh = await openWarehouse();
    const parts = await wh.loadTableParts(dir);
    expect(parts.sync_runs).toBe(2);

    const newest = rawRecommendations(dir, second as string);
    const older = rawRecommendations(dir, first as string);
    expect(newest.length).toBeGreaterThan(0);
    // Without this the test could not tell the views from "newest row per key".
    expect(older.filter((r) => !newest.includes(r)).length).toBeGreaterThan(0);

    const shown = await wh.query(
      `SELECT brand_id, recommendation_id, status, run_id FROM ${wh.dataset}.recommendations_latest`,
    );
    expect(shown.map((r) => `${r.brand_id}|${r.recommendation_id}|${r.status}`).sort()).toEqual(newest);

    // Every snapshot table shows the newest run only; both runs are still in the base tables.
    for (const t of TABLES.filter((t) => t.partitionField === 'snapshot_date')) {
      const runs = await wh.query(`SELECT DISTINCT run_id FROM ${wh.dataset}.${t.name}_latest`);
      expect(
        runs.map((r) => r.run_id),
        t.name,
      ).toEqual([second]);
    }
    const base = await wh.query(`SELECT DISTINCT run_id FROM ${wh.dataset}.recommendations ORDER BY run_id`);
    expect(base.map((r) => r.run_id).sort()).toEqual([first, second].sort());
  });

  it('keep the detail of the full run after a --endpoints visibility run, and move visibility', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }], seed: 5 });
    const dir = tempDir();
    expect((await runOnceCli(s, dir, [])).code).toBe(0);
    expect((await runOnceCli(s, dir, ['--endpoints', 'visibility'])).code).toBe(0);
    const [full, visibilityOnly] = runIds(dir);

    const wh = await openWarehouse();
    await wh.loadTableParts(dir);
    // The subset run wrote brands rows too, without the detail call's fields.
    const subsetBrands = await wh.query(
      `SELECT has_detail FROM ${wh.dataset}.brands WHERE run_id = '${visibilityOnly}'`,
    );
    expect(subsetBrands.map((r) => r.has_detail)).toEqual([false, false]);

    const detail = listFiles(dir)
      .filter((k) => k.startsWith('raw/brand/') && k.includes(`/run=${full}/`))
      .map(
        (k) =>
          JSON.parse(readText(dir, k)).body as { id: string; engine_mode: string; competitor_count: number },
      )
      .map((b) => `${b.id}|${b.engine_mode}|${b.competitor_count}|${full}`)
      .sort();
    expect(detail).toHaveLength(2);
    const brands = await wh.query(
      `SELECT brand_id, engine_mode, competitor_count, run_id FROM ${wh.dataset}.brands_latest`,
    );
    expect(
      brands.map((r) => `${r.brand_id}|${r.engine_mode}|${r.competitor_count}|${r.run_id}`).sort(),
    ).toEqual(detail);

    const visibility = await wh.query(`SELECT DISTINCT run_id FROM ${wh.dataset}.visibility_daily_latest`);
    expect(visibility.map((r) => r.run_id)).toEqual([visibilityOnly]);
  });

  it('a /brands list cut short (count 8, 3 records): partial, one line, sync_runs marks it, no workspace removed', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 8 }], seed: 3 });
    const dir = tempDir();
    expect((await runOnceCli(s, dir, [])).code).toBe(0);
    s.addFault({ endpoint: 'brands', kind: 'short-list', records: 3 });
    const short = await runOnceCli(s, dir, []);
    expect(short.code).toBe(2);
    expect(short.out[0]).toMatch(/acme: partial \| run \S+ \| 3\/3 workspaces/);
    const lines = short.err.filter((l) => /3 of the 8/.test(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^visync: acme: GET \/brands listed 3 of the 8 workspaces its count announces/);
    const [full, cut] = runIds(dir);

    const manifest = JSON.parse(readText(dir, `runs/account=acme/run=${cut}/manifest.json`));
    expect(manifest.status).toBe('partial');
    expect(manifest.drift).toContainEqual(
      expect.objectContaining({ endpoint: 'brands', kind: 'list_incomplete' }),
    );
    const recorded = listFiles(dir)
      .filter((k) => k.startsWith('tables/sync_runs/'))
      .map((k) => JSON.parse(gunzipSync(readBytes(dir, k)).toString('utf8')))
      .sort((a, b) => a.started_at.localeCompare(b.started_at));
    expect(recorded.map((r) => [r.status, r.workspace_list_incomplete])).toEqual([
      ['succeeded', false],
      ['partial', true],
    ]);

    // The 5 workspaces the short list left out keep the full run's rows; the 3 listed move on.
    const wh = await openWarehouse();
    await wh.loadTableParts(dir);
    const listed = new Set(s.accounts[0]!.workspaceIds.slice(0, 3));
    const expected = s.accounts[0]!.workspaceIds.map((id) => `${id}|${listed.has(id) ? cut : full}`).sort();
    for (const view of ['brands_latest', 'recommendations_latest', 'prompts_latest']) {
      const rows = await wh.query(`SELECT DISTINCT brand_id, run_id FROM ${wh.dataset}.${view}`);
      expect(rows.map((r) => `${r.brand_id}|${r.run_id}`).sort(), view).toEqual(expected);
    }
  });
});
