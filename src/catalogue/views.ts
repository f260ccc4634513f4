// Views over the base tables: the current state of each table, read from complete runs only (runs
// with a `sync_runs` row, docs/tables.md), and recommendation status changes derived from daily
// snapshots (the API itself exposes no transitions).
//
// Each view is defined once and rendered for BigQuery, DuckDB and Athena through ./sql-dialect.ts
// (QUALIFY, array membership, UNNEST and JSON spelt per engine). The views run on DuckDB in tests
// both as rendered for DuckDB and as their BigQuery text mapped by test/helpers/duckdb.ts
// (test/views.test.ts, test/dialects.test.ts). The change views between runs are in ./change-views.ts.

import { BRAND_EVENTS } from './brand-events.js';
import { CHANGE_VIEWS } from './change-views.js';
import type { Sql } from './sql-dialect.js';
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
  viewDef,
} from './view-sql.js';

/**
 * The account's workspaces: those of its newest succeeded run over every workspace (no --brand).
 * Only a succeeded run is sure to list them all (a run completed from an interrupted landing may
 * not), and only one whose GET /brands was whole (a list cut short leaves workspaces out whatever
 * the run's status says; rows recorded before the column existed have it null).
 */
function accountWorkspaces(sql: Sql): string {
  return [
    'workspaces AS (',
    ...sql.qualified(
      {
        select: 'account, workspaces_succeeded AS brand_ids',
        columns: ['account', 'brand_ids'],
        from: ['FROM runs'],
        where: [
          `status = 'succeeded' AND ${sql.arrayLength('brand_filter')} = 0 AND ${sql.contains('endpoints', "'brands'")}`,
          `  AND ${sql.isNotTrue('workspace_list_incomplete')}`,
        ],
        keep: [`ROW_NUMBER() OVER (PARTITION BY account ORDER BY ${NEWEST_RUN_FIRST})`],
      },
      '  ',
    ),
    ')',
  ].join('\n');
}

/** The view's output columns: the table's (Trino has no QUALIFY, so they are listed, not `t.*`). */
const columnsOf = (t: TableDef) => t.columns.map((c) => c.name);

/** `{table}_latest` of `accounts`: the newest covering run per account. */
function accountLatestSql(t: TableDef, sql: Sql): string {
  const key = t.naturalKey.map((c) => `t.${c}`).join(', ');
  return [
    `WITH ${recordedRuns(sql)},`,
    'newest AS (',
    ...sql.qualified(
      {
        select: 'runs.account, runs.run_id',
        columns: ['account', 'run_id'],
        from: ['FROM runs'],
        where: [`runs.error IS NULL AND ${landedTable(t, sql)}`],
        keep: [`ROW_NUMBER() OVER (PARTITION BY runs.account ORDER BY ${NEWEST_RUN_FIRST})`],
      },
      '  ',
    ),
    ')',
    ...sql.qualified({
      select: 't.*',
      columns: columnsOf(t),
      from: [
        `FROM ${sql.table(t.name)} AS t`,
        'JOIN newest ON newest.account = t.account AND newest.run_id = t.run_id',
      ],
      keep: [`ROW_NUMBER() OVER (PARTITION BY ${key} ORDER BY t.extracted_at DESC)`],
    }),
  ].join('\n');
}

/** (run, workspace) pairs whose rows of the table the run landed, for workspaces still in the account. */
function coveredWorkspaces(t: TableDef, sql: Sql): string {
  return [
    'covered AS (',
    '  SELECT runs.account, runs.run_id, runs.started_at, brand_id',
    '  FROM runs',
    `  ${sql.crossJoinUnnest('runs.workspaces_succeeded', 'brand_id')}`,
    '  LEFT JOIN workspaces ON workspaces.account = runs.account',
    `  WHERE ${landedTable(t, sql)}`,
    `    AND (workspaces.account IS NULL OR ${sql.contains('workspaces.brand_ids', 'brand_id')})`,
    ')',
  ].join('\n');
}

/**
 * Snapshot tables: per workspace the newest covering run, and all of its rows (one per key). A key
 * that run did not return is gone, even if an older run had it.
 */
function snapshotLatestSql(t: TableDef, sql: Sql): string {
  const key = t.naturalKey.map((c) => `t.${c}`).join(', ');
  return [
    `WITH ${recordedRuns(sql)},`,
    `${accountWorkspaces(sql)},`,
    `${coveredWorkspaces(t, sql)},`,
    'newest AS (',
    ...sql.qualified(
      {
        select: 'account, brand_id, run_id',
        columns: ['account', 'brand_id', 'run_id'],
        from: ['FROM covered'],
        keep: [`ROW_NUMBER() OVER (PARTITION BY account, brand_id ORDER BY ${NEWEST_RUN_FIRST})`],
      },
      '  ',
    ),
    ')',
    ...sql.qualified({
      select: 't.*',
      columns: columnsOf(t),
      from: [
        `FROM ${sql.table(t.name)} AS t`,
        'JOIN newest',
        '  ON newest.account = t.account AND newest.brand_id = t.brand_id AND newest.run_id = t.run_id',
      ],
      keep: [`ROW_NUMBER() OVER (PARTITION BY ${key} ORDER BY t.extracted_at DESC)`],
    }),
  ].join('\n');
}

/**
 * Daily tables: each run re-reads only its window, so per workspace and day the newest covering
 * run that returned that day, and all of its rows for the day (one per key).
 */
