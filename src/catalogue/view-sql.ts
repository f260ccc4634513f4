// What the views (./views.ts) and the change views (./change-views.ts) share: each run once as its
// newest sync_runs row says, what makes a run cover a table, and how their docs say it.
import { bigqueryRef, type Sql, sqlFor } from './sql-dialect.js';
import { SYNC_RUNS } from './sync-runs.js';
import type { TableDef, ViewDef } from './types.js';

// Newest run first. Run ids do not order runs: a worker's ids carry only the day
// (`20261121-nightly-a1b2c3d4`); the id breaks ties.
export const NEWEST_RUN_FIRST = 'started_at DESC, run_id DESC';

const RECORDED_RUN_OUTPUT = [
  'account',
  'run_id',
  'started_at',
  'status',
  'endpoints',
  'brand_filter',
  'workspaces_succeeded',
  'tables_failed',
  'error',
  'workspace_list_incomplete',
];

/** Each run once, as its newest sync_runs row says (a replay or a completion records it again). */
export function recordedRuns(sql: Sql): string {
  return [
    'runs AS (',
    ...sql.qualified(
      {
        select: [
          'account, run_id, started_at, status, endpoints, brand_filter, workspaces_succeeded,',
          '  tables_failed, error, workspace_list_incomplete',
        ].join('\n'),
        columns: RECORDED_RUN_OUTPUT,
        from: [`FROM ${sql.table(SYNC_RUNS.name)}`],
        keep: ['ROW_NUMBER() OVER (PARTITION BY account, run_id ORDER BY recorded_at DESC)'],
      },
      '  ',
    ),
    ')',
  ].join('\n');
}

export const RECORDED_RUN_COLUMNS = [
  ...RECORDED_RUN_OUTPUT.slice(0, 2),
  'recorded_at',
  ...RECORDED_RUN_OUTPUT.slice(2),
];

/** SQL condition: run `runs` called every source endpoint of the table and did not fail the table. */
export function landedTable(t: TableDef, sql: Sql): string {
  return [
    ...t.sources.map((e) => sql.contains('runs.endpoints', `'${e}'`)),
    sql.notContains('runs.tables_failed', `'${t.name}'`),
  ].join(' AND ');
}

export const isAccountTable = (t: TableDef) => !t.columns.some((c) => c.name === 'brand_id');

/** A view from its one definition: `sql(dataset)` is its BigQuery rendering. */
export function viewDef(v: Omit<ViewDef, 'sql'>): ViewDef {
  return { ...v, sql: (dataset) => v.render(sqlFor('bigquery', bigqueryRef(dataset))) };
}

export const COMPLETE_RUNS =
  'Only runs with a `sync_runs` row count (per run its newest), so a run that crashed before ' +
  'recording itself never shows; newest means started last (`sync_runs.started_at`).';

/** What makes a run cover the table, in words. */
export function coverage(t: TableDef): string {
  const sources = t.sources.map((s) => `\`${s}\``).join(' and ');
  const called = `called ${sources}, did not fail the table (\`tables_failed\`)`;
  return isAccountTable(t)
    ? `A run covers the account when it ${called} and the account did not stop (\`error\`).`
    : `A run covers a workspace when it ${called} and synced the workspace (\`workspaces_succeeded\`).`;
}
