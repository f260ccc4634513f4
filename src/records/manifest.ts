// The run manifest (`runs/account=A/run=R/manifest.json`), written last: a run without one is
// incomplete and readers ignore it. What it lists, and that contract, are in docs/pipeline.md.
import { z } from 'zod';
import { utcSecond } from '../api/pause-cap.js';
import type { RequestStats } from '../api/request-stats.js';
import { manifestKey } from '../sinks/layout.js';
import type { ObjectStore, StoredObject } from '../sinks/object-store.js';
import type { RunErrorCode } from '../util/errors.js';
import { addDays } from '../util/time.js';
import { type Writer, writtenBy } from '../util/writer.js';
import type { RunCoordinates } from './run-coordinates.js';
import type { RunKind } from './run-id.js';
import { type RunScope, runScope } from './run-scope.js';
import type { RunStages, RunStatus } from './run-state.js';

export interface WorkspaceResult {
  brand_id: string;
  status: 'succeeded' | 'failed';
  error?: string;
  /** Why, for readers to decide on (src/records/error-code.ts); absent before codes were recorded. */
  error_code?: RunErrorCode;
}

export interface ManifestFile extends StoredObject {
  rows?: number;
  /** Raw files: occurrences of the account's API key replaced in the body (absent when none). */
  redactions?: number;
}

export interface LoadResult {
  table: string;
  job_id: string;
  status: 'succeeded' | 'failed';
  rows: number;
  error?: string;
  /** Why, for readers to decide on (src/records/error-code.ts); absent before codes were recorded. */
  error_code?: RunErrorCode;
  /** The load batch whose job loaded these rows with other runs' (queued runs into BigQuery). */
  load_batch_id?: string;
}

/** One drift finding; a schema because job data carries entries through Redis (checked there). */
export const DriftEntrySchema = z.object({
  endpoint: z.string(),
  kind: z.string(),
  detail: z.string(),
  /** One example: where it was seen (a brand id or a JSON path). */
  example: z.string().optional(),
  count: z.number().optional(),
  /** Where it was found: replay keeps extract findings and rebuilds normalise ones. */
  stage: z.enum(['extract', 'normalise']).optional(),
});
export type DriftEntry = z.infer<typeof DriftEntrySchema>;

/**
 * Why the run's list of workspaces is incomplete (GET /brands listed fewer than its count), if
 * it is: from the run's drift, which replay and completion rebuild from the raw landing.
 */
export function workspaceListIncomplete(m: { drift: readonly DriftEntry[] }): string | undefined {
  return m.drift.find((d) => d.endpoint === 'brands' && d.kind === 'list_incomplete')?.detail;
}

export interface RunWindow {
  visibility_days: number;
  from: string;
  to: string;
  buyer_intent_days: number[];
}

export interface Manifest {
  run_id: string;
  account: string;
  kind: RunKind;
  status: RunStatus;
  started_at: string;
  finished_at: string;
  run_date: string;
  window: RunWindow;
  /**
   * The workspaces and endpoints the run was asked for. Absent in manifests written before it was
   * recorded: those runs covered everything.
   */
  scope?: RunScope;
  /** Set when the whole account stopped (bad key, plan, unreachable). */
  error?: string;
  /**
   * Why `error`, as a code readers decide on (src/records/error-code.ts), never its text; absent in
   * manifests written before codes were recorded (read with storedCode: 'unknown').
   */
  error_code?: RunErrorCode;
  /**
   * Set when the run stopped on a pause it would not wait for (a Retry-After longer than
   * extract.maxPauseSeconds, or past the run deadline): when the account may be called again,
   * `2026-11-26T16:00:00Z`. Later runs before then end at once with the same error.
   */
  rate_limited_until?: string;
  workspaces: WorkspaceResult[];
  files: ManifestFile[];
  loads: LoadResult[];
  requests: RequestStats;
  /**
   * 'raw landing' when the run's request counters were lost (Redis lost its data before the run
   * was recorded): `requests.calls` counts its landed raw files, one per successful call; its
   * 429s, retries and waits are not known (0).
   */
  requests_from?: 'raw landing';
  drift: DriftEntry[];
  replayed_at?: string;
  /**
   * Occurrences of the account's API key replaced in the raw bodies (the sum over `files`): the
   * only change a body gets before it is landed. Absent in manifests written before it was counted.
   */
  redactions?: number;
  /**
   * Set when the run's process stopped before writing this manifest (killed, machine lost) and the
   * run was completed later from its raw landing: calls that had not landed are missing, so such a
   * run is at best partial.
   */
  interrupted?: string;
  /** How each stage ended and when it ran (src/records/run-state.ts); absent in older manifests. */
  stages?: RunStages;
  /** The release that last wrote this manifest (src/util/writer.ts); absent before 0.2.0. */
  writer?: Writer;
  /**
   * The release whose rules detected the run's brand_events, when it is not `writer`: a replay by a
   * release with other event rules keeps the recorded rows and says here whose they are
   * (src/events/meanings.ts).
   */
  events_writer?: Writer;
  /** This manifest's format (FORMAT_VERSIONS.run_manifest); absent before 0.2.0 (format 1). */
  format_version?: number;
}

