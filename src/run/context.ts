// A run's context: what every stage of one run (extract, curate, load, record) is given, whichever
// driver runs the stage, `run --once` in one process (src/run/inline/run-inline.ts) or the workers'
// jobs (src/run/queued/). Settled when the run starts; a queued run keeps it in its job data.
import type { Logger } from 'pino';
import type { RateBudget } from '../api/rate-budget.js';
import type { RunHistory } from '../records/history.js';
import { assembleManifest, type Manifest } from '../records/manifest.js';
import type { RunCoordinates } from '../records/run-coordinates.js';
import type { RunKind } from '../records/run-id.js';
import type { RunScope } from '../records/run-scope.js';
import type { RunStages } from '../records/run-state.js';
import type { ObjectStore } from '../sinks/object-store.js';

/** What the run covers: its days back from its run date, and the buyer-intent windows it asks for. */
export interface RunWindow {
  days: number;
  buyerIntentDays: readonly number[];
}

export interface RunContext {
  run: RunCoordinates;
  kind: RunKind;
  /** When the run (this try of it) started, ISO: its deadline counts from here. */
  startedAt: string;
  window: RunWindow;
  scope: RunScope;
  store: ObjectStore;
  /** The account's run history, read once for all the run's stages (src/records/history.ts). */
  history: RunHistory;
  log: Logger;
  /** The account's request budget, shared by every call of the run. */
  budget: RateBudget;
}

/**
 * One step of a run as a driver holds it: the run's context, and what the driver itself needs
 * (the inline driver its options, a job its BullMQ job and worker context). The one step type of
 * both drivers, so a stage written for one reads the same in the other.
 */
export type RunStep<Driver> = RunContext & { driver: Driver };

/** The parts of a manifest a stage reports; the rest comes from the run's context. */
export type ManifestParts = Partial<
  Pick<
    Parameters<typeof assembleManifest>[0],
    'error' | 'errorCode' | 'pausedUntil' | 'workspaces' | 'files' | 'loads' | 'requests' | 'drift'
  >
> & {
  /** How the stages run so far ended (src/run/stages.ts); the record stage adds its own. */
  stages?: RunStages | undefined;
};

/**
 * The run's manifest from its context and what its stages report; status and finished_at follow.
 * Every driver assembles its manifest here, so the stages are written the same way by all.
 */
export function runManifest(c: RunContext, { stages, ...parts }: ManifestParts = {}): Manifest {
  const m = assembleManifest({
    run: c.run,
    kind: c.kind,
    startedAt: c.startedAt,
    visibilityDays: c.window.days,
    buyerIntentDays: c.window.buyerIntentDays,
    scope: c.scope,
    workspaces: [],
    files: [],
    loads: [],
    requests: { calls: 0, rate_limited: 0, retries: 0, waited_ms: 0 },
    drift: [],
    ...parts,
  });
  return stages ? { ...m, stages } : m;
}
