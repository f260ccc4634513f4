// `run --once` completes, before its new run, the newest run of the account whose process stopped
// before its manifest (src/run/interrupted.ts finds it; src/run/replay.ts completes it
// from its raw landing), under the run's lease so that two processes never complete it at once.
import type { Logger } from 'pino';
import type { RunHistory } from '../../records/history.js';
import type { Manifest } from '../../records/manifest.js';
import { kindOfRunId } from '../../records/run-id.js';
import { takeRunLease } from '../../records/run-lease.js';
import { errorMessage } from '../../util/errors.js';
import { lastInterruptedRun } from '../interrupted.js';
import { secondRecord } from '../record.js';
import { replayRun } from '../replay.js';
import { type AccountRunOptions, leaseTtlMs } from './options.js';

/** A crashed earlier run of the account, completed from its raw landing (its failure is logged, not fatal). */
export async function completeInterrupted(
  o: AccountRunOptions,
  account: string,
  history: RunHistory,
): Promise<Manifest | undefined> {
  const log = o.logger.child({ account });
  let run: Awaited<ReturnType<typeof lastInterruptedRun>>;
  try {
    run = await lastInterruptedRun(
      o.store,
      account,
      { signal: o.leaseSignal, ttlMs: leaseTtlMs(o) },
      history,
    );
  } catch (err) {
    // Not a run that failed to complete: the store did not answer. The new run then says why it stopped.
    log.warn({ err: errorMessage(err) }, 'could not look for an interrupted run; the next run looks again');
    return undefined;
  }
  if (!run) return undefined;
  try {
    // The completing process becomes the run's owner: a second one completing it at once backs off.
    const lease = await takeRunLease({
      store: o.store,
      run,
      kind: run.lease?.kind ?? kindOfRunId(run.runId),
      startedAt: run.lease?.started_at ?? new Date().toISOString(),
      ttlMs: leaseTtlMs(o),
      signal: o.leaseSignal,
      logger: log,
      takeover: { previous: run.lease },
    });
    if (!lease) {
      log.info({ run_id: run.runId }, 'another process is completing the interrupted run');
      return undefined;
    }
    log.warn({ run_id: run.runId }, 'completing a run that stopped before its manifest');
    let manifest: Manifest;
    try {
      manifest = await replayRun({
        store: o.store,
        runId: run.runId,
        account,
        logger: log.child({ run_id: run.runId }),
        loader: o.loader,
        // 0 is no part size: it means the default, so it is left out (finishRun does the same).
        ...(o.partRows ? { partRows: o.partRows } : {}),
        latestLock: o.latestLock,
        onLoaded: o.onLoaded,
        // The lease is this process's now: the stopped owner's word comes from the lease it left.
        cause: run.lease?.ended?.error ?? (await recordedError(o, log, run.runId)),
        leaseTaken: true,
      });
    } catch (err) {
      await lease.release({ recorded: false, error: errorMessage(err) });
      throw err;
    }
    await lease.release({ recorded: true });
    // The ledger entry its process left `running` (with Redis) ends with the completed manifest.
    await secondRecord(log, 'end', () => o.recorder?.finished(manifest));
    return manifest;
  } catch (err) {
    log.error(
      { err: errorMessage(err), run_id: run.runId },
      `could not complete the interrupted run; \`visync replay --run ${run.runId}\` can`,
    );
    return undefined;
  }
}

/** Why the run stopped, as the ledger has it (a full disk keeps it from the lease); none is no cause. */
async function recordedError(o: AccountRunOptions, log: Logger, runId: string): Promise<string | undefined> {
  try {
    return await o.recorder?.recordedError?.(runId);
  } catch (err) {
    log.warn({ err: errorMessage(err) }, "could not read the interrupted run's error from the ledger");
    return undefined;
  }
}
