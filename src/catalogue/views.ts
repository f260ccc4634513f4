// Views over the base tables: the current state of each table, read from complete runs only (runs
// with a `sync_runs` row, docs/tables.md), and recommendation status changes derived from daily
// snapshots (the API itself exposes no transitions).
//
// The SQL keeps to what BigQuery and DuckDB both accept where it can (QUALIFY, ARRAY_LENGTH), so
// the views are tested on DuckDB (test/views.test.ts); `x IN UNNEST(arr)`, `CROSS JOIN UNNEST`
// and backtick names are mapped for DuckDB by test/helpers/duckdb.ts. BigQuery accepts QUALIFY only
// in a query with WHERE, GROUP BY or HAVING, hence `WHERE TRUE`.
import { SYNC_RUNS } from './sync-runs.js';
import { TABLES } from './tables.js';
import type { TableDef, ViewDef } from './types.js';

const table = (dataset: string, name: string) => `\`${dataset}.${name}\``;

// Newest run first. Run ids do not order runs: a worker's ids carry only the day
// (`20261121-nightly-a1b2c3d4`); the id breaks ties.
const NEWEST_RUN_FIRST = 'started_at DESC, run_id DESC';

/** Each run once, as its newest sync_runs row says (a replay or a completion records it again). */
function recordedRuns(dataset: string): string {
  return [
    'runs AS (',
    '  SELECT account, run_id, started_at, status, endpoints, brand_filter, workspaces_succeeded,',
    '    tables_failed, error, workspace_list_incomplete',
    `  FROM ${table(dataset, SYNC_RUNS.name)}`,
    '  WHERE TRUE',
    '  QUALIFY ROW_NUMBER() OVER (PARTITION BY account, run_id ORDER BY recorded_at DESC) = 1',
    ')',
  ].join('\n');
}

const RECORDED_RUN_COLUMNS = [
  'account',
  'run_id',
  'recorded_at',
  'started_at',
  'status',
  'endpoints',
  'brand_filter',
  'workspaces_succeeded',
  'tables_failed',
  'error',
  'workspace_list_incomplete',
];

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

/** SQL condition: run `runs` called every source endpoint of the table and did not fail the table. */
function landedTable(t: TableDef): string {
  return [
    ...t.sources.map((e) => `'${e}' IN UNNEST(runs.endpoints)`),
    `'${t.name}' NOT IN UNNEST(runs.tables_failed)`,
  ].join(' AND ');
}

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
const isAccountTable = (t: TableDef) => !t.columns.some((c) => c.name === 'brand_id');

const COMPLETE_RUNS =
  'Only runs with a `sync_runs` row count (per run its newest), so a run that crashed before ' +
  'recording itself never shows; newest means started last (`sync_runs.started_at`).';

const REMOVED_WORKSPACES =
  "Workspaces that the account's newest succeeded run over all workspaces (no `--brand`) did not sync " +
  'have left the account (or the configured list) and are not shown; a partial or `--brand` run, or ' +
  'one whose workspace list was cut short (`workspace_list_incomplete`), never removes one.';

/** What makes a run cover the table, in words. */
function coverage(t: TableDef): string {
  const sources = t.sources.map((s) => `\`${s}\``).join(' and ');
  const called = `called ${sources}, did not fail the table (\`tables_failed\`)`;
  return isAccountTable(t)
    ? `A run covers the account when it ${called} and the account did not stop (\`error\`).`
    : `A run covers a workspace when it ${called} and synced the workspace (\`workspaces_succeeded\`).`;
}

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

// ---- Change views: what changed for a workspace between consecutive complete runs that covered the
// table (the runs of `_latest`, in start order), the same comparison as `brand_events`
// (src/events/detect.ts) over every pair of runs and without its thresholds.

const tableByName = (name: string): TableDef => TABLES.find((t) => t.name === name) as TableDef;

/** `runs`, then `pairs`: per workspace each run that covered the table, and the covering run before it. */
function consecutiveRuns(t: TableDef, dataset: string): string {
  return [
    `WITH ${recordedRuns(dataset)},`,
    'pairs AS (',
    '  SELECT runs.account, brand_id, runs.run_id, runs.started_at,',
    '    LAG(runs.run_id) OVER (',
    '      PARTITION BY runs.account, brand_id ORDER BY runs.started_at, runs.run_id',
    '    ) AS previous_run_id',
    '  FROM runs',
    '  CROSS JOIN UNNEST(runs.workspaces_succeeded) AS brand_id',
    `  WHERE ${landedTable(t)}`,
    ')',
  ].join('\n');
}

