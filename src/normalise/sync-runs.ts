// A finished run's manifest as its `sync_runs` row (src/catalogue/sync-runs.ts). Pure: the row
// says what the manifest says, so the warehouse and the sink never disagree about a run.
import { type RawEndpoint, WORKSPACE_ENDPOINTS } from '../api/endpoints.js';
import type { Row } from '../catalogue/types.js';
import { storedCode, storedText } from '../records/error-code.js';
import type { Manifest } from '../records/manifest.js';
import { workspaceListIncomplete } from '../records/manifest.js';
import { runScope } from '../records/run-scope.js';
import { parseTablePartKey } from '../sinks/layout.js';

export interface SyncRunsRowOptions {
  /** When this row is written (UTC ISO): a later recording of the same run has a later one. */
  recordedAt: string;
  /**
   * A warehouse was configured: `table_rows` counts the rows each table loaded. Without one it
   * counts the rows the run curated into the sink.
   */
  warehouse: boolean;
  /** The load batch that loads this row (queued runs into BigQuery); default: the one of its table loads. */
  loadBatchId?: string | undefined;
}

export interface RunFailure {
  scope: 'account' | 'workspace' | 'workspace_list' | 'table' | 'run';
  id: string;
  reason: string;
}

/** The table this row belongs to: its own rows are never counted in `table_rows` or failures. */
const SELF = 'sync_runs';

export function syncRunsRow(m: Manifest, o: SyncRunsRowOptions): Row {
  const scope = m.scope ?? runScope();
  const failedLoads = m.loads.filter((l) => l.status === 'failed' && l.table !== SELF);
  return {
    account: m.account,
    run_id: m.run_id,
    kind: m.kind,
    status: m.status,
    run_date: m.run_date,
    window_start: m.window.from,
    window_end: m.window.to,
    started_at: m.started_at,
    finished_at: m.finished_at,
    recorded_at: o.recordedAt,
    requests: m.requests.calls,
    rate_limited: m.requests.rate_limited,
    retries: m.requests.retries,
    waited_ms: m.requests.waited_ms,
    endpoints: runEndpoints(scope.endpoints),
    brand_filter: scope.brands === 'all' ? [] : [...scope.brands],
    workspaces_succeeded: m.interrupted ? [] : succeeded(m),
    workspaces_failed: m.workspaces.filter((w) => w.status === 'failed').map((w) => w.brand_id),
    tables_failed: [...new Set(failedLoads.map((l) => l.table))],
    table_rows: o.warehouse ? loadedRows(m) : curatedRows(m),
    failures: runFailures(m),
    workspace_list_incomplete: workspaceListIncomplete(m) !== undefined,
    drift_findings: m.drift.length,
    drift: m.drift.map((d) => ({
      endpoint: d.endpoint,
      kind: d.kind,
      detail: d.detail,
      example: d.example ?? null,
      count: d.count ?? null,
    })),
    error: m.error === undefined ? null : storedText(m.account, m.error),
    error_code: storedCode(m) ?? null,
    load_batch_id: o.loadBatchId ?? m.loads.find((l) => l.load_batch_id)?.load_batch_id ?? null,
  };
}

/**
 * Workspaces the run speaks for. A run completed from the raw landing of a stopped process lists
 * every workspace with a landed file as succeeded, though calls that had not landed are missing:
 * it speaks for none, so a view never takes its rows as a workspace's whole state.
 */
function succeeded(m: Manifest): string[] {
  return m.workspaces.filter((w) => w.status === 'succeeded').map((w) => w.brand_id);
}

/** `me` and `brands` (every run discovers its workspaces), then the workspace endpoints of its scope. */
function runEndpoints(endpoints: 'all' | readonly string[]): RawEndpoint[] {
  const asked = WORKSPACE_ENDPOINTS.filter((e) => endpoints === 'all' || endpoints.includes(e));
  return ['me', 'brands', ...asked];
}

/** Rows per table that landed in the warehouse (failed loads are in `tables_failed`). */
function loadedRows(m: Manifest): Record<string, number> {
  const rows: Record<string, number> = {};
  for (const l of m.loads) if (l.status === 'succeeded' && l.table !== SELF) rows[l.table] = l.rows;
  return sorted(rows);
}

/** Rows per table in the run's curated parts. */
function curatedRows(m: Manifest): Record<string, number> {
  const rows: Record<string, number> = {};
  for (const f of m.files) {
    const part = parseTablePartKey(f.key);
    if (!part || part.table === SELF || part.account !== m.account || part.runId !== m.run_id) continue;
    rows[part.table] = (rows[part.table] ?? 0) + (f.rows ?? 0);
  }
  return sorted(rows);
}

const sorted = (rows: Record<string, number>) =>
  Object.fromEntries(Object.entries(rows).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/**
 * Why the run is not succeeded: the account's stop, an interruption, a workspace list cut short,
 * each failed workspace and table.
 */
function runFailures(m: Manifest): RunFailure[] {
  const out: RunFailure[] = [];
  if (m.error) out.push({ scope: 'account', id: m.account, reason: storedText(m.account, m.error) });
  if (m.interrupted) out.push({ scope: 'run', id: m.run_id, reason: m.interrupted });
  const listShort = m.status === 'succeeded' ? undefined : workspaceListIncomplete(m);
  if (listShort) out.push({ scope: 'workspace_list', id: 'brands', reason: listShort });
  for (const w of m.workspaces)
    if (w.status === 'failed')
      out.push({
        scope: 'workspace',
        id: w.brand_id,
        reason: w.error === undefined ? 'no reason recorded' : storedText(m.account, w.error),
      });
  for (const l of m.loads)
    if (l.status === 'failed' && l.table !== SELF)
      out.push({ scope: 'table', id: l.table, reason: l.error ?? 'no reason recorded' });
  return out;
}
