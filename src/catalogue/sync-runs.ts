// `sync_runs`: one row per finished run, built from its manifest and loaded after every other table
// of the run. It is the warehouse's record of which loads are complete: the `{table}_latest` views
// read only runs that have a row here (docs/tables.md). Like dlt's `_dlt_loads`, it is a table of
// the sync itself, so it has no API source and is not curated from raw files.

import { RUN_ERROR_CODES } from '../util/errors.js';
import { accountColumn, nullable, repeated, required, runIdColumn } from './columns.js';
import type { TableDef } from './types.js';

export const SYNC_RUNS: TableDef = {
  name: 'sync_runs',
  description:
    'One row per finished sync run (from its manifest, `runs/account={account}/run={run_id}/manifest.json`), loaded ' +
    'after all other tables of the run: a run without a row here did not complete, and its rows never ' +
    'show in the `_latest` views. A run completed later (an interrupted run, or `visync replay`) gets a ' +
    'newer row with a later `recorded_at`: per run, read the row with the newest `recorded_at`.',
  grain: 'account, run_id, recorded_at',
  sources: [],
  naturalKey: ['account', 'run_id'],
  columns: [
    accountColumn(),
    runIdColumn(),
    required(
      'kind',
      'STRING',
      'How the run was started: nightly (scheduled), sync (`run --once` or `enqueue sync`) or backfill.',
    ),
    required(
      'status',
      'STRING',
      'succeeded (every workspace and table), partial (some failed, the rest landed; or completed after ' +
        'its process stopped) or failed (the account stopped, or every workspace failed).',
    ),
    required('run_date', 'DATE', "The run's logical date (UTC), its snapshot_date. Partitioning column."),
    required('window_start', 'DATE', 'First day of the visibility window the run asked for.'),
    required('window_end', 'DATE', 'Last day of the visibility window (the run date).'),
    required('started_at', 'TIMESTAMP', 'When the run started (UTC).'),
    required('finished_at', 'TIMESTAMP', 'When the run finished, before this row was loaded (UTC).'),
    required(
      'recorded_at',
      'TIMESTAMP',
      'When this row was written (UTC); a replay or completion of the same run writes a newer row.',
    ),
    required(
      'requests',
      'INT64',
      'API calls made, retries included (for a queued run whose counters Redis lost, its landed raw files: successful calls only; its manifest says requests_from raw landing).',
    ),
    required('rate_limited', 'INT64', 'Responses that were 429 (rate limited).'),
    required('retries', 'INT64', 'Calls repeated after a 429, 5xx or network error.'),
    required('waited_ms', 'INT64', 'Milliseconds spent waiting on the rate budget and Retry-After.'),
    repeated(
      'endpoints',
      'STRING',
      'API endpoints the run was asked to call: me and brands always, then its workspace endpoints (brand, ' +
        'visibility, recommendations, prompts, buyer-intent, reputation; a `--endpoints` run lists fewer).',
    ),
    repeated(
      'brand_filter',
      'STRING',
      'The workspaces the run was limited to (`--brand`); empty when it covered every workspace of the ' +
        'account, so its workspaces_succeeded and workspaces_failed are then the whole account.',
    ),
    repeated(
      'workspaces_succeeded',
      'STRING',
      'Workspaces (brand ids) whose every call of the run landed: the run speaks for these. Empty for a ' +
        'run completed after its process stopped (failures has a `run` entry): which calls landed is not known.',
    ),
    repeated(
      'workspaces_failed',
      'STRING',
      'Workspaces with a call that failed for good (reasons in `failures`).',
    ),
    repeated(
      'tables_failed',
      'STRING',
      'Tables of the run that were not curated or not loaded (reasons in `failures`).',
    ),
    required(
      'table_rows',
      'JSON',
      'Rows the run loaded (or curated, without a warehouse) per table: `{"recommendations": 120, ...}`; ' +
        'tables in tables_failed and tables the run had no rows for are not listed.',
    ),
    required(
      'failures',
      'JSON',
      'Array of `{scope, id, reason}`: why the run is not succeeded. scope is account (id: the account), ' +
        'workspace (id: brand id), table (id: table name), workspace_list (id: brands; GET /brands listed ' +
        'fewer workspaces than its count) or run (id: run id; a run completed after its process stopped, ' +
        'so calls that had not landed are missing).',
    ),
    nullable(
      'workspace_list_incomplete',
      'BOOL',
      'True when GET /brands listed fewer workspaces than its `count` says the account has (a paged ' +
        'or cut-short list): the run synced only those listed and is partial, and the `_latest` views ' +
        'never take the workspaces it did not list as removed. Null in rows recorded before it was kept.',
    ),
    required('drift_findings', 'INT64', 'Number of schema-drift findings of the run.'),
    required(
      'drift',
      'JSON',
      'The drift findings as in the manifest: array of `{endpoint, kind, detail, example, count}`.',
    ),
    nullable(
      'error',
      'STRING',
      'Why the whole account stopped (revoked key, plan without API access), if it did.',
    ),
    nullable(
      'error_code',
      'STRING',
      'Why `error`, as a code that never changes (match on this, never on the text of `error`): ' +
        `${RUN_ERROR_CODES.filter((c) => c !== 'unknown').join(', ')}; ` +
        'unknown for a run recorded before codes were. Null when `error` is.',
    ),
    nullable(
      'load_batch_id',
      'STRING',
      'The load batch that loaded the run with other runs into this dataset (queued runs: one load job ' +
        'per table per batch, the job ids in the manifest); null when the run was loaded by jobs of its ' +
        'own (`run --once`, a replay of a run loaded that way) or not loaded.',
    ),
  ],
  partitionField: 'run_date',
  clustering: ['account'],
};
