// `brand_events`: what changed for each workspace between two consecutive complete runs, computed
// at the end of a run's curate stage (src/events/curate.ts) from curated rows only, so a replay of
// the run writes the same rows. Like `sync_runs` it has no API source of its own.
import {
  accountColumn,
  brandIdColumn,
  nullable,
  required,
  runIdColumn,
  snapshotDateColumn,
} from './columns.js';
import type { TableDef } from './types.js';

export const EVENT_TYPES = [
  'score_drop',
  'score_rise',
  'engine_score_drop',
  'engine_score_rise',
  'share_of_voice_drop',
  'false_claim_new',
  'false_claim_resolved',
  'conflict_new',
  'conflict_resolved',
  'competitor_new',
  'recommendation_opened',
  'recommendation_closed',
  'recommendation_unlisted',
  'workspace_added',
  'workspace_removed',
  'payload_changed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const SEVERITIES = ['high', 'medium', 'low'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const BRAND_EVENTS: TableDef = {
  name: 'brand_events',
  description:
    "One row per change of a workspace between the account's previous complete run that covered it and " +
    "this run, written with the run's other tables and loaded with them. `event_id` derives from run, " +
    'workspace, type and key, so a replay or a retried load adds no row (read per `event_id` its newest). ' +
    'A section (scores, reputation, buyer intent, recommendations) is compared only when both runs ' +
    'landed it for the workspace; workspaces are added or removed only between runs whose workspace ' +
    'list was whole (`sync_runs.workspace_list_incomplete`). Score moves under 1 point and share-of-voice ' +
    'moves under 1 percentage point are not recorded; watch rules (docs/operations.md) choose which events are alerted.',
  grain: 'account, brand_id, run_id, event_type, key',
  sources: [],
  naturalKey: ['account', 'brand_id', 'event_type', 'key'],
  columns: [
    accountColumn(),
    brandIdColumn(),
    snapshotDateColumn(),
    runIdColumn(),
    required(
      'event_id',
      'STRING',
      'sha256 (hex, 32 characters) of account, run_id, brand_id, event_type and key.',
    ),
    required(
      'previous_run_id',
      'STRING',
      'The complete run compared with: the newest one that started before this run and covered the section.',
    ),
    required(
      'event_type',
      'STRING',
      'score_drop, score_rise (overall score), engine_score_drop, engine_score_rise, share_of_voice_drop, ' +
        'false_claim_new, false_claim_resolved, conflict_new, conflict_resolved, competitor_new (wins a money ' +
        'prompt), recommendation_opened, recommendation_closed (now listed done or dismissed), ' +
        'recommendation_unlisted (open before, no longer listed), workspace_added, workspace_removed, ' +
        'payload_changed (the fields an endpoint sends changed: `before` lists the fields gone, `after` those new).',
    ),
    required(
      'key',
      'STRING',
      'What changed: `overall`, `share_of_voice`, the engine, `engine/claim_id`, the conflict id, the ' +
        'competitor name, the recommendation id, the workspace id, or the endpoint (payload_changed).',
    ),
    nullable(
      'before',
      'STRING',
      'The value or record before (a number, or JSON text); NULL for something new.',
    ),
    nullable(
      'after',
      'STRING',
      'The value or record after (a number, or JSON text); NULL for something gone.',
    ),
    nullable(
      'magnitude',
      'FLOAT64',
      'Size of the change: score points or percentage points (after minus before); 1 for a new or gone item; ' +
        'the number of fields added and removed for payload_changed.',
    ),
    required('severity', 'STRING', 'high, medium or low (docs/operations.md, "Brand watch").'),
    required('detected_at', 'TIMESTAMP', 'When the run started (UTC): the same on a replay of the run.'),
  ],
  partitionField: 'snapshot_date',
  clustering: ['account', 'brand_id'],
};
