// What the sink says about an account's past runs. Manifests are written last and kept for good,
// so they outlast Redis (which may restart without persistence): the newest successful run of an
// account, which sets the start of the next nightly window, is read from here when Redis has no
// record of it. One rule for the worker and for `run --once`.
import { manifestKey } from '../sinks/layout.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { type Manifest, readManifest } from './manifest.js';

/** Run ids of the account that have a manifest, newest first (ids start with their date). */
export async function manifestRunIds(store: ObjectStore, account: string): Promise<string[]> {
  const probe = manifestKey(account, '\u0000');
  const prefix = probe.slice(0, probe.indexOf('\u0000'));
  const ids: string[] = [];
  for (const key of await store.list(prefix)) {
    const runId = key.slice(prefix.length, key.indexOf('/', prefix.length));
    if (manifestKey(account, runId) === key) ids.push(runId);
  }
  return ids.sort().reverse();
}

/** `YYYY-MM-DD` a run id starts with (logical and time-based ids both do), if any. */
function idDate(runId: string): string | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})/.exec(runId);
  return m ? `${m[1]}-${m[2]}-${m[3]}` : undefined;
}

/**
 * The account's succeeded run with the latest run date (the same rule as the ledger's last
 * success: any kind, a newer date wins). Reads manifests newest first and stops once the ids are
 * older than the best found.
 */
export async function lastSucceededRun(store: ObjectStore, account: string): Promise<Manifest | undefined> {
  let best: Manifest | undefined;
  for (const runId of await manifestRunIds(store, account)) {
    const date = idDate(runId);
    if (best && date && date < best.run_date) break;
    let m: Manifest | undefined;
    try {
      m = await readManifest(store, account, runId);
    } catch {
      continue; // A manifest that does not parse is not a record of success.
    }
    if (m?.status === 'succeeded' && (!best || m.run_date > best.run_date)) best = m;
  }
  return best;
}
