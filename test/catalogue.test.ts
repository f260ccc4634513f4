import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  renderTablesDoc,
  TABLES,
  tableByName,
  toNdjsonLine,
  VIEWS,
  viewByName,
} from '../src/catalogue/index.js';

const WORKSPACE_TABLES = TABLES.filter((t) => t.name !== 'accounts');

describe('tables', () => {
  it('are exactly the tables of the design', () => {
    expect(TABLES.map((t) => t.name)).toEqual([
      'accounts',
      'brands',
      'brand_engine_scores',
      'visibility_daily',
      'visibility_engine_daily',
      'recommendations',
      'prompts',
      'buyer_intent',
      'reputation',
      'reputation_claims',
      'reputation_conflicts',
    ]);
  });

  it.each(TABLES.map((t) => [t.name, t] as const))('%s has the common columns', (_name, t) => {
    const col = (name: string) => t.columns.find((c) => c.name === name);
    expect(col('account')).toMatchObject({ type: 'STRING', mode: 'REQUIRED' });
    expect(col('run_id')).toMatchObject({ type: 'STRING', mode: 'REQUIRED' });
    expect(col('extracted_at')).toMatchObject({ type: 'TIMESTAMP', mode: 'REQUIRED' });
    expect(col('payload')).toMatchObject({ type: 'JSON', mode: 'REQUIRED' });
    if (t.name !== 'accounts') expect(col('brand_id')).toMatchObject({ type: 'STRING', mode: 'REQUIRED' });
    if (t.partitionField === 'snapshot_date') {
      expect(col('snapshot_date')).toMatchObject({ type: 'DATE', mode: 'REQUIRED' });
    } else {
      expect(col('snapshot_date')).toBeUndefined();
    }
  });

  it('partition visibility tables by date and the others by snapshot_date', () => {
    expect(Object.fromEntries(TABLES.map((t) => [t.name, t.partitionField]))).toMatchObject({
      accounts: 'snapshot_date',
      visibility_daily: 'date',
      visibility_engine_daily: 'date',
      recommendations: 'snapshot_date',
    });
    for (const t of TABLES) {
      const partition = t.columns.find((c) => c.name === t.partitionField);
      expect(partition?.type, t.name).toBe('DATE');
    }
  });

  it('cluster workspace tables by account, brand_id and accounts by account', () => {
    expect(tableByName('accounts').clustering).toEqual(['account']);
    for (const t of WORKSPACE_TABLES) expect(t.clustering, t.name).toEqual(['account', 'brand_id']);
  });

  it('name natural keys, partitioning and clustering with their own columns', () => {
    for (const t of TABLES) {
      const names = t.columns.map((c) => c.name);
      for (const c of [...t.naturalKey, t.partitionField, ...t.clustering])
        expect(names, t.name).toContain(c);
      expect(t.naturalKey).not.toContain('run_id');
      expect(new Set(names).size, `${t.name} has a duplicate column`).toBe(names.length);
    }
    expect(tableByName('recommendations').naturalKey).toEqual(['account', 'brand_id', 'recommendation_id']);
    expect(tableByName('visibility_engine_daily').naturalKey).toEqual([
      'account',
      'brand_id',
      'date',
      'engine',
    ]);
    expect(tableByName('buyer_intent').naturalKey).toEqual(['account', 'brand_id', 'window_days']);
  });

  it('describe every table and column, and say which field names are assumed', () => {
    for (const t of TABLES) {
      expect(t.description.length, t.name).toBeGreaterThan(20);
      expect(t.grain, t.name).not.toBe('');
      expect(t.sources.length, t.name).toBeGreaterThan(0);
      for (const c of t.columns) expect(c.description.length, `${t.name}.${c.name}`).toBeGreaterThan(10);
    }
    const status = tableByName('recommendations').columns.find((c) => c.name === 'status');
    expect(status?.description).toContain('field name assumed');
    const name = tableByName('brands').columns.find((c) => c.name === 'name');
    expect(name?.description).toContain('(documented)');
  });

  it('throws on a name outside the catalogue', () => {
    expect(() => tableByName('nope')).toThrow(/unknown table/);
    expect(() => viewByName('nope')).toThrow(/unknown view/);
  });
});