interface ChangeSpec {
  name: string;
  table: string;
  description: string;
  /** Columns that identify an item within a run: `[output name, SQL over alias t]`. */
  key: [string, string][];
  /** Other columns shown: `[output name, SQL over alias t]`. */
  shown: [string, string][];
  /** The rows that count (SQL over t), e.g. only flagged claims. */
  where?: string;
  /** Extra FROM clause after the table (an UNNEST). */
  join?: string;
  columns: readonly string[];
}

/** `items`: per run the spec's items, one row per key (a replayed load's duplicate rows once). */
function itemsCte(spec: ChangeSpec, dataset: string): string {
  const cols = [...spec.key, ...spec.shown].map(([n, e]) => `${e} AS ${n}`).join(', ');
  const key = spec.key.map(([, e]) => `, ${e}`).join('');
  return [
    'items AS (',
    `  SELECT t.account, t.brand_id, t.run_id, ${cols}`,
    `  FROM ${table(dataset, spec.table)} AS t${spec.join ? ` ${spec.join}` : ''}`,
    `  WHERE ${spec.where ?? 'TRUE'}`,
    `  QUALIFY ROW_NUMBER() OVER (PARTITION BY t.account, t.brand_id, t.run_id${key} ORDER BY t.extracted_at DESC) = 1`,
    ')',
  ].join('\n');
}

const SAME_WORKSPACE = (a: string, b: string) =>
  `${a}.account = ${b}.account AND ${a}.brand_id = ${b}.brand_id`;

/** Items that appear (`new`) or disappear (`gone`) between a workspace's consecutive runs. */
function setChangesView(spec: ChangeSpec): ViewDef {
  const t = tableByName(spec.table);
  const names = [...spec.key, ...spec.shown].map(([n]) => n);
  const sameKey = (a: string, b: string) => spec.key.map(([n]) => `${a}.${n} = ${b}.${n}`).join(' AND ');
  const side = (change: string, found: string, missing: string, run: string, other: string) =>
    [
      `SELECT p.account, p.brand_id, p.run_id, p.previous_run_id, p.started_at, '${change}' AS change,`,
      `  ${names.map((n) => `${found}.${n}`).join(', ')}`,
      'FROM pairs AS p',
      `JOIN items AS ${found} ON ${SAME_WORKSPACE(found, 'p')} AND ${found}.run_id = p.${run}`,
      `LEFT JOIN items AS ${missing}`,
      `  ON ${SAME_WORKSPACE(missing, 'p')} AND ${missing}.run_id = p.${other} AND ${sameKey(missing, found)}`,
      `WHERE p.previous_run_id IS NOT NULL AND ${missing}.run_id IS NULL`,
    ].join('\n');
  return {
    name: spec.name,
    description:
      `${spec.description} One row per item that is in a workspace's run and not in the previous run that ` +
      'covered the table (`change` = new), or the reverse (`change` = gone). ' +
      `${COMPLETE_RUNS} ${coverage(t)}`,
    sql: (dataset) =>
      [
        `${consecutiveRuns(t, dataset)},`,
        itemsCte(spec, dataset),
        side('new', 'i', 'b', 'run_id', 'previous_run_id'),
        'UNION ALL',
        side('gone', 'b', 'i', 'previous_run_id', 'run_id'),
      ].join('\n'),
    references: [
      { table: spec.table, columns: ['account', 'brand_id', 'run_id', 'extracted_at', ...spec.columns] },
      { table: SYNC_RUNS.name, columns: RECORDED_RUN_COLUMNS },
    ],
  };
}

