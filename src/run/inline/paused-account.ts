// A run that stopped on a pause it would not wait for records in its manifest when the account may
// be called again (`rate_limited_until`, src/records/manifest.ts). Until then a later run of the
// account ends at once with the same line and calls nothing: without Redis no other process knows
// of the pause, and with Redis its (capped, expiring) key would only make the run wait for it.
import { RunHistory } from '../../records/history.js';
import { type Manifest, readManifest } from '../../records/manifest.js';
import type { ObjectStore } from '../../sinks/object-store.js';

/** Manifests read: the newest by id of every run kind (ids of different kinds do not sort by time among themselves). */
const RECENT = 4;

export interface AccountPause {
  /** The line the run that stopped gave, repeated by every run until `until`. */
  error: string;
  /** Epoch ms. */
  until: number;
}

/** The pause the account's last finished run stopped on, while it lasts; undefined when there is none. */
export async function accountPause(
  store: ObjectStore,
  account: string,
  now = Date.now(),
  history = new RunHistory(store, account),
): Promise<AccountPause | undefined> {
  const ids = (await history.runIds()).slice(0, RECENT);
  const read = await Promise.all(ids.map((id) => readManifest(store, account, id).catch(() => undefined)));
  const last = read
    .filter((m): m is Manifest => m !== undefined)
    .sort((a, b) => b.finished_at.localeCompare(a.finished_at))[0];
  const until = last?.rate_limited_until ? Date.parse(last.rate_limited_until) : Number.NaN;
  if (!last?.error || !(until > now)) return undefined;
  return { error: last.error, until };
}