describe('toNdjsonLine', () => {
  const table = tableByName('prompts');
  const row = {
    payload: { id: 'prm_1', text: 'What?' },
    prompt_id: 'prm_1',
    brand_id: 'ws_1',
    account: 'acme',
    run_id: 'r1',
    extracted_at: '2026-03-10T02:00:00.000Z',
    snapshot_date: '2026-03-10',
    text: 'What?',
    latest_position: undefined,
  };

  it('writes every column in catalogue order, missing values as null and repeated ones as []', () => {
    const line = toNdjsonLine(table, row);
    expect(Object.keys(JSON.parse(line))).toEqual(table.columns.map((c) => c.name));
    expect(JSON.parse(line)).toMatchObject({ latest_position: null, mentioned: null, engines: [] });
    const shuffled = Object.fromEntries(Object.entries(row).reverse());
    expect(toNdjsonLine(table, shuffled)).toBe(line);
  });

  it('throws on a key that is not a column and on a REQUIRED column without value', () => {
    expect(() => toNdjsonLine(table, { ...row, surprise: 1 })).toThrow(/"surprise", which is not a column/);
    expect(() => toNdjsonLine(table, { ...row, prompt_id: undefined })).toThrow(
      /REQUIRED column "prompt_id"/,
    );
  });
});

describe('views', () => {
  it('give every table a _latest view, plus recommendation_status_changes', () => {
    expect(VIEWS.map((v) => v.name)).toEqual([
      ...TABLES.map((t) => `${t.name}_latest`),
      'recommendation_status_changes',
    ]);
  });

  it.each(VIEWS.map((v) => [v.name, v] as const))(
    '%s references only real columns, all in its SQL',
    (_n, v) => {
      const sql = v.sql('visibility');
      for (const ref of v.references) {
        const names = tableByName(ref.table).columns.map((c) => c.name);
        expect(sql).toContain(`\`visibility.${ref.table}\``);
        for (const c of ref.columns) {
          expect(names, `${ref.table}.${c}`).toContain(c);
          expect(sql, c).toMatch(new RegExp(`\\b${c}\\b`));
        }
      }
    },
  );

  it('partition _latest by the natural key and take the newest run', () => {
    expect(viewByName('recommendations_latest').sql('my-project.visibility')).toMatchInlineSnapshot(`
      "SELECT * EXCEPT(_row_rank)
      FROM (
        SELECT *,
          ROW_NUMBER() OVER (PARTITION BY account, brand_id, recommendation_id ORDER BY extracted_at DESC, run_id DESC) AS _row_rank
        FROM \`my-project.visibility.recommendations\`
      )
      WHERE _row_rank = 1"
    `);
  });

  it('derive status changes from the newest run per day', () => {
    expect(viewByName('recommendation_status_changes').sql('visibility')).toMatchInlineSnapshot(`
      "WITH per_day AS (
        SELECT account, brand_id, recommendation_id, snapshot_date, status
        FROM (
          SELECT account, brand_id, recommendation_id, snapshot_date, status,
            ROW_NUMBER() OVER (
              PARTITION BY account, brand_id, recommendation_id, snapshot_date
              ORDER BY extracted_at DESC, run_id DESC
            ) AS _row_rank
          FROM \`visibility.recommendations\`
        )
        WHERE _row_rank = 1 AND status IS NOT NULL
      ),
      with_previous AS (
        SELECT account, brand_id, recommendation_id, snapshot_date,
          LAG(status) OVER (
            PARTITION BY account, brand_id, recommendation_id ORDER BY snapshot_date
          ) AS previous_status,
          status
        FROM per_day
      )
      SELECT account, brand_id, recommendation_id, snapshot_date, previous_status, status
      FROM with_previous
      WHERE previous_status IS NOT NULL AND previous_status != status"
    `);
  });
});

describe('docs/tables.md', () => {
  it('is up to date (npx tsx scripts/gen-docs.ts)', () => {
    const committed = readFileSync(new URL('../docs/tables.md', import.meta.url), 'utf8');
    expect(committed).toBe(renderTablesDoc());
  });

  it('documents every table and view', () => {
    const doc = renderTablesDoc();
    for (const t of TABLES) expect(doc).toContain(`### \`${t.name}\``);
    for (const v of VIEWS) expect(doc).toContain(`### \`${v.name}\``);
  });
});
