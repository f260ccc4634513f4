// Change views: what changed for a workspace between consecutive complete runs that covered the
// table (the runs of `_latest`, in start order), the same comparison as `brand_events`
// (src/events/detect.ts) over every pair of runs and without its thresholds.

import type { Sql } from './sql-dialect.js';
import { SYNC_RUNS } from './sync-runs.js';
import { TABLES } from './tables.js';
import type { TableDef, ViewDef } from './types.js';
import {
  COMPLETE_RUNS,
  coverage,
  landedTable,
  RECORDED_RUN_COLUMNS,
  recordedRuns,
  viewDef,
} from './view-sql.js';

const tableByName = (name: string): TableDef => TABLES.find((t) => t.name === name) as TableDef;

/** `runs`, then `pairs`: per workspace each run that covered the table, and the covering run before it. */
function consecutiveRuns(t: TableDef, sql: Sql): string {
  return [
    `WITH ${recordedRuns(sql)},`,
    'pairs AS (',
    '  SELECT runs.account, brand_id, runs.run_id, runs.started_at,',
    '    LAG(runs.run_id) OVER (',
    '      PARTITION BY runs.account, brand_id ORDER BY runs.started_at, runs.run_id',
    '    ) AS previous_run_id',
    '  FROM runs',
    `  ${sql.crossJoinUnnest('runs.workspaces_succeeded', 'brand_id')}`,
    `  WHERE ${landedTable(t, sql)}`,
    ')',
  ].join('\n');
}

/** SQL text, or SQL that depends on the engine. */
type Expr = string | ((sql: Sql) => string);
const expr = (e: Expr, sql: Sql) => (typeof e === 'string' ? e : e(sql));

interface ChangeSpec {
  name: string;
  table: string;
  description: string;
  /** Columns that identify an item within a run: `[output name, SQL over alias t]`. */
  key: [string, Expr][];
  /** Other columns shown: `[output name, SQL over alias t]`. */
  shown: [string, Expr][];
  /** The rows that count (SQL over t), e.g. only flagged claims. */
  where?: Expr;
  /** Extra FROM clause after the table (an UNNEST). */
  join?: Expr;
  columns: readonly string[];
}

/** `items`: per run the spec's items, one row per key (a replayed load's duplicate rows once). */
function itemsCte(spec: ChangeSpec, sql: Sql): string {
  const items = [...spec.key, ...spec.shown];
  const cols = items.map(([n, e]) => `${expr(e, sql)} AS ${n}`).join(', ');
  const key = spec.key.map(([, e]) => `, ${expr(e, sql)}`).join('');
  return [
    'items AS (',
    ...sql.qualified(
      {
        select: `t.account, t.brand_id, t.run_id, ${cols}`,
        columns: ['account', 'brand_id', 'run_id', ...items.map(([n]) => n)],
        from: [`FROM ${sql.table(spec.table)} AS t${spec.join ? ` ${expr(spec.join, sql)}` : ''}`],
        where: [spec.where ? expr(spec.where, sql) : 'TRUE'],
        keep: [
          `ROW_NUMBER() OVER (PARTITION BY t.account, t.brand_id, t.run_id${key} ORDER BY t.extracted_at DESC)`,
        ],
      },
      '  ',
    ),
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
  return viewDef({
    name: spec.name,
    description:
      `${spec.description} One row per item that is in a workspace's run and not in the previous run that ` +
      'covered the table (`change` = new), or the reverse (`change` = gone). ' +
      `${COMPLETE_RUNS} ${coverage(t)}`,
    render: (sql) =>
      [
        `${consecutiveRuns(t, sql)},`,
        itemsCte(spec, sql),
        side('new', 'i', 'b', 'run_id', 'previous_run_id'),
        'UNION ALL',
        side('gone', 'b', 'i', 'previous_run_id', 'run_id'),
      ].join('\n'),
    references: [
      { table: spec.table, columns: ['account', 'brand_id', 'run_id', 'extracted_at', ...spec.columns] },
      { table: SYNC_RUNS.name, columns: RECORDED_RUN_COLUMNS },
    ],
  });
}

/** Values that moved between a workspace's consecutive runs: `previous_x`, `x`, `x_delta`. */
function valueChangesView(spec: Omit<ChangeSpec, 'shown'> & { values: string[] }): ViewDef {
  const t = tableByName(spec.table);
  const keys = spec.key.map(([n]) => n);
  const moved = spec.values.map((v) => `b.${v} IS DISTINCT FROM i.${v}`).join(' OR ');
  return viewDef({
    name: spec.name,
    description:
      `${spec.description} One row per item whose value differs from the previous run that covered the ` +
      `table; \`_delta\` is the new value minus the previous one. ${COMPLETE_RUNS} ${coverage(t)}`,
    render: (sql) =>
      [
        `${consecutiveRuns(t, sql)},`,
        itemsCte({ ...spec, shown: spec.values.map((v) => [v, `t.${v}`]) }, sql),
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
  });
}

export const CHANGE_VIEWS: readonly ViewDef[] = [
  setChangesView({
    name: 'reputation_flag_changes',
    table: 'reputation_claims',
    description: 'Suspected-false claims (flagged, or `suspected_false`) that appeared or were cleared.',
    key: [
      ['engine', 't.engine'],
      ['claim_id', 't.claim_id'],
    ],
    shown: [['claim', 't.claim']],
    where: (sql) => `${sql.isTrue('t.flagged')} OR ${sql.isTrue('t.suspected_false')}`,
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
      ['prompt_id', (sql) => sql.jsonValue('loss', "'$.prompt_id'")],
      ['engine', (sql) => sql.jsonValue('loss', "'$.engine'")],
      ['competitor', (sql) => sql.jsonValue('loss', "'$.winner.name'")],
    ],
    shown: [['prompt', (sql) => sql.jsonValue('loss', "'$.prompt'")]],
    join: (sql) => sql.crossJoinJsonArray('t.losses', 'loss'),
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
