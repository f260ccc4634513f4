// The BigQuery -> DuckDB mapping used to run the catalogue's views on DuckDB (test/helpers/duckdb.ts):
// each rule checked on DuckDB itself, so a mapping that parses but means something else fails.
import { describe, expect, it } from 'vitest';
import { openWarehouse, toDuckDbSql } from './helpers/duckdb.js';

describe('toDuckDbSql', () => {
  it('quotes each part of a backtick name', () => {
    expect(toDuckDbSql('SELECT 1 FROM `my-project.visibility.sync_runs` AS r')).toBe(
      'SELECT 1 FROM "my-project"."visibility"."sync_runs" AS r',
    );
  });

  it('maps IN UNNEST and NOT IN UNNEST to list_contains', () => {
    expect(toDuckDbSql("WHERE 'brands' IN UNNEST(r.endpoints) AND t.brand_id NOT IN UNNEST(failed)")).toBe(
      "WHERE list_contains(r.endpoints, 'brands') AND NOT list_contains(failed, t.brand_id)",
    );
  });

  it('names the element of a CROSS JOIN UNNEST, and maps * EXCEPT to * EXCLUDE', () => {
    expect(toDuckDbSql('SELECT * EXCEPT(a) FROM r CROSS JOIN UNNEST(r.ws) AS brand_id')).toBe(
      'SELECT * EXCLUDE(a) FROM r CROSS JOIN UNNEST(r.ws) AS brand_id_values(brand_id)',
    );
  });

  it('throws on an UNNEST it has no mapping for', () => {
    expect(() => toDuckDbSql('SELECT x FROM UNNEST([1, 2]) AS x')).toThrow(/no DuckDB mapping/);
    expect(() => toDuckDbSql('WHERE 1 IN UNNEST([1, 2])')).toThrow(/no DuckDB mapping/);
  });

  it('gives the same answers on DuckDB as BigQuery would', async () => {
    const wh = await openWarehouse();
    const rows = await wh.query(
      toDuckDbSql(
        'SELECT r.id, w, ' +
          "'b' IN UNNEST(r.ws) AS has_b, 'b' NOT IN UNNEST(r.ws) AS lacks_b, ARRAY_LENGTH(r.ws) AS n " +
          "FROM (SELECT 1 AS id, ['a', 'b'] AS ws) AS r CROSS JOIN UNNEST(r.ws) AS w ORDER BY w",
      ),
    );
    expect(rows).toEqual([
      { id: 1, w: 'a', has_b: true, lacks_b: false, n: '2' },
      { id: 1, w: 'b', has_b: true, lacks_b: false, n: '2' },
    ]);
  });
});

describe('openWarehouse', () => {
  it('types columns from the catalogue and takes rows as the sync writes them', async () => {
    const wh = await openWarehouse();
    await wh.insertRows('prompts', [
      {
        account: 'acme',
        brand_id: 'ws_1',
        snapshot_date: '2026-03-10',
        prompt_id: 'prm_1',
        engines: ['chatgpt'],
        latest_position: 2,
        run_id: 'r1',
        extracted_at: '2026-03-10T02:00:00.120Z',
        payload: { id: 'prm_1' },
      },
    ]);
    expect(await wh.query(`SELECT * FROM ${wh.dataset}.prompts`)).toEqual([
      expect.objectContaining({
        snapshot_date: '2026-03-10',
        engines: ['chatgpt'],
        latest_position: '2',
        mentioned: null,
        extracted_at: '2026-03-10 02:00:00.12+00',
        payload: '{"id":"prm_1"}',
      }),
    ]);
    await expect(wh.insertRows('prompts', [{ account: 'acme' }])).rejects.toThrow(/REQUIRED column/);
  });
});
