// Before `visync replay` with Redis configured: a run that waits for its load batch, or is in one,
// is loaded by that batch; a replay would load it too, with jobs of its own, so its rows would
// land twice. Only the ledger knows (the run has no manifest until its batch records it).
import type { Config } from '../src/config/schema.js';
import type { Manifest } from '../src/records/manifest.js';
import { replayRefusal } from '../src/records/run-state.js';
import { closeConnection, commandConnection } from './connection.js';
import { RunLedger } from './ledger.js';

export type ReplayCheck =
  | { ok: true }
  | { ok: false; refusal: string }
  /** Redis did not answer: the ledger could not be read. */
  | { ok: 'unchecked'; reason: string };

export async function checkReplay(config: Config, runId: string): Promise<ReplayCheck> {
  if (!config.redis.url) return { ok: true };
  const link = commandConnection(config.redis.url, config.redis.cluster === true);
  try {
    const run = await new RunLedger(link.redis, config.redis.prefix).get(runId);
    const refusal = run && replayRefusal(run);
    return refusal ? { ok: false, refusal } : { ok: true };
  } catch (err) {
    const unreachable = link.unreachable(err);
    if (!unreachable) throw err;
    return { ok: 'unchecked', reason: unreachable.message };
  } finally {
    await closeConnection(link.redis);
  }
}

/**
 * The ledger could not be read: what the run's manifest tells instead. A run loaded without a
 * batch (run --once, a replay, an account without BigQuery) says so in its manifest, none of whose
 * loads names a batch; a run that waits for its batch has no manifest yet (or, enqueued again, one
 * its batch wrote): it is refused, since replaying it could load its rows twice.
 */
export function uncheckedReplay(
  runId: string,
  reason: string,
  manifest: Pick<Manifest, 'loads'> | undefined,
): { ok: true; notice: string } | { ok: false; refusal: string } {
  if (manifest?.loads.every((l) => !l.load_batch_id))
    return {
      ok: true,
      notice: `could not check whether run ${runId} waits for a load batch (${reason}); its manifest shows it was loaded without one, so it is replayed`,
    };
  const why = manifest
    ? 'its manifest shows a load batch loaded it (enqueued again, it may be in one now)'
    : 'it has no manifest showing it was loaded without one';
  return {
    ok: false,
    refusal: `cannot tell whether run ${runId} waits for a load batch (${reason}), and ${why}: replaying it now could load its rows twice. Start Redis, then visync replay --run ${runId} again`,
  };
}