/**
 * Writes the manifest, stamped with the release that writes it (src/util/writer.ts): a replay or a
 * completion records itself, not the release that first wrote the run.
 */
export async function writeManifest(store: ObjectStore, m: Manifest): Promise<StoredObject> {
  const stamped: Manifest = { ...m, ...writtenBy('run_manifest') };
  return store.put(manifestKey(m.account, m.run_id), `${JSON.stringify(stamped, null, 2)}\n`, {
    contentType: 'application/json',
  });
}

/** The redactions of a run's raw files, as its manifest counts them. */
export function redactionCount(files: readonly ManifestFile[]): number {
  return files.reduce((n, f) => n + (f.redactions ?? 0), 0);
}

/** Where a run's manifest is (or would be), for messages: the store's location and its key. */
export function manifestLocation(store: ObjectStore, account: string, runId: string): string {
  return `${store.location.replace(/\/$/, '')}/${manifestKey(account, runId)}`;
}

export async function readManifest(
  store: ObjectStore,
  account: string,
  runId: string,
): Promise<Manifest | undefined> {
  const bytes = await store.get(manifestKey(account, runId));
  return bytes ? (JSON.parse(bytes.toString('utf8')) as Manifest) : undefined;
}

/**
 * succeeded: every workspace and load; failed: account stopped or nothing landed; else partial
 * (also for a run completed after an interruption, for one stopped by a pause after some
 * workspaces landed: they are good, and for a run over all workspaces whose workspace list was
 * incomplete: workspaces it never saw were not synced).
 */
export function runStatus(
  m: Pick<
    Manifest,
    'error' | 'workspaces' | 'loads' | 'interrupted' | 'rate_limited_until' | 'drift' | 'scope'
  >,
): RunStatus {
  const failedWs = m.workspaces.filter((w) => w.status === 'failed').length;
  if (m.error && !(m.rate_limited_until && failedWs < m.workspaces.length)) return 'failed';
  const failedLoads = m.loads.filter((l) => l.status === 'failed').length;
  if (m.workspaces.length > 0 && failedWs === m.workspaces.length) return 'failed';
  const listShort = (m.scope?.brands ?? 'all') === 'all' && workspaceListIncomplete(m) !== undefined;
  return failedWs + failedLoads === 0 && !m.interrupted && !listShort ? 'succeeded' : 'partial';
}

/** What a run's raw landing tells of its requests when its counters are lost (see requests_from). */
export function requestsFromLanding(
  rawFiles: readonly ManifestFile[],
): Pick<Manifest, 'requests' | 'requests_from'> {
  return {
    requests: { calls: rawFiles.length, rate_limited: 0, retries: 0, waited_ms: 0 },
    requests_from: 'raw landing',
  };
}

/** Builds a manifest from a run's parts; status and finished_at follow from them. */
export function assembleManifest(p: {
  run: RunCoordinates;
  kind: RunKind;
  startedAt: string;
  visibilityDays: number;
  buyerIntentDays: readonly number[];
  /** Default: every workspace and endpoint. */
  scope?: RunScope | undefined;
  error?: string | undefined;
  /** Why `error` (default: rate_limited with pausedUntil, else internal). */
  errorCode?: RunErrorCode | undefined;
  /** Epoch ms the account may be called again after (an ApiError's pausedUntil). */
  pausedUntil?: number | undefined;
  workspaces: WorkspaceResult[];
  files: ManifestFile[];
  loads: LoadResult[];
  requests: RequestStats;
  drift: DriftEntry[];
}): Manifest {
  const m: Manifest = {
    run_id: p.run.runId,
    account: p.run.account,
    kind: p.kind,
    status: 'failed',
    started_at: p.startedAt,
    finished_at: new Date().toISOString(),
    run_date: p.run.runDate,
    window: {
      visibility_days: p.visibilityDays,
      from: addDays(p.run.runDate, 1 - p.visibilityDays),
      to: p.run.runDate,
      buyer_intent_days: [...p.buyerIntentDays],
    },
    scope: p.scope ?? runScope(),
    ...(p.error
      ? {
          error: p.error,
          error_code: p.errorCode ?? (p.pausedUntil === undefined ? 'internal' : 'rate_limited'),
        }
      : {}),
    ...(p.pausedUntil === undefined ? {} : { rate_limited_until: utcSecond(p.pausedUntil) }),
    workspaces: p.workspaces,
    files: p.files,
    loads: p.loads,
    requests: p.requests,
    drift: p.drift,
  };
  m.status = runStatus(m);
  return m;
}