/** Values that moved between a workspace's consecutive runs: `previous_x`, `x`, `x_delta`. */
function valueChangesView(spec: Omit<ChangeSpec, 'shown'> & { values: string[] }): ViewDef {
  const t = tableByName(spec.table);
  const keys = spec.key.map(([n]) => n);
  const moved = spec.values.map((v) => `b.${v} IS DISTINCT FROM i.${v}`).join(' OR ');
  return {
    name: spec.name,
    description:
      `${spec.description} One row per item whose value differs from the previous run that covered the ` +
      `table; \`_delta\` is the new value minus the previous one. ${COMPLETE_RUNS} ${coverage(t)}`,
    sql: (dataset) =>
      [
        `${consecutiveRuns(t, dataset)},`,
        itemsCte({ ...spec, shown: spec.values.map((v) => [v, `t.${v}`]) }, dataset),
        'SELECT p.account, p.brand_id, p.run_id, p.previous_run_id, p.started_at,',
        ...keys.map((k) => `  i.${k},`),
        spec.values
          .map((v) => `  b.${v} AS previous_${v}, i.${v}, i.${v} - b.${v} AS ${v}_delta`)
          .join(',\n'),
        'FROM pairs AS p',
        `JOIN items AS i ON ${SAME_WORKSPACE('i', 'p')} AND i.run_id = p.run_id`,
        `JOIN items AS b ON ${SAME_WORKSPACE('b', 'p')} AND b.run_id = p.previous_run_id${keys.map((k) => ` AND b.${k} = i.${k}`).join('')}`,
        `WHERE ${moved}`,
      ].join('\n'),
    references: [
      { table: spec.table, columns: ['account', 'brand_id', 'run_id', 'extracted_at', ...spec.columns] },
      { table: SYNC_RUNS.name, columns: RECORDED_RUN_COLUMNS },
    ],
  };
}

const CHANGE_VIEWS: readonly ViewDef[] = [
  setChangesView({
    name: 'reputation_flag_changes',
    table: 'reputation_claims',
    description: 'Suspected-false claims (flagged, or `suspected_false`) that appeared or were cleared.',
    key: [
      ['engine', 't.engine'],
      ['claim_id', 't.claim_id'],
    ],
    shown: [['claim', 't.claim']],
    where: 't.flagged IS TRUE OR t.suspected_false IS TRUE',
    columns: ['engine', 'claim_id', 'claim', 'flagged', 'suspected_false'],
  }),
  setChangesView({
    name: 'reputation_conflict_changes',
    table: 'reputation_conflicts',
    description: 'Conflicts between answer engines that appeared or were resolved.',
    key: [['conflict_id', 't.conflict_id']],
    shown: [['topic', 't.topic']],
    columns: ['conflict_id', 'topic'],
  }),
  setChangesView({
    name: 'buyer_intent_loss_changes',
    table: 'buyer_intent',
    description:
      'Money-prompt losses (`losses` exploded) that appeared or went, per buyer-intent window; a ' +
      'competitor with a `new` row it had no row for in the previous run is a new winning competitor.',
    key: [
      ['window_days', 't.window_days'],
      ['prompt_id', "JSON_VALUE(loss, '$.prompt_id')"],
      ['engine', "JSON_VALUE(loss, '$.engine')"],
      ['competitor', "JSON_VALUE(loss, '$.winner.name')"],
    ],
    shown: [['prompt', "JSON_VALUE(loss, '$.prompt')"]],
    join: 'CROSS JOIN UNNEST(JSON_QUERY_ARRAY(t.losses)) AS loss',
    columns: ['window_days', 'losses'],
  }),
  setChangesView({
    name: 'prompt_changes',
    table: 'prompts',
    description: 'Tracked prompts that were added or dropped.',
    key: [['prompt_id', 't.prompt_id']],
    shown: [
      ['text', 't.text'],
      ['intent', 't.intent'],
    ],
    columns: ['prompt_id', 'text', 'intent'],
  }),
  valueChangesView({
    name: 'engine_score_changes',
    table: 'brand_engine_scores',
    description: "Per answer engine, the workspace's latest score against the previous run's.",
    key: [['engine', 't.engine']],
    values: ['score'],
    columns: ['engine', 'score'],
  }),
  valueChangesView({
    name: 'share_of_voice_changes',
    table: 'brands',
    description: "The workspace's latest overall score and share of voice against the previous run's.",
    key: [],
    values: ['share_of_voice', 'overall_score'],
    columns: ['share_of_voice', 'overall_score'],
  }),
];

export const VIEWS: readonly ViewDef[] = [
  ...TABLES.map(latestView),
  recommendationStatusChanges,
  ...CHANGE_VIEWS,
];
