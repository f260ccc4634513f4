// The table catalogue: one definition per table, from which the NDJSON files, the BigQuery
// schemas and docs/tables.md follow. Field names the upstream spec does not show are our
// assumptions (taken from the simulator's shapes); every such column says so, and `payload`
// keeps the full record so nothing depends on the assumption being right.
import {
  accountColumn,
  brandIdColumn,
  nullable,
  repeated,
  required,
  snapshotDateColumn,
  source,
  trailingColumns,
} from './columns.js';
import type { ColumnDef, TableDef } from './types.js';

const WORKSPACE_CLUSTERING = ['account', 'brand_id'] as const;

/** Workspace snapshot table: account, brand_id, snapshot_date, typed columns, provenance, payload. */
function workspaceSnapshot(
  def: Omit<TableDef, 'columns' | 'partitionField' | 'clustering'> & {
    typed: ColumnDef[];
    payload: string;
  },
): TableDef {
  const { typed, payload, ...rest } = def;
  return {
    ...rest,
    columns: [accountColumn(), brandIdColumn(), snapshotDateColumn(), ...typed, ...trailingColumns(payload)],
    partitionField: 'snapshot_date',
    clustering: WORKSPACE_CLUSTERING,
  };
}

function workspaceDaily(
  def: Omit<TableDef, 'columns' | 'partitionField' | 'clustering'> & {
    typed: ColumnDef[];
    payload: string;
  },
): TableDef {
  const { typed, payload, ...rest } = def;
  return {
    ...rest,
    columns: [
      accountColumn(),
      brandIdColumn(),
      nullable(
        'date',
        'DATE',
        'Calendar day of the score (UTC calendar date as sent). Partitioning column. NULL only when the ' +
          'source entry has no valid date (reported as schema drift). ' +
          source('data[].date', false),
      ),
      ...typed,
      ...trailingColumns(payload),
    ],
    partitionField: 'date',
    clustering: WORKSPACE_CLUSTERING,
  };
}

const FALLBACK_ID =
  'When the source record has no id, a deterministic `sha1:<hex>` of the record is used (reported as drift).';

const accounts: TableDef = {
  name: 'accounts',
  description:
    'The account behind each API key as returned by `GET /me`: plan, request limits and current usage. ' +
    'The spec documents only the three groups (plan, limits, usage); every field name below is assumed.',
  grain: 'account, snapshot_date, run_id',
  sources: ['me'],
  columns: [
    accountColumn(),
    snapshotDateColumn(),
    nullable('account_id', 'STRING', 'Upstream account id. ' + source('account.id', false)),
    nullable('account_name', 'STRING', 'Upstream account name. ' + source('account.name', false)),
    nullable('plan_name', 'STRING', 'Plan name, e.g. agency, concierge. ' + source('plan.name', false)),
    nullable(
      'api_access',
      'BOOL',
      'Whether the plan includes API access. ' + source('plan.api_access', false),
    ),
    nullable(
      'requests_per_minute',
      'INT64',
      'Request limit of the account, shared by all its keys. ' + source('limits.requests_per_minute', false),
    ),
    nullable(
      'window_seconds',
      'FLOAT64',
      'Length of the rate-limit window in seconds. ' + source('limits.window_seconds', false),
    ),
    nullable(
      'visibility_days_max',
      'INT64',
      'Largest `days` accepted by the visibility history. ' + source('limits.visibility_days_max', false),
    ),
    nullable(
      'buyer_intent_days_min',
      'INT64',
      'Smallest `days` accepted by the buyer-intent lens. ' + source('limits.buyer_intent_days.min', false),
    ),
    nullable(
      'buyer_intent_days_max',
      'INT64',
      'Largest `days` accepted by the buyer-intent lens. ' + source('limits.buyer_intent_days.max', false),
    ),
    nullable(
      'requests_in_window',
      'INT64',
      'Requests counted in the current rate-limit window when /me answered (includes this sync). ' +
        source('usage.requests_in_window', false),
    ),
    nullable(
      'workspace_count',
      'INT64',
      'Number of workspaces the account owns. ' + source('usage.workspaces', false),
    ),
    ...trailingColumns('The `/me` response object'),
  ],
  naturalKey: ['account'],
  partitionField: 'snapshot_date',
  clustering: ['account'],
};

