// Who runs a `run --once` run, and whether it still does. A run has no manifest until it ends, so
// "no manifest" alone cannot tell a crashed run from one still working (docs/pipeline.md).
// The owner writes a lease beside the manifest's key when it starts and renews it every third of
// its TTL while it works; with Redis configured it also keeps a key with that expiry there
// (jobs/redis-run-lease.ts). The next `run --once` completes the run only once its owner is gone:
// the lease has expired (the process stopped renewing it), or the process it names on this very
// host no longer exists (a crash seen at once, with no wait for the TTL).
// Queued runs have no such lease: their worker's job lock is their liveness, and workers complete them.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { runLeaseKey } from '../sinks/layout.js';
import { type ObjectStore, putJsonObject, readJsonObject } from '../sinks/object-store.js';
import { errorMessage } from '../util/errors.js';
import { processGone } from '../util/process-owner.js';
import type { RunCoordinates } from './run-coordinates.js';
import type { RunKind } from './run-id.js';

/** The only owner that writes leases, and so the only one that completes runs that have one. */
export const RUN_ONCE_OWNER = 'run --once';

export interface RunLease {
  run_id: string;
  account: string;
  kind: RunKind;
  owner: typeof RUN_ONCE_OWNER;
  holder: { host: string; pid: number; token: string };
  started_at: string;
  renewed_at: string;
  expires_at: string;
  ttl_ms: number;
  /** Set when the owner ended without writing the manifest, with what stopped it (ENOSPC, ...). */
  ended?: { at: string; error: string };
}

/** The Redis side of a lease: a key holding the owner's token, with the lease's expiry. */
export interface LeaseSignal {
  /**
   * Takes the key, atomically, when it is free or still holds `previous` (the token of an owner
   * found gone): of two processes taking over one run, one wins.
   */
  claim(run: RunCoordinates, token: string, ttlMs: number, previous: string | undefined): Promise<boolean>;
  /** Extends the key while it holds `token` (sets it again if Redis lost it); false once another took it. */
  renew(run: RunCoordinates, token: string, ttlMs: number): Promise<boolean>;
  held(run: RunCoordinates): Promise<boolean>;
  release(run: RunCoordinates, token: string): Promise<void>;
}

export interface HeldLease {
  /** Stops renewing. Recorded: the lease is removed; else it says why the run ended unrecorded. */
  release(end: { recorded: true } | { recorded: false; error: string }): Promise<void>;
}

export function readRunLease(
  store: ObjectStore,
  run: Pick<RunCoordinates, 'account' | 'runId'>,
): Promise<RunLease | undefined> {
  return readJsonObject<RunLease>(store, runLeaseKey(run.account, run.runId));
}

const writeLease = (store: ObjectStore, lease: RunLease) =>
  putJsonObject(store, runLeaseKey(lease.account, lease.run_id), lease);

/**
 * Writes the run's lease and renews it until released. A new run's lease must be written (it
 * throws otherwise: a run nobody can see working must not start). `takeover`: the lease of a run
 * whose owner is gone, taken by the process that completes it; undefined when another process
 * took it first. A failed renewal is logged; the next one tries again.
 */
export async function takeRunLease(o: {
  store: ObjectStore;
  run: RunCoordinates;
  kind: RunKind;
  startedAt: string;
  ttlMs: number;
  signal?: LeaseSignal | undefined;
  logger: Logger;
  /** The gone owner's lease (or none, for a run of a version that wrote none). */
  takeover?: { previous: RunLease | undefined };
}): Promise<HeldLease | undefined> {
  const token = randomUUID();
  const lease = (now = Date.now()): RunLease => ({
    run_id: o.run.runId,
    account: o.run.account,
    kind: o.kind,
    owner: RUN_ONCE_OWNER,
    holder: { host: hostname(), pid: process.pid, token },
    started_at: o.startedAt,
    renewed_at: new Date(now).toISOString(),
    expires_at: new Date(now + o.ttlMs).toISOString(),
    ttl_ms: o.ttlMs,
  });
  if (o.signal && !(await o.signal.claim(o.run, token, o.ttlMs, o.takeover?.previous?.holder.token)))
    return undefined;
  await writeLease(o.store, lease());
  // Without Redis the store is the only arbiter: the last writer holds the run.
  if (o.takeover && !o.signal && (await readRunLease(o.store, o.run))?.holder.token !== token)
    return undefined;
  let renewing: Promise<void> | undefined;
  /** Set once another process took the run over: its lease.json is then the new owner's. */
  let lost = false;
  const renew = async () => {
    if (o.signal && !(await o.signal.renew(o.run, token, o.ttlMs))) {
      lost = true;
      clearInterval(timer);
      o.logger.error(
        'another process took over this run (its lease lapsed); its loads are checked by row count',
      );
      return;
    }
    await writeLease(o.store, lease());
  };
  const timer = setInterval(() => {
    // One renewal at a time: a slow store must not pile them up.
    renewing ??= renew()
      .catch((err) => {
        o.logger.warn({ err: errorMessage(err) }, 'could not renew the run lease; trying again');
      })
      .finally(() => {
        renewing = undefined;
      });
  }, o.ttlMs / 3);
  timer.unref();
  return {
    async release(end) {
      clearInterval(timer);
      await renewing;
      try {
        await o.signal?.release(o.run, token);
        if (lost) return;
        if (end.recorded) await o.store.delete(runLeaseKey(o.run.account, o.run.runId));
        else {
          const at = new Date().toISOString();
          await writeLease(o.store, { ...lease(), expires_at: at, ended: { at, error: end.error } });
        }
      } catch (err) {
        // The lease lapses by itself; the manifest (or the next run's completion) is the record.
        o.logger.warn({ err: errorMessage(err) }, 'could not release the run lease; it expires by itself');
      }
    },
  };
}

/** True once nobody works on the run any more: its lease expired, or its process is gone. */
export async function leaseOwnerGone(
  lease: RunLease,
  run: RunCoordinates,
  signal?: LeaseSignal,
  now = Date.now(),
): Promise<boolean> {
  if (lease.ended) return true;
  if (lease.holder.host === hostname() && processGone(lease.holder.pid)) return true;
  if (Date.parse(lease.expires_at) > now) return false;
  // The object may lag (a slow store) while the Redis key was renewed.
  return !(await signal?.held(run).catch(() => false));
}
