// `visync replay`: rebuild a run's curated files and loads from its raw landing, no API call. Its
// brand_events are detected anew, unless an older release's rules recorded them: those are kept.
import type { Logger } from 'pino';
import { BRAND_EVENTS } from '../catalogue/brand-events.js';
import type { Row } from '../catalogue/types.js';
import { rawRunWorkspaceCalls } from '../curate/raw-run.js';
import { underCurrentRules } from '../events/meanings.js';
import { readPart } from '../history/complete-runs.js';
import { compareText } from '../history/figures.js';
import { eventsDetectedBy, eventsWriter } from '../records/events-writer.js';
import {
  type LoadResult,
  type Manifest,
  type ManifestFile,
  readManifest,
  runStatus,
  type WorkspaceResult,
} from '../records/manifest.js';
import { type PlannedRun, readPlannedRun } from '../records/planned-run.js';
import type { RunCoordinates } from '../records/run-coordinates.js';
import { kindOfRunId } from '../records/run-id.js';
import { leaseOwnerGone, readRunLease } from '../records/run-lease.js';
import { workspaceOutcome } from '../records/workspace-outcome.js';
import type { KeyLock } from '../sinks/key-lock.js';
import {
  parseManifestKey,
  parseRawKey,
  parseTablePartKey,
  rawAccountPrefix,
  rawEndpointPrefix,
} from '../sinks/layout.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { VisyncError } from '../util/errors.js';
import type { RunLoader } from './finish-run.js';
import { recordRun } from './record-run.js';
import { curateAndLoad } from './stages.js';

export interface ReplayOptions {
  store: ObjectStore;
  runId: string;
  account?: string;
  logger: Logger;
  loader?: RunLoader;
  partRows?: number;
  now?: () => Date;
  latestLock?: KeyLock;
  onLoaded?: (load: LoadResult) => void;
  /** Why a run without a manifest stopped, when its owner said (default: its lease's word). */
  cause?: string | undefined;
  /** The caller holds the run's lease (the completion of an interrupted run). */
  leaseTaken?: boolean;
}

export class ReplayError extends VisyncError {
  override readonly name = 'ReplayError';
  get code() {
    return 'replay_failed' as const;
  }
}

/** Finds the run: its account and logical date, from the manifest or, failing that, the raw files. */
export async function locateRun(
  store: ObjectStore,
  runId: string,
  account?: string,
): Promise<{ account: string; runDate: string; manifest?: Manifest }> {
  const accounts = account ? [account] : await accountsWithRun(store, runId);
  if (accounts.length === 0)
    throw new ReplayError(`run ${runId} not found under ${store.location} (no manifest and no raw files)`);
  if (accounts.length > 1) {
    throw new ReplayError(
      `run ${runId} exists for several accounts (${accounts.join(', ')}): pass --account`,
    );
  }
  const name = accounts[0] as string;
  const manifest = await readManifest(store, name, runId);
  if (manifest) return { account: name, runDate: manifest.run_date, manifest };
  // A run that crashed before its manifest: its date is in the raw keys of /me.
  const me = (await store.list(rawAccountPrefix('me', name)))
    .map(parseRawKey)
    .find((k) => k?.runId === runId);
  const runDate = me?.runDate;
  if (!runDate)
    throw new ReplayError(`run ${runId} of account ${name} has no manifest and no raw landing to replay`);
  return { account: name, runDate };
}

async function accountsWithRun(store: ObjectStore, runId: string): Promise<string[]> {
  const found = new Set<string>();
  for (const key of await store.list('runs/')) {
    const m = parseManifestKey(key);
    if (m?.runId === runId) found.add(m.account);
  }
  if (found.size === 0) {
    for (const key of await store.list(rawEndpointPrefix('me'))) {
      const m = parseRawKey(key);
      if (m?.runId === runId) found.add(m.account);
    }
  }
  return [...found].sort();
}

export async function replayRun(o: ReplayOptions): Promise<Manifest> {
  const located = await locateRun(o.store, o.runId, o.account);
  const run = { account: located.account, runId: o.runId, runDate: located.runDate };
  const old = located.manifest;
  // A run without a manifest may still be working: replaying it would load half of its rows under
  // its job ids. Its completion (run --once) holds the lease itself and says so.
  const lease = old ? undefined : await readRunLease(o.store, run);
  if (lease && !o.leaseTaken && !(await leaseOwnerGone(lease, run)))
    throw new ReplayError(
      `run ${o.runId} is still running (${lease.owner} on ${lease.holder.host}, process ${lease.holder.pid}; its lease runs to ${lease.expires_at}): replay it once it has ended`,
    );
  const started = old?.started_at ?? lease?.started_at;
  const recordedEvents = old && (await olderRulesEvents(o.store, old));
  if (old && recordedEvents)
    o.logger.info(
      { events: recordedEvents.length, detected_by: eventsDetectedBy(old) },
      'brand_events kept as recorded: an older release detected them under other rules (docs/operations.md, "Brand watch")',
    );
  const finished = await curateAndLoad(
    { store: o.store, run, log: o.logger, startedAt: started },
    {
      recordedEvents,
      loader: o.loader,
      previousLoads: old?.loads,
      partRows: o.partRows,
      latestLock: o.latestLock,
      onLoaded: o.onLoaded,
    },
  );
  const now = (o.now ?? (() => new Date()))().toISOString();
  // Events detected anew are this replay's (its writer's): an earlier events_writer no longer holds.
  const { events_writer: _, ...base }: Manifest =
    old ??
    manifestFromRaw(run, finished.rawFiles, now, {
      calls: await rawRunWorkspaceCalls(o.store, run),
      plan: await readPlannedRun(o.store, run),
      cause: o.cause ?? lease?.ended?.error,
    });
  const manifest: Manifest = {
    ...base,
    // Whose rules detected the events kept as recorded: this manifest's writer is the replay's.
    ...(old && recordedEvents ? { events_writer: eventsWriter(old) } : {}),
    files: [...finished.rawFiles, ...finished.files],
    loads: finished.loads,
    drift: [...base.drift.filter((d) => d.stage === 'extract'), ...finished.drift],
    replayed_at: now,
    // Its extract stage stays the run's; curate and load (and record) are this replay's.
    stages: { ...base.stages, ...finished.stages },
  };
  manifest.status = runStatus(manifest);
  // Always a new sync_runs row: the replayed run's status and loads may differ from the recorded ones.
  return recordRun({
    store: o.store,
    manifest,
    logger: o.logger,
    loader: o.loader,
    now: () => new Date(now),
  });
}