const brands = workspaceSnapshot({
  name: 'brands',
  description:
    'Workspaces (brands) of the account, one snapshot per run: fields of the `GET /brands` list item ' +
    'merged with the `GET /brands/{id}` detail (engine mode, competitor count) and the latest score. ' +
    'A brand seen in only one of the two calls still gets a row (see `in_list`, `has_detail`).',
  grain: 'account, brand_id, snapshot_date, run_id',
  sources: ['brands', 'brand'],
  naturalKey: ['account', 'brand_id'],
  typed: [
    nullable('name', 'STRING', 'Display name. ' + source('name', true)),
    nullable('domain', 'STRING', 'Domain of the brand. ' + source('domain', true)),
    nullable('niche', 'STRING', 'Category label. ' + source('niche', true)),
    repeated('keywords', 'STRING', 'Tracked keywords or questions. ' + source('keywords', true)),
    nullable(
      'created_at',
      'TIMESTAMP',
      'When the workspace was created (UTC). ' + source('created_at', true),
    ),
    nullable(
      'engine_mode',
      'STRING',
      'Answer-engine mode of the workspace (simulator: all | selected); detail call only. ' +
        source('engine_mode', false),
    ),
    nullable(
      'competitor_count',
      'INT64',
      'Number of tracked competitors; detail call only. ' + source('competitor_count', false),
    ),
    nullable(
      'score_date',
      'DATE',
      'Day of the latest visibility score. ' + source('latest_score.date', true),
    ),
    nullable(
      'overall_score',
      'FLOAT64',
      'Latest overall visibility score (simulator: 0-100). ' + source('latest_score.overall_score', true),
    ),
    nullable(
      'share_of_voice',
      'FLOAT64',
      'Latest share of voice (simulator: percentage 0-100). ' + source('latest_score.share_of_voice', true),
    ),
    nullable('in_list', 'BOOL', 'TRUE when the brand appeared in the `GET /brands` list of this run.'),
    nullable('has_detail', 'BOOL', 'TRUE when `GET /brands/{id}` answered for this brand in this run.'),
  ],
  payload: 'The detail record deep-merged over the list item (detail wins on conflicts)',
});

const brandEngineScores = workspaceSnapshot({
  name: 'brand_engine_scores',
  description:
    "Per answer engine, the brand's latest visibility score (`latest_score.model_scores` exploded), " +
    'one snapshot per run.',
  grain: 'account, brand_id, snapshot_date, engine, run_id',
  sources: ['brands', 'brand'],
  naturalKey: ['account', 'brand_id', 'engine'],
  typed: [
    required(
      'engine',
      'STRING',
      'Answer-engine name, a key of `model_scores` (e.g. chatgpt, perplexity, gemini), or the `engine` of an ' +
        'item when `model_scores` is sent as a list of `{engine, score}` (a recognised shape, docs/simulator.md). ' +
        source('latest_score.model_scores.<engine>', true),
    ),
    nullable(
      'score',
      'FLOAT64',
      'Visibility score on that engine. ' + source('latest_score.model_scores.<engine>', true),
    ),
    nullable('score_date', 'DATE', 'Day of the latest score. ' + source('latest_score.date', true)),
  ],
  payload: 'The exploded map entry (or list item) as `{engine, score}`',
});

const visibilityDaily = workspaceDaily({
  name: 'visibility_daily',
  description:
    'Daily visibility score history (`GET /brands/{id}/visibility`), one row per day. Each run re-reads ' +
    'its window, so a day appears once per run that covered it; `visibility_daily_latest` keeps the newest.',
  grain: 'account, brand_id, date, run_id',
  sources: ['visibility'],
  naturalKey: ['account', 'brand_id', 'date'],
  typed: [
    nullable(
      'overall_score',
      'FLOAT64',
      'Overall visibility score of the day. ' + source('data[].overall_score', false),
    ),
    nullable(
      'share_of_voice',
      'FLOAT64',
      'Share of voice of the day. ' + source('data[].share_of_voice', false),
    ),
    nullable(
      'mentions',
      'INT64',
      'Number of answers that mentioned the brand that day. ' + source('data[].mentions', false),
    ),
    nullable(
      'prompts_tracked',
      'INT64',
      'Number of prompts tracked that day. ' + source('data[].prompts_tracked', false),
    ),
  ],
  payload: 'The history entry of the day',
});

const visibilityEngineDaily = workspaceDaily({
  name: 'visibility_engine_daily',
  description: 'Daily visibility score per answer engine: `model_scores` of each history entry exploded.',
  grain: 'account, brand_id, date, engine, run_id',
  sources: ['visibility'],
  naturalKey: ['account', 'brand_id', 'date', 'engine'],
  typed: [
    required(
      'engine',
      'STRING',
      'Answer-engine name, a key of `model_scores` (or the `engine` of a `{engine, score}` list item). ' +
        source('data[].model_scores', false),
    ),
    nullable(
      'score',
      'FLOAT64',
      'Visibility score on that engine that day. ' + source('data[].model_scores.<engine>', false),
    ),
  ],
  payload: 'The exploded map entry (or list item) as `{engine, score}`',
});

