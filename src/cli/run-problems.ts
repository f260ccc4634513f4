// Why a queued run failed or ended partial, for `enqueue --wait` and `status`: the manifest names
// each failed workspace and load (the ledger keeps one error at most, and none for a workspace).
import type { LedgerRun } from '../../jobs/ledger.js';
import { readManifest } from '../runs/manifest.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { problemLines, withAccount } from './run-once.js';

/**
 * One line per problem, each starting with the account; [] for a run that did not go wrong.
 * `store` is called only for a failed or partial run with a manifest.
 */
export async function runProblems(store: () => Promise<ObjectStore>, r: LedgerRun): Promise<string[]> {
  if (r.status !== 'failed' && r.status !== 'partial') return [];
  const fromLedger = r.error ? [withAccount(r.account, r.error)] : [];
  if (!r.manifest_key) return fromLedger;
  try {
    const m = await readManifest(await store(), r.account, r.run_id);
    return m ? problemLines(m) : fromLedger;
  } catch (err) {
    return [...fromLedger, `${r.account}: manifest ${r.manifest_key} unreadable: ${(err as Error).message}`];
  }
}
