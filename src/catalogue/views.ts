// Views over the base tables: the current state of each table, read from complete runs only (runs
// with a `sync_runs` row, docs/tables.md), and recommendation status changes derived from daily
// snapshots (the API itself exposes no transitions).
//
// The SQL keeps to what BigQuery and DuckDB both accept where it can (QUALIFY, ARRAY_LENGTH), so
// the views are tested on DuckDB (test/views.test.ts); `x IN UNNEST(arr)`, `CROSS JOIN UNNEST`
// and backtick names are mapped for DuckDB by test/helpers/duckdb.ts. BigQuery accepts QUALIFY only
// in a query with WHERE, GROUP BY or HAVING, hence `WHERE TRUE`. The change views between runs
// are in ./change-views.ts.
import { CHANGE_VIEWS } from './change-views.js';
import { SYNC_RUNS } from './sync-runs.js';
import { TABLES } from './tables.js';
import type { TableDef, ViewDef } from './types.js';
import {
  COMPLETE_RUNS,
  coverage,
  isAccountTable,
  landedTable,
  NEWEST_RUN_FIRST,
  RECORDED_RUN_COLUMNS,
  recordedRuns,
  table,
} from './view-sql.js';

/**
 * The account's workspaces: those of its newest succeeded run over every workspace (no --brand).
 * Only a succeeded run is sure to list them all (a run completed from an interrupted landing may
 * not), and only one whose GET /brands was whole (a list cut short leaves workspaces out whatever
 * the run's status says; rows recorded before the column existed have it null).
 */
const ACCOUNT_WORKSPACES = [
  'workspaces AS (',
  '  SELECT account, workspaces_succeeded AS brand_ids',
  '  FROM runs',
  "  WHERE status = 'succeeded' AND ARRAY_LENGTH(brand_filter) = 0 AND 'brands' IN UNNEST(endpoints)",
  '    AND workspace_list_incomplete IS NOT TRUE',
  `  QUALIFY ROW_NUMBER() OVER (PARTITION BY account ORDER BY ${NEWEST_RUN_FIRST}) = 1`,
  ')',
].join('\n');

/** `{table}_latest` of `accounts`: the newest covering run per account. */
function accountLatestSql(t: TableDef, dataset: string): string {
  const key = t.naturalKey.map((c) => `t.${c}`).join(', ');
  return [
    `WITH ${recordedRuns(dataset)},`,
    'newest AS (',
    '  SELECT runs.account, runs.run_id',
    '  FROM runs',
    `  WHERE runs.error IS NULL AND ${landedTable(t)}`,
    `  QUALIFY ROW_NUMBER() OVER (PARTITION BY runs.account ORDER BY ${NEWEST_RUN_FIRST}) = 1`,
    ')',
    'SELECT t.*',
    `FROM ${table(dataset, t.name)} AS t`,
    'JOIN newest ON newest.account = t.account AND newest.run_id = t.run_id',
    'WHERE TRUE',
    `QUALIFY ROW_NUMBER() OVER (PARTITION BY ${key} ORDER BY t.extracted_at DESC) = 1`,
  ].join('\n');
}

/** (run, workspace) pairs whose rows of the table the run landed, for workspaces still in the account. */
function coveredWorkspaces(t: TableDef): string {
  return [
    'covered AS (',
    '  SELECT runs.account, runs.run_id, runs.started_at, brand_id',
    '  FROM runs',
    '  CROSS JOIN UNNEST(runs.workspaces_succeeded) AS brand_id',
    '  LEFT JOIN workspaces ON workspaces.account = runs.account',
    `  WHERE ${landedTable(t)}`,
    '    AND (workspaces.account IS NULL OR brand_id IN UNNEST(workspaces.brand_ids))',
    ')',
  ].join('\n');
}

/**
 * Snapshot tables: per workspace the newest covering run, and all of its rows (one per key). A key
 * that run did not return is gone, even if an older run had it.
 */
function snapshotLatestSql(t: TableDef, dataset: string): string {
  const key = t.naturalKey.map((c) => `t.${c}`).join(', ');
  return [
    `WITH ${recordedRuns(dataset)},`,
    `${ACCOUNT_WORKSPACES},`,
    `${coveredWorkspaces(t)},`,
    'newest AS (',
    '  SELECT account, brand_id, run_id',
    '  FROM covered',
    '  WHERE TRUE',
    `  QUALIFY ROW_NUMBER() OVER (PARTITION BY account, brand_id ORDER BY ${NEWEST_RUN_FIRST}) = 1`,
    ')',
    'SELECT t.*',
    `FROM ${table(dataset, t.name)} AS t`,
    'JOIN newest',
    '  ON newest.account = t.account AND newest.brand_id = t.brand_id AND newest.run_id = t.run_id',
    'WHERE TRUE',
    `QUALIFY ROW_NUMBER() OVER (PARTITION BY ${key} ORDER BY t.extracted_at DESC) = 1`,
  ].join('\n');
}

/**
 * Daily tables: each run re-reads only its window, so per workspace and day the newest covering
 * run that returned that day, and all of its rows for the day (one per key).
 */
