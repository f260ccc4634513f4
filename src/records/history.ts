// What the sink says about an account's past runs. Manifests are written last and kept for good,
// so they outlast Redis (which may restart without persistence): the account's last success, which
// sets the start of the next nightly window, is read from here when Redis has no record of it.
// One rule for the worker and for `run --once`.
import { accountRunsPrefix, parseManifestKey } from '../sinks/layout.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { manifestCoverage, movesLastSuccess } from './last-success.js';
import { type Manifest, readManifest } from './manifest.js';

/** Run ids of the account that have a manifest, newest first (ids start with their date). */
export async function manifestRunIds(store: ObjectStore, account: string): Promise<string[]> {
  const ids: string[] = [];
  for (const key of await store.list(accountRunsPrefix(account))) {
    const m = parseManifestKey(key);
    if (m?.account === account) ids.push(m.runId);
  }
  return ids.sort().reverse();
}

/**
 * An account's run history as one run reads it: the run ids with a manifest, listed once when a
 * stage first asks and then shared by every stage of the run that needs them (its window, an
 * interrupted run, a paused account, its brand events). A manifest written meanwhile by the run
 * itself (an interrupted run it completed) is added, so later stages see what a listing would.
 */
export class RunHistory {
  #ids: Promise<string[]> | undefined;

  constructor(
    readonly store: ObjectStore,
    readonly account: string,
  ) {}

  /** Run ids of the account that have a manifest, newest first. */
  runIds(): Promise<string[]> {
    if (!this.#ids) {
      const listed = manifestRunIds(this.store, this.account);
      // A listing that failed is not kept: the next stage that asks lists again.
      listed.catch(() => {
        if (this.#ids === listed) this.#ids = undefined;
      });
      this.#ids = listed;
    }
    return this.#ids.then((ids) => [...ids]);
  }

  /** A manifest this run wrote (an interrupted run it completed), for the stages after it. */
  recorded(runId: string): void {
    const known = this.#ids;
    if (known)
      this.#ids = known.then((ids) => (ids.includes(runId) ? ids : [...ids, runId].sort().reverse()));
  }
}

/** Manifests read at once while rebuilding (a year of nightlies is a few hundred small files). */
const READ_AHEAD = 8;

/**
 * The run that holds the account's last-success mark, replayed from the manifests oldest first
 * with the ledger's rule (movesLastSuccess): the mark moves only for a succeeded run that covered
 * every workspace and endpoint from the day after the previous mark. Read only when Redis has no
 * mark, so reading every manifest of the account is acceptable.
 */
export async function lastSucceededRun(
  store: ObjectStore,
  account: string,
  history = new RunHistory(store, account),
  /** Replay from this mark (the ledger's: `visync status`): only runs dated on or after it are
   * read, and the result is a run that moves the mark beyond it, else undefined. */
  from?: { run_id: string; run_date: string },
): Promise<Manifest | undefined> {
  // Run ids start with their run date (YYYYMMDD).
  const since = from?.run_date.replaceAll('-', '') ?? '';
  const ids = (await history.runIds())
    .reverse()
    .filter((id) => id.slice(0, 8) >= since && id !== from?.run_id);
  let best: Manifest | undefined;
  for (let i = 0; i < ids.length; i += READ_AHEAD) {
    const batch = await Promise.all(ids.slice(i, i + READ_AHEAD).map((id) => readOrSkip(store, account, id)));
    for (const m of batch)
      if (m && movesLastSuccess(manifestCoverage(m), best?.run_date ?? from?.run_date)) best = m;
  }
  return best;
}

async function readOrSkip(store: ObjectStore, account: string, runId: string): Promise<Manifest | undefined> {
  try {
    return await readManifest(store, account, runId);
  } catch {
    return undefined; // A manifest that does not parse is not a record of success.
  }
}