/**
 * The run's brand_events as recorded, when an older release's rules detected them (which differ
 * from this release's: src/events/meanings.ts): a replay writes them again as they are, so their
 * ids and types stay those the store and any warehouse that loaded them hold. Undefined: detect anew.
 */
async function olderRulesEvents(store: ObjectStore, m: Manifest): Promise<Row[] | undefined> {
  if (underCurrentRules(eventsDetectedBy(m))) return undefined;
  const keys = m.files
    .map((f) => f.key)
    .filter((k) => parseTablePartKey(k)?.table === BRAND_EVENTS.name)
    .sort(compareText);
  const rows: Row[] = [];
  for (const key of keys) rows.push(...(await readPart(store, key)));
  return rows;
}

/** What is known of a run that stopped before its manifest, besides its raw files. */
interface Landing {
  /** The calls landed per workspace (any workspace file names its workspace). */
  calls: ReadonlyMap<string, readonly string[]>;
  /** What the run set out to do; absent for runs of versions that wrote none. */
  plan?: PlannedRun | undefined;
  /** What stopped it, when the run could say (the manifest could not be written: ENOSPC, ...). */
  cause?: string | undefined;
}

/** A manifest for a run that stopped before writing one: what its plan and raw landing show. */
function manifestFromRaw(run: RunCoordinates, rawFiles: ManifestFile[], now: string, l: Landing): Manifest {
  const plan = l.plan;
  const workspaces = plan?.workspaces
    ? plannedWorkspaces(plan.workspaces, plan.workspace_calls ?? [], l.calls, l.cause)
    : workspacesFromLanding(l.calls, l.cause);
  // A plan without workspaces: the run stopped before /brands told it which.
  const error =
    plan && !plan.workspaces ? (l.cause ?? 'the run stopped before its workspaces were listed') : undefined;
  return {
    run_id: run.runId,
    account: run.account,
    kind: plan?.kind ?? kindOfRunId(run.runId),
    status: 'partial',
    started_at: plan?.started_at ?? now,
    finished_at: now,
    run_date: run.runDate,
    window: plan?.window ?? {
      visibility_days: 0,
      from: run.runDate,
      to: run.runDate,
      buyer_intent_days: [],
    },
    ...(plan?.scope ? { scope: plan.scope } : {}),
    ...(error ? { error } : {}),
    workspaces,
    files: rawFiles,
    loads: [],
    // Each landed file is a call that succeeded; retries and waits died with the process.
    requests: { calls: rawFiles.length, rate_limited: 0, retries: 0, waited_ms: 0 },
    drift: [],
    interrupted: `the run stopped before writing its manifest${l.cause ? ` (${l.cause})` : ''}; completed from its raw landing at ${now} (calls that had not landed are missing)`,
  };
}

/** Each planned workspace, failed when it lacks a planned call (landed by no one else or not). */
function plannedWorkspaces(
  ids: readonly string[],
  planned: readonly string[],
  calls: ReadonlyMap<string, readonly string[]>,
  cause: string | undefined,
): WorkspaceResult[] {
  return ids.map((brand_id) => {
    const landed = new Set(calls.get(brand_id));
    return landedOutcome(
      brand_id,
      planned.filter((c) => !landed.has(c)),
      cause,
    );
  });
}

function landedOutcome(
  brand_id: string,
  missing: readonly string[],
  cause: string | undefined,
): WorkspaceResult {
  if (!missing.length) return workspaceOutcome(brand_id);
  // The cause the run recorded (ENOSPC, ...) is kept, not replaced by what the landing shows.
  const error = `the run stopped before ${missing.join(', ')} landed${cause ? ` (${cause})` : ''}`;
  return workspaceOutcome(brand_id, { failure: { error, error_code: 'interrupted' } });
}

/**
 * What a run's raw landing says of each of its workspaces when no manifest does. Every workspace
 * of a run makes the same calls, so one that lacks a call another has landed was cut short by the
 * stop (or its call failed): it is failed, naming what is missing. Calls no workspace landed are
 * beyond what the landing can tell (the run's `interrupted` note says calls may be missing).
 */
export function workspacesFromLanding(
  calls: ReadonlyMap<string, readonly string[]>,
  cause?: string,
): WorkspaceResult[] {
  const all = [...new Set([...calls.values()].flat())].sort();
  return plannedWorkspaces([...calls.keys()].sort(), all, calls, cause);
}