function dailyLatestSql(t: TableDef, dataset: string): string {
  const key = t.naturalKey.map((c) => `t.${c}`).join(', ');
  return [
    `WITH ${recordedRuns(dataset)},`,
    `${ACCOUNT_WORKSPACES},`,
    `${coveredWorkspaces(t)}`,
    'SELECT t.*',
    `FROM ${table(dataset, t.name)} AS t`,
    'JOIN covered',
    '  ON covered.account = t.account AND covered.brand_id = t.brand_id AND covered.run_id = t.run_id',
    'WHERE TRUE',
    'QUALIFY RANK() OVER (',
    '    PARTITION BY t.account, t.brand_id, t.date ORDER BY covered.started_at DESC, t.run_id DESC',
    '  ) = 1',
    '  AND ROW_NUMBER() OVER (',
    `    PARTITION BY ${key} ORDER BY covered.started_at DESC, t.run_id DESC, t.extracted_at DESC`,
    '  ) = 1',
  ].join('\n');
}

const isDaily = (t: TableDef) => t.partitionField === 'date';
const REMOVED_WORKSPACES =
  "Workspaces that the account's newest succeeded run over all workspaces (no `--brand`) did not sync " +
  'have left the account (or the configured list) and are not shown; a partial or `--brand` run, or ' +
  'one whose workspace list was cut short (`workspace_list_incomplete`), never removes one.';

function latestDescription(t: TableDef): string {
  const key = `(${t.naturalKey.join(', ')})`;
  const history = 'History stays in the base table.';
  if (isAccountTable(t))
    return `Per account, the \`${t.name}\` row of the newest run that covered it. ${coverage(t)} ${COMPLETE_RUNS} ${history}`;
  const rule = isDaily(t)
    ? `Per workspace and day, the rows of the newest run that covered the workspace and returned that ` +
      `day, one per ${key}: each run re-reads only its window, so older days keep the run that last read them.`
    : `The current \`${t.name}\`: per workspace, the rows of the newest run that covered it, one per ` +
      `${key}; keys that run did not return are gone.`;
  return (
    `${rule} ${coverage(t)} ${COMPLETE_RUNS} A run with \`--endpoints\` that skipped a source, a ` +
    `workspace that failed, or a \`--brand\` run for other workspaces leaves the previous run's rows in ` +
    `place. ${REMOVED_WORKSPACES} ${history}`
  );
}

function latestView(t: TableDef): ViewDef {
  const sql = isAccountTable(t) ? accountLatestSql : isDaily(t) ? dailyLatestSql : snapshotLatestSql;
  const columns = [
    ...new Set([...t.naturalKey, ...(isAccountTable(t) ? [] : ['brand_id']), 'run_id', 'extracted_at']),
  ];
  return {
    name: `${t.name}_latest`,
    description: latestDescription(t),
    sql: (dataset) => sql(t, dataset),
    references: [
      { table: t.name, columns },
      { table: SYNC_RUNS.name, columns: RECORDED_RUN_COLUMNS },
    ],
  };
}

const recommendationStatusChanges: ViewDef = {
  name: 'recommendation_status_changes',
  description:
    'One row per observed status change of a recommendation: `status` on `snapshot_date` differs from ' +
    'the status of the previous snapshot (`previous_status`). Only runs with a `sync_runs` row count; ' +
    'per day the newest of them. Days whose status is NULL are skipped. A change is dated by the first ' +
    'snapshot that shows it, so gaps between runs make it later than the real change (see `updated_at` ' +
    'in `recommendations`).',
  sql: (dataset) =>
    [
      'WITH recorded AS (',
      `  SELECT DISTINCT account, run_id FROM ${table(dataset, SYNC_RUNS.name)}`,
      '),',
      'per_day AS (',
      '  SELECT r.account, r.brand_id, r.recommendation_id, r.snapshot_date, r.status',
      `  FROM ${table(dataset, 'recommendations')} AS r`,
      '  JOIN recorded ON recorded.account = r.account AND recorded.run_id = r.run_id',
      '  WHERE TRUE',
      '  QUALIFY ROW_NUMBER() OVER (',
      '    PARTITION BY r.account, r.brand_id, r.recommendation_id, r.snapshot_date',
      '    ORDER BY r.extracted_at DESC, r.run_id DESC',
      '  ) = 1',
      '),',
      'with_previous AS (',
      '  SELECT account, brand_id, recommendation_id, snapshot_date,',
      '    LAG(status) OVER (',
      '      PARTITION BY account, brand_id, recommendation_id ORDER BY snapshot_date',
      '    ) AS previous_status,',
      '    status',
      '  FROM per_day',
      '  WHERE status IS NOT NULL',
      ')',
      'SELECT account, brand_id, recommendation_id, snapshot_date, previous_status, status',
      'FROM with_previous',
      'WHERE previous_status IS NOT NULL AND previous_status != status',
    ].join('\n'),
  references: [
    {
      table: 'recommendations',
      columns: [
        'account',
        'brand_id',
        'recommendation_id',
        'snapshot_date',
        'status',
        'extracted_at',
        'run_id',
      ],
    },
    { table: SYNC_RUNS.name, columns: ['account', 'run_id'] },
  ],
};

export const VIEWS: readonly ViewDef[] = [
  ...TABLES.map(latestView),
  recommendationStatusChanges,
  ...CHANGE_VIEWS,
];