const recommendations = workspaceSnapshot({
  name: 'recommendations',
  description:
    'Recommendations of each workspace (`GET /brands/{id}/recommendations?status=all`), one snapshot per ' +
    'run. The API exposes no transitions: compare snapshots (view `recommendation_status_changes`). ' +
    '`recommendations_latest` holds the current set: those the newest complete run returned.',
  grain: 'account, brand_id, recommendation_id, snapshot_date, run_id',
  sources: ['recommendations'],
  naturalKey: ['account', 'brand_id', 'recommendation_id'],
  typed: [
    required(
      'recommendation_id',
      'STRING',
      `Recommendation id. ${FALLBACK_ID} ` + source('data[].id', false),
    ),
    nullable('title', 'STRING', 'Short title. ' + source('data[].title', false)),
    nullable(
      'description',
      'STRING',
      'Explanation of the recommendation. ' + source('data[].description', false),
    ),
    nullable(
      'category',
      'STRING',
      'Category (simulator: content, technical, citations, reviews, pr). ' + source('data[].category', false),
    ),
    nullable(
      'priority',
      'STRING',
      'Priority (simulator: high, medium, low). ' + source('data[].priority', false),
    ),
    nullable(
      'status',
      'STRING',
      'Status: open, done or dismissed (values documented by the status filter). ' +
        source('data[].status', false),
    ),
    nullable(
      'impact_score',
      'FLOAT64',
      'Expected impact (simulator: 1-10). ' + source('data[].impact_score', false),
    ),
    nullable(
      'created_at',
      'TIMESTAMP',
      'When the recommendation was created (UTC). ' + source('data[].created_at', false),
    ),
    nullable(
      'updated_at',
      'TIMESTAMP',
      'Last change, e.g. the status change (UTC). ' + source('data[].updated_at', false),
    ),
  ],
  payload: 'The recommendation record',
});

const prompts = workspaceSnapshot({
  name: 'prompts',
  description:
    'Tracked prompts of each workspace (`GET /brands/{id}/prompts`) with their latest ranking, one ' +
    'snapshot per run.',
  grain: 'account, brand_id, prompt_id, snapshot_date, run_id',
  sources: ['prompts'],
  naturalKey: ['account', 'brand_id', 'prompt_id'],
  typed: [
    required('prompt_id', 'STRING', `Prompt id. ${FALLBACK_ID} ` + source('data[].id', false)),
    nullable('text', 'STRING', 'The prompt as asked to answer engines. ' + source('data[].text', false)),
    nullable(
      'intent',
      'STRING',
      'Intent: money (buying) or informational. ' + source('data[].intent', false),
    ),
    repeated(
      'engines',
      'STRING',
      'Answer engines the prompt is tracked on. ' + source('data[].engines', false),
    ),
    nullable('created_at', 'TIMESTAMP', 'When tracking started (UTC). ' + source('data[].created_at', false)),
    nullable(
      'latest_position',
      'INT64',
      'Latest rank of the brand in answers (1 = first); NULL when not mentioned. ' +
        source('data[].latest_position', false),
    ),
    nullable(
      'mentioned',
      'BOOL',
      'Whether the latest answers mention the brand. ' + source('data[].mentioned', false),
    ),
  ],
  payload: 'The prompt record',
});

const buyerIntent = workspaceSnapshot({
  name: 'buyer_intent',
  description:
    'Buying-intent lens (`GET /brands/{id}/buyer-intent?days=N`): visibility on money prompts versus ' +
    'informational prompts, current losses with the winning competitor, and the why-you-lose analysis. ' +
    'One row per configured window per run.',
  grain: 'account, brand_id, window_days, snapshot_date, run_id',
  sources: ['buyer-intent'],
  naturalKey: ['account', 'brand_id', 'window_days'],
  typed: [
    required('window_days', 'INT64', 'The `days` window requested (7-90), as in the raw file name.'),
    nullable(
      'money_prompt_count',
      'INT64',
      'Number of money (buying) prompts. ' + source('money_prompts.count', false),
    ),
    nullable(
      'money_visibility',
      'FLOAT64',
      'Visibility on money prompts. ' + source('money_prompts.visibility', false),
    ),
    nullable(
      'informational_prompt_count',
      'INT64',
      'Number of informational prompts. ' + source('informational_prompts.count', false),
    ),
    nullable(
      'informational_visibility',
      'FLOAT64',
      'Visibility on informational prompts. ' + source('informational_prompts.visibility', false),
    ),
    nullable('visibility_gap', 'FLOAT64', 'Informational minus money visibility. ' + source('gap', false)),
    nullable(
      'loss_count',
      'INT64',
      'Number of entries in `losses` (derived): money prompts currently lost to a competitor.',
    ),
    nullable(
      'losses',
      'JSON',
      'Current losses, each `{prompt_id, prompt, engine, winner{name, domain}}`; use JSON_QUERY_ARRAY. A winner ' +
        'sent as a plain string (a recognised shape) is held as `{name, domain: null}`; `payload` keeps it as sent. ' +
        source('losses', false),
    ),
    nullable(
      'why_you_lose_summary',
      'STRING',
      'Summary of the latest why-you-lose analysis. ' + source('why_you_lose.summary', false),
    ),
    repeated(
      'why_you_lose_reasons',
      'STRING',
      'Reasons listed by the analysis. ' + source('why_you_lose.reasons', false),
    ),
    nullable(
      'why_you_lose_generated_at',
      'TIMESTAMP',
      'When the analysis was generated (UTC). ' + source('why_you_lose.generated_at', false),
    ),
  ],
  payload: 'The buyer-intent response object',
});

