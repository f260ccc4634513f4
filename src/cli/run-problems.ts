// Why a queued run failed or ended partial, for `enqueue --wait` and `status`: the manifest names
// each failed workspace and load (the ledger keeps one error at most, and none for a workspace).
import type { LedgerRun } from '../../jobs/ledger.js';
import { storedText } from '../records/error-code.js';
import { readManifest } from '../records/manifest.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { type Problem, problemsOf } from './run-lines.js';

/**
 * The run's problems (print them with lineOf); [] for a run that did not go wrong.
 * `store` is called only for a failed or partial run with a manifest.
 */
export async function runProblems(store: () => Promise<ObjectStore>, r: LedgerRun): Promise<Problem[]> {
  if (r.status !== 'failed' && r.status !== 'partial') return [];
  const { account } = r;
  const fromLedger: Problem[] = r.error ? [{ account, of: 'run', text: storedText(account, r.error) }] : [];
  if (!r.manifest_key) return fromLedger;
  try {
    const m = await readManifest(await store(), r.account, r.run_id);
    return m ? problemsOf(m) : fromLedger;
  } catch (err) {
    const text = `manifest ${r.manifest_key} unreadable: ${(err as Error).message}`;
    return [...fromLedger, { account, of: 'manifest', text }];
  }
}
