import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  renderTablesDoc,
  TABLES,
  tableByName,
  toNdjsonLine,
  VIEWS,
  viewByName,
  WAREHOUSE_TABLES,
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
  it('give every table a _latest view, plus recommendation_status_changes and the change views', () => {
    expect(VIEWS.map((v) => v.name)).toEqual([
      ...TABLES.map((t) => `${t.name}_latest`),
      'brand_events_latest',
      'sync_runs_latest',
      'recommendation_status_changes',
      'reputation_flag_changes',
      'reputation_conflict_changes',
      'buyer_intent_loss_changes',
      'prompt_changes',
      'engine_score_changes',
      'share_of_voice_changes',
    ]);
  });

  it.each(VIEWS.map((v) => [v.name, v] as const))(
    '%s references only real columns, all in its SQL, and every table it reads',
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
      const read = [...sql.matchAll(/`visibility\.(\w+)`/g)].map((m) => m[1]);
      expect(new Set(read)).toEqual(new Set(v.references.map((r) => r.table)));
    },
  );

  it('read complete runs only: every view reads sync_runs', () => {
    for (const v of VIEWS)
      expect(
        v.references.map((r) => r.table),
        v.name,
      ).toContain('sync_runs');
  });

  it('take per workspace the newest run that covered the table, then one row per natural key', () => {
    expect(viewByName('recommendations_latest').sql('my-project.visibility')).toMatchInlineSnapshot(`
      "WITH runs AS (
        SELECT account, run_id, started_at, status, endpoints, brand_filter, workspaces_succeeded,
          tables_failed, error, workspace_list_incomplete
        FROM \`my-project.visibility.sync_runs\`
        WHERE TRUE
        QUALIFY ROW_NUMBER() OVER (PARTITION BY account, run_id ORDER BY recorded_at DESC) = 1
      ),
      workspaces AS (
        SELECT account, workspaces_succeeded AS brand_ids
        FROM runs
        WHERE status = 'succeeded' AND ARRAY_LENGTH(brand_filter) = 0 AND 'brands' IN UNNEST(endpoints)
          AND workspace_list_incomplete IS NOT TRUE
        QUALIFY ROW_NUMBER() OVER (PARTITION BY account ORDER BY started_at DESC, run_id DESC) = 1
      ),
      covered AS (
        SELECT runs.account, runs.run_id, runs.started_at, brand_id
        FROM runs
        CROSS JOIN UNNEST(runs.workspaces_succeeded) AS brand_id
        LEFT JOIN workspaces ON workspaces.account = runs.account
        WHERE 'recommendations' IN UNNEST(runs.endpoints) AND 'recommendations' NOT IN UNNEST(runs.tables_failed)
          AND (workspaces.account IS NULL OR brand_id IN UNNEST(workspaces.brand_ids))
      ),
      newest AS (
        SELECT account, brand_id, run_id
        FROM covered
        WHERE TRUE
        QUALIFY ROW_NUMBER() OVER (PARTITION BY account, brand_id ORDER BY started_at DESC, run_id DESC) = 1
      )
      SELECT t.*
      FROM \`my-project.visibility.recommendations\` AS t
      JOIN newest
        ON newest.account = t.account AND newest.brand_id = t.brand_id AND newest.run_id = t.run_id
      WHERE TRUE
      QUALIFY ROW_NUMBER() OVER (PARTITION BY t.account, t.brand_id, t.recommendation_id ORDER BY t.extracted_at DESC) = 1"
    `);
  });

  it('derive status changes from the newest recorded run per day', () => {
    expect(viewByName('recommendation_status_changes').sql('visibility')).toMatchInlineSnapshot(`
      "WITH recorded AS (
        SELECT DISTINCT account, run_id FROM \`visibility.sync_runs\`
      ),
      per_day AS (
        SELECT r.account, r.brand_id, r.recommendation_id, r.snapshot_date, r.status
        FROM \`visibility.recommendations\` AS r
        JOIN recorded ON recorded.account = r.account AND recorded.run_id = r.run_id
        WHERE TRUE
        QUALIFY ROW_NUMBER() OVER (
          PARTITION BY r.account, r.brand_id, r.recommendation_id, r.snapshot_date
          ORDER BY r.extracted_at DESC, r.run_id DESC
        ) = 1
      ),
      with_previous AS (
        SELECT account, brand_id, recommendation_id, snapshot_date,
          LAG(status) OVER (
            PARTITION BY account, brand_id, recommendation_id ORDER BY snapshot_date
          ) AS previous_status,
          status
        FROM per_day
        WHERE status IS NOT NULL
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
    for (const t of WAREHOUSE_TABLES) expect(doc).toContain(`### \`${t.name}\``);
    for (const v of VIEWS) expect(doc).toContain(`### \`${v.name}\``);
  });
});