const reputation = workspaceSnapshot({
  name: 'reputation',
  description:
    'AI reputation snapshot (`GET /brands/{id}/reputation`) with derived counts; claims and conflicts ' +
    'are exploded into `reputation_claims` and `reputation_conflicts`.',
  grain: 'account, brand_id, snapshot_date, run_id',
  sources: ['reputation'],
  naturalKey: ['account', 'brand_id'],
  typed: [
    nullable(
      'generated_at',
      'TIMESTAMP',
      'When the snapshot was generated (UTC). ' + source('generated_at', false),
    ),
    nullable('engine_count', 'INT64', 'Number of answer engines with claims (derived from `engines`).'),
    nullable('claim_count', 'INT64', 'Number of claims over all engines (derived from `engines[].claims`).'),
    nullable('flag_count', 'INT64', 'Number of flags for suspected false claims (derived from `flags`).'),
    nullable('conflict_count', 'INT64', 'Number of conflicts between engines (derived from `conflicts`).'),
  ],
  payload: 'The reputation response object',
});

const reputationClaims = workspaceSnapshot({
  name: 'reputation_claims',
  description:
    'Factual claims answer engines make about the brand, from the reputation snapshot, with the flag ' +
    'for suspected false claims joined in.',
  grain: 'account, brand_id, engine, claim_id, snapshot_date, run_id',
  sources: ['reputation'],
  naturalKey: ['account', 'brand_id', 'engine', 'claim_id'],
  typed: [
    required(
      'engine',
      'STRING',
      'Answer engine making the claim (`claims[].engine` when the claims come as one flat list). ' +
        source('engines[].engine', false),
    ),
    required('claim_id', 'STRING', `Claim id. ${FALLBACK_ID} ` + source('engines[].claims[].id', false)),
    nullable('claim', 'STRING', 'The claim text. ' + source('engines[].claims[].claim', false)),
    nullable(
      'sentiment',
      'STRING',
      'Sentiment (simulator: positive, neutral, negative). ' + source('engines[].claims[].sentiment', false),
    ),
    nullable(
      'suspected_false',
      'BOOL',
      'The service suspects the claim is false. ' + source('engines[].claims[].suspected_false', false),
    ),
    required(
      'flagged',
      'BOOL',
      'TRUE when `flags` holds an entry for this claim (same claim id, and same engine when the flag names one; ' +
        'an entry may also be the claim id alone). ' +
        source('flags[].claim_id', false),
    ),
    nullable(
      'flag_reason',
      'STRING',
      'Reason given by the first matching flag. ' + source('flags[].reason', false),
    ),
  ],
  payload: 'The claim object with its engine added as `engine` (a flat-list claim as sent)',
});

const reputationConflicts = workspaceSnapshot({
  name: 'reputation_conflicts',
  description: 'Topics on which answer engines contradict each other, from the reputation snapshot.',
  grain: 'account, brand_id, conflict_id, snapshot_date, run_id',
  sources: ['reputation'],
  naturalKey: ['account', 'brand_id', 'conflict_id'],
  typed: [
    required('conflict_id', 'STRING', `Conflict id. ${FALLBACK_ID} ` + source('conflicts[].id', false)),
    nullable(
      'topic',
      'STRING',
      'What the engines disagree about (e.g. pricing). ' + source('conflicts[].topic', false),
    ),
    repeated('engines', 'STRING', 'The engines that disagree. ' + source('conflicts[].engines', false)),
    nullable(
      'description',
      'STRING',
      'Explanation of the conflict. ' + source('conflicts[].description', false),
    ),
  ],
  payload: 'The conflict object',
});

export const TABLES: readonly TableDef[] = [
  accounts,
  brands,
  brandEngineScores,
  visibilityDaily,
  visibilityEngineDaily,
  recommendations,
  prompts,
  buyerIntent,
  reputation,
  reputationClaims,
  reputationConflicts,
];