function dailyLatestSql(t: TableDef, sql: Sql): string {
  const key = t.naturalKey.map((c) => `t.${c}`).join(', ');
  return [
    `WITH ${recordedRuns(sql)},`,
    `${accountWorkspaces(sql)},`,
    `${coveredWorkspaces(t, sql)}`,
    ...sql.qualified({
      select: 't.*',
      columns: columnsOf(t),
      from: [
        `FROM ${sql.table(t.name)} AS t`,
        'JOIN covered',
        '  ON covered.account = t.account AND covered.brand_id = t.brand_id AND covered.run_id = t.run_id',
      ],
      keep: [
        [
          'RANK() OVER (',
          '    PARTITION BY t.account, t.brand_id, t.date ORDER BY covered.started_at DESC, t.run_id DESC',
          '  )',
        ].join('\n'),
        [
          'ROW_NUMBER() OVER (',
          `    PARTITION BY ${key} ORDER BY covered.started_at DESC, t.run_id DESC, t.extracted_at DESC`,
          '  )',
        ].join('\n'),
      ],
    }),
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
  return viewDef({
    name: `${t.name}_latest`,
    description: latestDescription(t),
    key: t.naturalKey,
    render: (s) => sql(t, s),
    references: [
      { table: t.name, columns },
      { table: SYNC_RUNS.name, columns: RECORDED_RUN_COLUMNS },
    ],
  });
}

const recommendationStatusChanges: ViewDef = viewDef({
  name: 'recommendation_status_changes',
  description:
    'One row per observed status change of a recommendation: `status` on `snapshot_date` differs from ' +
    'the status of the previous snapshot (`previous_status`). Only runs with a `sync_runs` row count; ' +
    'per day the newest of them. Days whose status is NULL are skipped. A change is dated by the first ' +
    'snapshot that shows it, so gaps between runs make it later than the real change (see `updated_at` ' +
    'in `recommendations`).',
  render: (sql) =>
    [
      'WITH recorded AS (',
      `  SELECT DISTINCT account, run_id FROM ${sql.table(SYNC_RUNS.name)}`,
      '),',
      'per_day AS (',
      ...sql.qualified(
        {
          select: 'r.account, r.brand_id, r.recommendation_id, r.snapshot_date, r.status',
          columns: ['account', 'brand_id', 'recommendation_id', 'snapshot_date', 'status'],
          from: [
            `FROM ${sql.table('recommendations')} AS r`,
            'JOIN recorded ON recorded.account = r.account AND recorded.run_id = r.run_id',
          ],
          keep: [
            [
              'ROW_NUMBER() OVER (',
              '  PARTITION BY r.account, r.brand_id, r.recommendation_id, r.snapshot_date',
              '  ORDER BY r.extracted_at DESC, r.run_id DESC',
              ')',
            ].join('\n'),
          ],
        },
        '  ',
      ),
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
});

/**
 * `sync_runs_latest`: each run once, as its newest row says. A replay or the completion of an
 * interrupted run records the run again with a later `recorded_at`; readers that count runs or
 * ask whether a run completed want the newest row only (docs/tables.md).
 */
const syncRunsLatest: ViewDef = viewDef({
  name: `${SYNC_RUNS.name}_latest`,
  key: ['account', 'run_id'],
  description:
    'Each run once: per `account` and `run_id`, the `sync_runs` row with the newest `recorded_at` ' +
    '(a replay or the completion of an interrupted run records the run again). A run without a row ' +
    'did not complete and is not here. The completeness every other view reads.',
  render: (sql) =>
    sql
      .qualified({
        select: 'r.*',
        columns: SYNC_RUNS.columns.map((c) => c.name),
        from: [`FROM ${sql.table(SYNC_RUNS.name)} AS r`],
        keep: ['ROW_NUMBER() OVER (PARTITION BY r.account, r.run_id ORDER BY r.recorded_at DESC)'],
      })
      .join('\n'),
  references: [{ table: SYNC_RUNS.name, columns: ['account', 'run_id', 'recorded_at'] }],
});

/**
 * `brand_events_latest`: the events of complete runs, each once. Events are written with the run's
 * other tables, so a run that crashed before recording itself has events but no `sync_runs` row;
 * a replay or a retried load writes the same `event_id` again.
 */
const brandEventsLatest: ViewDef = viewDef({
  name: `${BRAND_EVENTS.name}_latest`,
  key: ['event_id'],
  description:
    'The `brand_events` of runs with a `sync_runs` row (complete runs), one row per `event_id` ' +
    '(a replay or a retried load writes the same event again). Events are history, not a state: ' +
    "every complete run's events stay; filter on `snapshot_date` for a night.",
  render: (sql) =>
    [
      'WITH recorded AS (',
      `  SELECT DISTINCT account, run_id FROM ${sql.table(SYNC_RUNS.name)}`,
      ')',
      ...sql.qualified({
        select: 'e.*',
        columns: BRAND_EVENTS.columns.map((c) => c.name),
        from: [
          `FROM ${sql.table(BRAND_EVENTS.name)} AS e`,
          'JOIN recorded ON recorded.account = e.account AND recorded.run_id = e.run_id',
        ],
        keep: ['ROW_NUMBER() OVER (PARTITION BY e.event_id ORDER BY e.run_id DESC)'],
      }),
    ].join('\n'),
  references: [
    { table: BRAND_EVENTS.name, columns: ['account', 'run_id', 'event_id'] },
    { table: SYNC_RUNS.name, columns: ['account', 'run_id'] },
  ],
});

export const VIEWS: readonly ViewDef[] = [
  ...TABLES.map(latestView),
  brandEventsLatest,
  syncRunsLatest,
  recommendationStatusChanges,
  ...CHANGE_VIEWS,
];
