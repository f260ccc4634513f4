// Before `visync replay` with Redis configured: a run that waits for its load batch, or is in one,
// is loaded by that batch; a replay would load it too, with jobs of its own, so its rows would
// land twice. Only the ledger knows (the run has no manifest until its batch records it).
import type { Config } from '../src/config/schema.js';
import { closeConnection, commandConnection } from './connection.js';
import { RunLedger } from './ledger.js';
import { replayRefusal } from './run-phase.js';

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
